"""What a corrected query is shown as ("Showing results for …"): each corrected term spliced into the text as
typed, in the user's capitals."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from bot.search.matching import same_case


class Rewrite(NamedTuple):
    """A corrected term, to splice into the query text the user is shown."""

    span: tuple[int, int]  # where the term sits in the parsed text
    text: str  # the term with its corrections, in the user's capitals


def recased(word: str) -> Callable[[re.Match[str]], str]:
    """A re.sub replacement writing `word` in the capitals of what it replaces."""
    return lambda m: same_case(m.group(), word)


def spliced(text: str, rewrites: Iterable[Rewrite]) -> str:
    """The text with each rewrite in place of its span (the last first, so earlier spans stay where they were)."""
    for (start, end), display in sorted(rewrites, reverse=True):
        text = text[:start] + display + text[end:]
    return text
