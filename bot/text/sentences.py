"""Sentences of an abstract and the clauses that say what the paper contributes ("we propose X")."""

from __future__ import annotations

import re
from functools import lru_cache

_ABBREV_END_RE = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|al|vs|cf|Fig|Figs|Eq|Eqs|Sec|resp|approx|incl|No|Ref|Tab|Dr|Mr|Ms|St|Thm|Prop|w\.r\.t)\.|"
    r"\b[A-Z]\.)$"
)
_SENT_SPLIT_RE = re.compile(r"(?<=[.!?])[\"”’)]*\s+(?=[\"“‘(]?[A-Z0-9μ])")
_CONTRIB_VERBS = (
    "propose|introduce|present|develop|design|describe|build|construct|create|release|contribute|formulate|devise|"
    "establish|offer|provide|put forward|study|investigate|identify|explore|analy[sz]e|show|demonstrate"
)
_AND_VERB_RE = re.compile(
    r"(?:\band|\bthen|,)\s+(?:then\s+|further\s+|also\s+|thus\s+|therefore\s+)?"
    r"(propose|introduce|present|develop|design|devise|build)(?:s|d|ed)?\b(.*)",
    re.S,
)
_STRONG_VERBS = frozenset({"propose", "introduce", "present", "develop", "design", "describe", "devise", "build"})
_SUBJECT = (
    r"(?:[Ww]e|[Tt]his (?:paper|work|study|article|submission|report|note)|[Oo]ur (?:work|paper|study)|[Hh]ere,? we)"
)
_CONTRIB_RE = re.compile(
    rf"\b{_SUBJECT}\s+(?:(?:first|then|further|also|additionally|therefore|thus|hence|instead|now|here|newly|"
    rf"formally|theoretically|empirically|systematically|subsequently|finally|next|jointly|simply)\s+)*"
    rf"(?P<verb>{_CONTRIB_VERBS})(?:s|es|d|ed)?\b(?P<rest>.*)",
    re.S,
)


@lru_cache(maxsize=1024)
def split_sentences(text: str) -> tuple[str, ...]:
    """Split plain text into sentences without breaking at e.g./i.e./et al./initials."""
    out: list[str] = []
    for para in text.split("\n\n"):
        start = 0
        for m in _SENT_SPLIT_RE.finditer(para):
            piece = para[start : m.start()].rstrip()
            if _ABBREV_END_RE.search(piece[-12:]):
                continue
            out.append(piece.strip())
            start = m.end()
        tail = para[start:].strip()
        if tail:
            out.append(tail)
    return tuple(s for s in out if s)


_CLAUSE_OPENERS = ("that ", "how ", "why ", "whether ")


@lru_cache(maxsize=8192)
def claims(sent: str) -> tuple[tuple[int, str, str], ...]:
    """Contribution clauses in one sentence as (rank, verb, text after the verb); rank 0 is strongest."""
    out: list[tuple[int, str, str]] = []
    for m in _CONTRIB_RE.finditer(sent):
        verb, rest = m.group("verb"), m.group("rest")
        if verb not in _STRONG_VERBS:
            again = _AND_VERB_RE.search(rest)
            if again:  # "We study X and propose Y"
                verb, rest = again.group(1), again.group(2)
        if verb in _STRONG_VERBS:
            rank = 0
        elif verb.startswith(("show", "demonstrate")) or rest.lstrip().startswith(_CLAUSE_OPENERS):
            rank = 3
        elif verb in ("study", "investigate", "explore", "identify", "analyze", "analyse"):
            rank = 2
        else:
            rank = 1
        out.append((rank, verb, rest))
    return tuple(out)


def contribution(sentences: tuple[str, ...]) -> tuple[int, str, str] | None:
    """Find the sentence that says what the paper does: (index, verb, rest); strong verbs win over weak ones."""
    best: tuple[int, int, str, str] | None = None
    for i, sent in enumerate(sentences):
        for rank, verb, rest in claims(sent):
            if best is None or rank < best[0]:
                best = (rank, i, verb, rest)
        if best is not None and best[0] == 0:
            break
    if best is None or best[0] >= 3:
        return None
    return best[1], best[2], best[3]
