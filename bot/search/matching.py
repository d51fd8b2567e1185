"""Finding query words in paper text fast: normalised bytes, crude stems, and per-alternative counters and regexes.

Ranking reads a few hundred titles and a few dozen abstracts per query, so matching works on bytes
(`bytes.count` and compiled regexes over ` word word ` text) and every counter or regex is built once per
alternative and cached.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.papers import fts
from bot.text.stopwords import FUNCTION_WORDS
from bot.text.words import stem

# Text normalisation for matching: ASCII lowercased, ASCII punctuation to spaces, other bytes (UTF-8) unchanged.
_NORM = bytes(
    (i + 32 if 65 <= i <= 90 else i if (48 <= i <= 57 or 97 <= i <= 122 or i >= 128) else 32) for i in range(256)
)
TextCounter = Callable[[bytes], int]  # occurrences of one alternative in `norm` text


def norm(text: str | bytes) -> bytes:
    """Text (or its UTF-8 bytes, as SQLite returns a CAST to BLOB without decoding them) as bytes for substring
    matching: ` word word ` with ASCII folded to lowercase."""
    if isinstance(text, bytes):
        return (b" " + text + b" ").translate(_NORM)
    return (" " + text + " ").encode("utf-8", "ignore").translate(_NORM)


def coined(name: str) -> bool:
    """A made-up name rather than a word: inner capitals, all capitals, digits or symbols (HiDe, REAL, μA, SCM-GRPO)."""
    return not (name.isalpha() and (name.islower() or name.istitle())) and len(name) >= 2


_CAMEL = re.compile(r"[a-z][A-Z]")


def camel_case(typed: str) -> bool:
    """Whether a word is typed in CamelCase, as names are (ConvNeXt, FlashAttention)."""
    return _CAMEL.search(typed) is not None


def same_case(typed: str, word: str) -> str:
    """A correction in the user's capitals: Knapsak → Knapsack, CAHCE → CACHE, FlashAtention → FlashAttention."""
    if typed.isupper() and len(typed) > 1:
        return word.upper()
    if camel_case(typed):  # each letter the two share keeps its case, if the first does
        out = list(word)
        for a, b, n in difflib.SequenceMatcher(None, typed.lower(), word, autojunk=False).get_matching_blocks():
            out[b : b + n] = typed[a : a + n]
        if out[:1] == [typed[:1]]:
            return "".join(out)
    return word[:1].upper() + word[1:] if typed[:1].isupper() else word


@dataclass(frozen=True)
class Alternative:
    """One way a query term can match (a word, a phrase, a word prefix): hashable, so its matchers are cached."""

    words: tuple[str, ...]
    prefix: bool = False
    exact: bool = False  # match the word itself (and its plural), not every word sharing its stem

    def expression(self) -> str:
        """The FTS5 phrase for this alternative."""
        return fts.phrase(self.words, self.prefix)

    @property
    def content_words(self) -> tuple[str, ...]:
        """The words other than function words (chain of thought: chain, thought)."""
        return tuple(w for w in self.words if w not in FUNCTION_WORDS)

    @property
    def label(self) -> str:
        """How results show what matched (`kv cache`, `token*`)."""
        return " ".join(self.words) + ("*" if self.prefix else "")


@functools.lru_cache(maxsize=4096)
def pattern(alt: Alternative) -> re.Pattern[bytes]:
    """A regex finding an alternative in `norm` text: each word by its stem at a word start (short words whole)."""
    pieces = []
    for i, word in enumerate(alt.words):
        if alt.prefix and i == len(alt.words) - 1:
            pieces.append(re.escape(word.encode()) + rb"[^ ]*")
        elif len(word) <= 3 or not word.isascii() or alt.exact:
            pieces.append(re.escape(word.encode()) + rb"s?(?= )")
        elif i and word.endswith("ing") and len(word) == 6:
            # fine-tuning: fine-tune, fine-tuned (in a phrase only: alone, "tun" would find tunnels)
            pieces.append(re.escape(word[:3].encode()) + rb"[^ ]*")
        else:
            pieces.append(re.escape(stem(word).encode()) + rb"[^ ]*")
    return re.compile(rb" " + rb" +".join(pieces))


@functools.lru_cache(maxsize=4096)
def counter(alt: Alternative) -> TextCounter:
    """A fast counter of an alternative's occurrences in `norm` text (bytes.count for single words)."""
    if len(alt.words) == 1 and not alt.prefix:
        word = alt.words[0]
        if len(word) <= 3 or not word.isascii() or alt.exact:
            exact, plural = (" " + word + " ").encode(), (" " + word + "s ").encode()
            return lambda t: t.count(exact) + t.count(plural)
        key = (" " + stem(word)).encode()
        return lambda t: t.count(key)
    found = pattern(alt)
    return lambda t: len(found.findall(t))


@functools.lru_cache(maxsize=4096)
def highlight_regex(alt: Alternative) -> str:
    """Regex source (for lowercased display text, after a word boundary) finding one alternative, for snippets."""
    pieces = []
    for i, word in enumerate(alt.words):
        if alt.prefix and i == len(alt.words) - 1:
            pieces.append(re.escape(word) + r"\w*")
        elif len(word) <= 3:
            pieces.append(re.escape(word) + r"s?\b")
        else:
            pieces.append(re.escape(stem(word)) + r"\w*")
    return r"[\s\-‐‑–—/]+".join(pieces)


def first_hit(counters: list[TextCounter], text: bytes) -> tuple[int, int]:
    """(alternative, count): the first of a group's alternatives found in `norm` text and how often, or (-1, 0).

    A plain pair, unpacked by the caller: ranking calls this for every group of every reranked paper."""
    for i, count in enumerate(counters):
        n = count(text)
        if n:
            return i, n
    return -1, 0


def found_alt(counters: list[TextCounter], text: bytes) -> int:
    """Which of a group's alternatives `norm` text holds: the first one found, or -1."""
    for i, count in enumerate(counters):
        if count(text):
            return i
    return -1
