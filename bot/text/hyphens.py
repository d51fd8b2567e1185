"""Repair of PDF line-break artefacts: words split by a hyphen and a space, and compounds glued together."""

from __future__ import annotations

import re

from bot.text.words import HYPHEN_PREFIXES, WORD_RE, word_set

_HYPHEN_BREAK_RE = re.compile(r"(?<=\w)- (?=[a-z])")
_LEFT_WORD_RE = re.compile(r"(?<![\w-])[^\W\d_]\w*$")
_RIGHT_WORD_RE = re.compile(r"[a-z]+(?![\w-])")
_CONNECTORS = word_set("and or to nor versus vs than but we a an the with as of in on at by for from into via not")
_COMPOUND_PARTS = word_set(
    "driven based aware free specific level wise scale time agnostic efficient guided constrained conditioned "
    "oriented intensive dependent independent invariant preserving augmented informed centric like tuned "
    "trained supervised controlled enhanced induced related style only friendly sensitive critical optimal "
    "consistent compatible ready grained order step shot stage class domain task token world source "
    "resolution dimensional agent specific bounded regularized weighted guided learning"
)  # fmt: skip
_GLUE_SUFFIXES = word_set(
    "driven based aware constrained conditioned guided agnostic specific efficient intensive oriented centric "
    "invariant preserving augmented informed free"
)
_GLUE_SUFFIXES_T = tuple(sorted(_GLUE_SUFFIXES))
_GLUE_RE = re.compile(r"([a-z]{4,})(" + "|".join(_GLUE_SUFFIXES_T) + r")")
_GLUE_BAD_PREFIXES = word_set("under over multi inter intra self semi super sub counter post anti hyper care carefree")


class _WordCounts:
    """How often each word occurs in a text (lower case), counted on first use: most texts never need it. Until then
    `lower` may be replaced by the text as repaired so far."""

    def __init__(self, lower: str) -> None:
        self.lower = lower
        self._counts: dict[str, int] | None = None

    def get(self) -> dict[str, int]:
        """The counts (of `lower` as it was at the first call)."""
        if self._counts is None:
            self._counts = {}
            for w in WORD_RE.findall(self.lower):
                self._counts[w] = self._counts.get(w, 0) + 1
        return self._counts


def repair_hyphenation(s: str) -> str:
    """Fix PDF line-break artefacts: ``sem- inal`` → ``seminal``, ``causality- driven`` → ``causality-driven``."""
    counts = _WordCounts(s.lower())
    if "- " in s:
        s = _join_breaks(s, counts)
        counts.lower = s.lower()
    return _split_glued(s, counts)


def _join_breaks(s: str, counts: _WordCounts) -> str:
    """Each word broken by a hyphen and a space, joined as the text suggests (see `_joined`)."""
    lower = s.lower()
    out: list[str] = []
    pos = 0
    for hb in _HYPHEN_BREAK_RE.finditer(s):
        lm = _LEFT_WORD_RE.search(s, max(pos, hb.start() - 40), hb.start())
        rm = _RIGHT_WORD_RE.match(s, hb.end())
        if not lm or not rm:
            continue
        out.append(s[pos : lm.start()])
        out.append(_joined(lm.group(), rm.group(), lower, counts))
        pos = rm.end()
    if not out:
        return s
    out.append(s[pos:])
    return "".join(out)


def _joined(left: str, right: str, lower: str, counts: _WordCounts) -> str:
    """`left- right` as one word, a hyphenated compound, or left as it was (a connector: "pre- and post-")."""
    ll = left.lower()
    if right in _CONNECTORS:
        return f"{left}- {right}"
    v = counts.get()
    if ll + right in v:
        return left + right
    if f"{ll}-{right}" in lower:
        return f"{left}-{right}"
    if right in _COMPOUND_PARTS:
        return f"{left}-{right}"
    # both halves also occur on their own elsewhere in the text (the break itself counts once)
    left_ok = ll in HYPHEN_PREFIXES or (len(ll) >= 4 and v.get(ll, 0) >= 2)
    if len(right) >= 3 and v.get(right, 0) >= 2 and left_ok:
        return f"{left}-{right}"
    if not left.islower() and not left[:1].isupper():
        return f"{left}- {right}"
    if any(c.isupper() for c in left[1:]) or any(c.isdigit() for c in left):
        return f"{left}-{right}"  # "GRPO- based", "3D- printing": never glue onto an acronym
    return left + right


def _split_glued(s: str, counts: _WordCounts) -> str:
    """Compounds glued together once in the text (`causalitydriven`) split where the first part occurs on its own."""
    lower = s.lower()
    if not any(suffix in lower for suffix in _GLUE_SUFFIXES):
        return s
    v = counts.get()
    for word, n in list(v.items()):
        if n != 1 or len(word) < 10 or not word.endswith(_GLUE_SUFFIXES_T) or not word.isascii():
            continue
        m = _GLUE_RE.fullmatch(word)
        if m and m.group(1) not in _GLUE_BAD_PREFIXES and m.group(1) in v:
            s = re.sub(rf"\b{word}\b", f"{m.group(1)}-{m.group(2)}", s)
    return s
