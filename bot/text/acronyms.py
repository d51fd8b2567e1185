"""Acronyms the papers define ("Mixture of Experts (MoE)"), learned at index time, and the keys both sides use.

Learning is pure (text in, pairs out): bot.papers.index stores what learn() returns in its acronyms table, and
search (bot.search.long_forms) reads that table, adds its built-in list and expands queries both ways with the same
short_key and long_key. This module imports nothing from search, so the index never does.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import NamedTuple

# Words a long form may skip without giving the acronym a letter ("Reinforcement Learning from Human Feedback").
_SKIPPABLE = frozenset(
    ("of", "for", "from", "and", "the", "a", "an", "in", "on", "to", "with", "by", "via", "at", "as", "based")
)
_SHORT_RE = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9-]{0,11}?)(?:\s*[,;][^()]{0,40})?\s*\)")
_WORD_SPLIT_RE = re.compile(r"[\s/]+")
_HYPHEN_RE = re.compile(r"[‐-―-]+")
_POSSESSIVE_RE = re.compile(r"['’]s$")
_CLAUSE_END_RE = re.compile(r"[.;:!?()\[\]{}]|, ")
_MARKUP_RE = re.compile(r"[*_`~]")
_EDGE_PUNCT = "\"'“”‘’,.;:!?"


class AcronymPair(NamedTuple):
    """One acronym and one of its long forms, as the index stores them (the acronyms table has these columns)."""

    key: str  # short_key of the acronym (moe)
    form: str  # the acronym as most papers write it (MoE)
    long: str  # long_key of the long form (mixture of expert)
    papers: int  # papers that define this pair (0: a built-in pair)


def short_key(short: str) -> str:
    """Lookup key of an acronym: lowercase letters and digits, a plural `s` dropped (LLMs → llm)."""
    s = short.strip()
    if len(s) > 2 and s.endswith("s") and s[-2].isupper():
        s = s[:-1]
    return "".join(c for c in s.lower() if c.isalnum())


def long_key(words: Iterable[str]) -> str:
    """Lookup key of a long form: lowercase words, hyphens as spaces, the last word singular."""
    parts = [p for w in words for p in _HYPHEN_RE.split(_POSSESSIVE_RE.sub("", w.strip(_EDGE_PUNCT)).lower()) if p]
    if parts and len(parts[-1]) > 3 and parts[-1].endswith("s") and not parts[-1].endswith(("ss", "us", "is")):
        parts[-1] = parts[-1][:-1]
    return " ".join(parts)


def is_acronym(short: str) -> bool:
    """Looks like an acronym: 2-10 letters, at least two capitals, capitals first (MoE, LoRA, LLMs, GRPO)."""
    core = short[:-1] if len(short) > 2 and short.endswith("s") and short[-2].isupper() else short
    if not 2 <= len(core) <= 10 or not core[0].isupper() or not core.replace("-", "").isalpha():
        return False
    return sum(c.isupper() for c in core) >= 2


def _fits(letters: str, words: list[str]) -> bool:
    """True when every content word starts with the acronym's next letter; a word may give more letters in order.

    A hyphenated word is one word whose later parts may give letters: Retrieval-Augmented Generation (RAG).
    """
    n_letters, n_words = len(letters), len(words)

    def go(i: int, j: int) -> bool:
        if j == n_words:
            return i == n_letters
        word = words[j]
        if i < n_letters and word[0] == letters[i]:
            # The word gives its initial, then possibly further letters from inside it (LoRA: Low-Rank Adaptation).
            k, pos = i + 1, 1
            options = [k]
            while k < n_letters:
                found = word.find(letters[k], pos)
                if found < 0:
                    break
                k, pos = k + 1, found + 1
                options.append(k)
            if any(go(opt, j + 1) for opt in reversed(options)):
                return True
        return word in _SKIPPABLE and j > 0 and go(i, j + 1)

    return go(0, 0)


def long_form(short: str, before: str) -> list[str] | None:
    """The words just before "(SHORT)" that SHORT abbreviates, checked letter by letter against their initials."""
    letters = short_key(short)
    if not letters.isalpha():
        return None
    clause = _CLAUSE_END_RE.split(before)[-1]
    words = [w.strip(_EDGE_PUNCT) for w in _WORD_SPLIT_RE.split(clause)]
    words = [w for w in words if w][-(len(letters) + 4) :]
    lowered = [w.lower() for w in words]
    for k in range(1, len(words) + 1):
        cand = lowered[-k:]
        if cand[0][0] != letters[0] or cand[0] in _SKIPPABLE or not cand[0][0].isalpha():
            continue
        if sum(len(_HYPHEN_RE.split(w)) for w in cand) >= 2 and _fits(letters, cand):
            return words[-k:]
    return None


def pairs_in(text: str) -> list[tuple[str, str]]:
    """(acronym as written, long-form key) for every "Long Form (LF)" definition in one text."""
    if "(" not in text:
        return []
    out = []
    for m in _SHORT_RE.finditer(text):
        short = m.group(1)
        if not is_acronym(short):
            continue
        before = _MARKUP_RE.sub("", text[max(0, m.start() - 160) : m.start()])
        words = long_form(short, before)
        if words:
            out.append(
                (short[:-1] if short_key(short) != short.lower() and short.endswith("s") else short, long_key(words))
            )
    return out


def learn(texts: Iterable[str]) -> list[AcronymPair]:
    """(key, display form, long-form key, papers) for pairs defined in at least two papers, from one text per paper."""
    papers: Counter[tuple[str, str]] = Counter()
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for text in texts:
        seen = set()
        for short, long in pairs_in(text or ""):
            key = short_key(short)
            forms[key][short] += 1
            seen.add((key, long))
        papers.update(seen)
    return [
        AcronymPair(key, forms[key].most_common(1)[0][0], long, n)
        for (key, long), n in sorted(papers.items())
        if n >= 2
    ]
