"""Fusion: the lexical engine's order, a plain OR-BM25 order and the order by meaning merged into one by weighted
reciprocal rank (each list credits a paper weight / (k + rank)), so that no one signal's blind spot decides: the
lexical rules know titles, typos and ideas, BM25 weighs rare words where few papers hold every word, and meaning
finds an idea described in other words.

The weights live in `bot.search.weights.Fusion`, part of the one frozen object bench/quality/graded.py sweeps.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.papers.matching import columns_of
from bot.papers.reading import Reader
from bot.search import described, meaning
from bot.search.cache import IndexCache
from bot.search.plan import QueryPlanner
from bot.search.rank import Ranker, ScoredPaper
from bot.search.retrieval_plan import RetrievalPlan
from bot.search.retrieve import CandidateRetriever
from bot.search.weights import DEFAULT, Described, Fusion, Weights
from bot.text.stopwords import FUNCTION_WORDS


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
    # Enough hold every word: only reorder
    if sum(1 for s in lexical if s.level >= groups) >= fusion.add_below:
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


def fused_order(
    db: Reader,
    cache: IndexCache,
    planned: tuple[RetrievalPlan, Ranker],
    retriever: CandidateRetriever,
    ranked: list[ScoredPaper],
    fusion: Fusion,
) -> list[ScoredPaper]:
    """The lexical order fused with the BM25 order and closeness in meaning (bot.search.fuse), less the papers BM25
    alone brought that hold no query word as ranking reads it (nothing would show why they are there)."""
    plan, ranker = planned
    by_bm25 = retriever.by_bm25(fusion.depth if fusion.bm25 else 0, fusion.postings)
    # As corrected: typos unknown
    said = " ".join(w for w in plan.sequence if w and w not in FUNCTION_WORDS)
    among = [s.rowid for s in ranked[: fusion.depth]] + by_bm25
    near = meaning.closest(db, cache, said, among, fusion.floor) if fusion.meaning else []
    fused = fuse(ranked, by_bm25, near, len(plan.groups), fusion)
    # BM25's alone
    joined = {s.rowid for s in fused if s.rowid not in retriever.found and s.close is None}
    unheld = joined - ranker.holding(sorted(joined)) if joined else set()
    return [s for s in fused if s.rowid not in unheld] if unheld else fused


def described_order(
    db: Reader,
    cache: IndexCache,
    planned: tuple[RetrievalPlan, QueryPlanner],
    retriever: CandidateRetriever,
    ranked: list[ScoredPaper],
    weights: Weights,
) -> list[ScoredPaper]:
    """A long query read as the description of an idea (bot.search.described): its order of the fused head and
    the papers holding its words or their synonyms, blended with the fused order."""
    plan, planner = planned
    chosen = weights.described
    words = described.content_words(plan.sequence)
    if not described.is_description(words, chosen) or any(s.looked_up for s in ranked[:1]):
        return ranked  # (a title typed out is not a description: its paper leads)
    df = planner.df
    expanded = described.expansions(words, df, chosen)
    units: list[tuple[str, ...]] = [(s,) for w in words for s in expanded[w]]
    widened = retriever.by_bm25_of(units, chosen.widened, weights.fusion.postings)
    among = list(dict.fromkeys([s.rowid for s in ranked[: chosen.depth] if not s.pinned] + widened))
    papers = {r: (str(t or ""), str(a or "")) for r, (t, a) in columns_of(db, "title, abstract", among).items()}
    said = " ".join(plan.sequence)
    whole = dict(meaning.closest(db, cache, said, among, -1.0))
    memory = described.memory_of(cache)
    stored = described.stored_in(db) if whole else described.nothing_stored
    ordered = described.order(said, words, expanded, papers, memory, stored, df(words), cache.papers, whole, chosen)
    return blend(ranked, [(r, whole.get(r, 0.0)) for r, _ in ordered], chosen)
