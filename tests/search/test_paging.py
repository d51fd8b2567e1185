"""Paging: each paper once, in one order under one total, however deep; a short page shows the whole order's places."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.search import cache
from bot.search.cache import index_cache
from bot.search.rank import Ranker, ScoredPaper
from bot.search.weights import DEFAULT
from tests.search.results import ids
from tests.support.marks import starred
from tests.support.paths import needs_shared_data
from tests.support.seed_ids import CALIBRATION, GPS, SOFTMOE, TOKENSWAP, TOKSUITE, VIEWMASK


def test_paging_returns_each_paper_once(seed_db: sqlite_utils.Database) -> None:
    first = search.search(seed_db, "language models", limit=3)
    second = search.search(seed_db, "language models", limit=3, offset=3)
    assert first.total == second.total == 19
    assert ids(first) == [TOKSUITE, VIEWMASK, SOFTMOE]
    assert ids(second) == [CALIBRATION, TOKENSWAP, GPS]
    assert ids(search.search(seed_db, "language models", limit=6)) == ids(first) + ids(second)


@needs_shared_data()
@pytest.mark.parametrize("query", ["diffusion", "language model", "kv cache", "has:code reasoning"])
def test_paging_deep_shows_each_paper_once_in_one_order_under_one_total(full_index_path: Path, query: str) -> None:
    db = index.connect(full_index_path, readonly=True)
    pages = [search.search(db, query, limit=25, offset=offset) for offset in range(0, 400, 25)]
    paged = [r.paper["id"] for page in pages for r in page.results]
    assert len(paged) == len(set(paged))
    assert paged[:50] == ids(search.search(db, query, limit=50))
    assert len({page.total for page in pages}) == 1
    assert len(paged) == min(400, pages[0].total) or not pages[0].total_exact


PAGED_QUERIES = [
    "diffusion",
    "language model",
    "kv cache",
    "weather forecasting with machine learning",
    "membership inference attacks on diffusion models",
    "Mohit Bansal reasoning",
    "speculative decodng",
]


@needs_shared_data()
def test_a_short_page_scores_fewer_papers_but_shows_the_places_of_the_whole_order(
    full_index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranking works out full scores only for candidates whose title leaves them a chance of the page: each page
    must still show exactly the papers, scores and order of those places when every candidate is scored."""
    db = index.connect(full_index_path, readonly=True)
    scored: list[int] = []
    full_score = Ranker.score

    def counted(self: Ranker, paper: ScoredPaper, *rest: Any) -> float:
        scored.append(paper.rowid)
        return full_score(self, paper, *rest)

    monkeypatch.setattr(Ranker, "score", counted)
    spared = 0
    for query in PAGED_QUERIES:
        whole = search.search(db, query, limit=DEFAULT.ranking.rerank)
        every = len(scored)
        for offset in (0, 1, 5, 10, 20):
            scored.clear()
            page = search.search(db, query, limit=5, offset=offset)
            assert [(r.paper["id"], r.score, starred(r.snippet)) for r in page.results] == [
                (r.paper["id"], r.score, starred(r.snippet)) for r in whole.results[offset : offset + 5]
            ], (query, offset)
            spared += every - len(scored)
        scored.clear()
    assert spared > 0  # some pages did leave candidates unscored: the test saw the shortcut at work


@needs_shared_data()
def test_abstracts_kept_in_memory_rank_as_abstracts_read_per_query(
    full_index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index small enough keeps the abstracts ranking reads in memory; a larger one reads them per query: both
    give the same answers, with the abstracts read for the first time or taken from memory."""
    db = index.connect(full_index_path, readonly=True)

    def answers() -> list[list[tuple[str, float, str, list[str]]]]:
        pages = [search.search(db, query, limit=10) for query in [*PAGED_QUERIES, "Mohit Bansal", "author:hayou"]]
        return [[(r.paper["id"], r.score, starred(r.snippet), r.matched) for r in page.results] for page in pages]

    first, again = answers(), answers()  # (the abstracts are kept as they are read)
    assert again == first
    assert len(index_cache(db).abstracts() or {}) >= 10 * len(first)
    monkeypatch.setattr(cache, "ABSTRACTS_IN_MEMORY", 0)
    assert index_cache(db).abstracts() is None
    assert answers() == first
