"""The basics every text module shares: the one word pattern, word-list tables, and the guard for outside text."""

from __future__ import annotations

import functools
import re

# A word is a run of letters and digits in any script; `_` and punctuation split words. Search, the index, the
# typo vocabulary and title matching all split with this one pattern so they agree on what a word is.
WORD_RE = re.compile(r"[^\W_]+")


# Endings the crude stemmer drops, longest first.
_SUFFIXES = (
    "izations",
    "ization",
    "isations",
    "isation",
    "ations",
    "ation",
    "ings",
    "ing",
    "ies",
    "ied",
    "ers",
    "er",
    "ed",
    "es",
    "s",
    "e",
    "y",
)


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A crude stem whose prefix matches the usual inflections (caching → cach, learning → learn)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def word_set(words: str) -> frozenset[str]:
    """A frozenset from a whitespace-separated word list, so the long word tables stay readable."""
    return frozenset(words.split())


# Prefixes that stay joined to their word with a hyphen ("self-supervised", "non-Euclidean"): hyphenation repair
# keeps them hyphenated, and name derivation does not take "non-Euclidean" for an invented name.
HYPHEN_PREFIXES = word_set(
    "self cross non multi semi post pre co anti meta pseudo quasi sub super inter intra over under out "
    "fine long short high low well state end open zero few one two three single dual"
)  # fmt: skip


def valid_text(text: str) -> str:
    """`text` with lone surrogates (possible in JSON payloads, impossible to encode or store) replaced by "?"."""
    return text.encode("utf-8", "replace").decode("utf-8")
