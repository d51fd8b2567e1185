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


# Endings of nouns made from adjectives and verbs, tried first, each with the shortest stem it may leave: so a query
# typed as a noun finds titles with the adjective (robustness → robust, explainability → explain, causality →
# causal), as FTS5's Porter stemmer already does when it retrieves them. Shorter stems would join unrelated words
# (probability → prob, activity → activ, priority → prior); -unity words keep theirs (community is not communication).
_DERIVED = (("abilities", 5), ("ibilities", 5), ("ability", 5), ("ibility", 5), ("ities", 6), ("ity", 6), ("ness", 4))


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A crude stem whose prefix matches the usual inflections and a noun's adjective (caching → cach, learning →
    learn, robustness → robust). Adjectives in -ional keep theirs: positional → position would match every
    "Position:" paper of ICML's position track."""
    for suffix, shortest in _DERIVED:
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            if len(base) >= shortest and not base.endswith("un"):
                return base
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
