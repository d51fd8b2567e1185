"""Weights: one frozen object holds every number that decides an order, and a sweep of it reaches the search."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import search
from bot.papers import index
from bot.search.weights import DEFAULT, Fusion, Ranking, Weights
from tests.support.venue_index import index_of

FILLER = "We report experiments on several benchmarks and release our code for others to build on. "


def test_a_sweep_sets_weights_by_name_each_read_as_its_type() -> None:
    swept = DEFAULT.with_values({"fusion.meaning": "2", "ranking.rerank": "40", "fusion.titles_lead": "false"})
    assert swept.fusion == Fusion(meaning=2.0, titles_lead=False)
    assert swept.ranking == Ranking(rerank=40)
    assert Weights() == DEFAULT  # (the defaults are untouched: frozen)
    with pytest.raises(ValueError, match=r"no weight 'fusion\.nope'; there are ranking\.rerank, .*fusion\.meaning"):
        DEFAULT.with_values({"fusion.nope": "1"})
    with pytest.raises(ValueError, match="heavy"):
        DEFAULT.with_values({"ranking.title": "heavy"})


def test_ranking_weights_reach_the_order(tmp_path: Path) -> None:
    papers = [
        {"id": "T", "title": "Sparse Attention", "abstract": FILLER * 3},
        {
            "id": "A",
            "title": "A Study of Efficient Inference",
            "abstract": "We show sparse attention works. Sparse attention is cheap; sparse attention scales. " + FILLER,
        },
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    by_title = [r.paper["title"][:6] for r in search.search(db, "sparse attention").results]
    abstracts_count = DEFAULT.with_values(
        {
            "ranking.title": "0",
            "ranking.title_words": "0",
            "ranking.title_phrase": "0",
            "ranking.exact_word": "0",
            "ranking.abstract_phrase": "5",
        }
    )
    by_abstract = [r.paper["title"][:6] for r in search.search(db, "sparse attention", weights=abstracts_count).results]
    # A title about the topic leads, as the defaults weigh it
    assert by_title == ["Sparse", "A Stud"]
    assert by_abstract == ["A Stud", "Sparse"]
