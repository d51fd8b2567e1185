"""Fusion: the lexical engine's order, a plain OR-BM25 order and the order by meaning merged into one by weighted
reciprocal rank (each list credits a paper weight / (k + rank)), so that no one signal's blind spot decides: the
lexical rules know titles, typos and ideas, BM25 weighs rare words where few papers hold every word, and meaning
finds an idea described in other words.

The weights live in `bot.search.weights.Fusion`, part of the one frozen object bench/quality/graded.py sweeps.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.search.rank import ScoredPaper
from bot.search.weights import DEFAULT, Described, Fusion


def fuse(
    ranked: list[ScoredPaper],
    by_bm25: Sequence[int],
    near: Sequence[tuple[int, float]],
    groups: int,
    fusion: Fusion = DEFAULT.fusion,
) -> list[ScoredPaper]:
    """One order: named papers first, then every paper in the first `depth` places of a list by the sum of its
    credits, then the rest of the lexical order. `groups`: how many query words a paper holding them all matches.
    `near` ranks papers the other lists hold; a paper only BM25 found joins with level 0; `close` keeps cosines."""
    if not by_bm25 and not near:
        return ranked
    pinned = [s for s in ranked if s.pinned]
    if fusion.titles_lead:  # (the title is the paper's own word for its topic: nothing says more)
        pinned += [s for s in ranked[: fusion.depth] if not s.pinned and (s.looked_up or _title_holds_all(s))]
    named = {s.rowid for s in pinned}
    lexical = [s for s in ranked if s.rowid not in named]
    score: dict[int, float] = {}
    lists: tuple[tuple[Sequence[int], float], ...] = (
        ([s.rowid for s in lexical[: fusion.depth]], fusion.lexical),
        (by_bm25[: fusion.depth], fusion.bm25),
        ([rowid for rowid, _ in near[: fusion.depth]], fusion.meaning),
    )
    if sum(1 for s in lexical if s.level >= groups) >= fusion.add_below:  # enough hold every word: only reorder
        head = {s.rowid for s in lexical[: fusion.depth]}
        lists = tuple(([r for r in rowids if r in head], weight) for rowids, weight in lists)
    for rowids, weight in lists:
        for rank, rowid in enumerate(r for r in rowids if r not in named):
            score[rowid] = score.get(rowid, 0.0) + weight / (fusion.k + rank)
    known = {s.rowid: s for s in lexical}
    cosine = dict(near)
    fused = []
    for rowid in sorted(score, key=lambda r: (-score[r], r)):
        paper = known.get(rowid) or ScoredPaper(rowid, 0.0)
        paper.close = cosine.get(rowid)
        fused.append(paper)
    return pinned + fused + [s for s in lexical if s.rowid not in score]


def _title_holds_all(paper: ScoredPaper) -> bool:
    """Whether the paper's title, as ranking read it, holds every query word (or an alternative of it). A title
    holding a word of each idea is not enough: on the graded set that lead cost 0.06 nDCG@10 (several concepts)."""
    return bool(paper.in_title) and min(paper.in_title) >= 0


def blend(ranked: list[ScoredPaper], described: Sequence[tuple[int, float]], weights: Described) -> list[ScoredPaper]:
    """The fused order and a description's order (bot.search.described) merged by weighted reciprocal rank, named
    papers first and the rest of the fused order after; `described` holds (rowid, cosine of the whole paper)."""
    if not described:
        return ranked
    pinned = [s for s in ranked if s.pinned or s.looked_up]
    named = {s.rowid for s in pinned}
    rest = [s for s in ranked if s.rowid not in named]
    score: dict[int, float] = {}
    lists = (
        ([s.rowid for s in rest[: weights.depth]], 1.0),
        ([r for r, _ in described[: weights.depth]], weights.weight),
    )
    for rowids, weight in lists:
        for rank, rowid in enumerate(r for r in rowids if r not in named):
            score[rowid] = score.get(rowid, 0.0) + weight / (weights.k + rank)
    known = {s.rowid: s for s in rest}
    cosine = dict(described)
    blended = [
        known.get(r) or ScoredPaper(r, 0.0, close=cosine[r]) for r in sorted(score, key=lambda r: (-score[r], r))
    ]
    return pinned + blended + [s for s in rest if s.rowid not in score]
