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


def repair_hyphenation(s: str) -> str:
    """Fix PDF line-break artefacts: ``sem- inal`` → ``seminal``, ``causality- driven`` → ``causality-driven``."""
    vocab: dict[str, int] | None = None
    lower = s.lower()

    def _vocab() -> dict[str, int]:
        nonlocal vocab
        if vocab is None:
            vocab = {}
            for w in WORD_RE.findall(lower):
                vocab[w] = vocab.get(w, 0) + 1
        return vocab

    if "- " in s:

        def _fix(left: str, right: str) -> str:
            ll = left.lower()
            if right in _CONNECTORS:
                return f"{left}- {right}"
            v = _vocab()
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

        out: list[str] = []
        pos = 0
        for hb in _HYPHEN_BREAK_RE.finditer(s):
            lm = _LEFT_WORD_RE.search(s, max(pos, hb.start() - 40), hb.start())
            rm = _RIGHT_WORD_RE.match(s, hb.end())
            if not lm or not rm:
                continue
            out.append(s[pos : lm.start()])
            out.append(_fix(lm.group(), rm.group()))
            pos = rm.end()
        if out:
            out.append(s[pos:])
            s = "".join(out)
            lower = s.lower()

    if not any(suffix in lower for suffix in _GLUE_SUFFIXES):
        return s
    v = _vocab()
    for word, n in list(v.items()):
        if n != 1 or len(word) < 10 or not word.endswith(_GLUE_SUFFIXES_T) or not word.isascii():
            continue
        m = _GLUE_RE.fullmatch(word)
        if m and m.group(1) not in _GLUE_BAD_PREFIXES and m.group(1) in v:
            s = re.sub(rf"\b{word}\b", f"{m.group(1)}-{m.group(2)}", s)
    return s
