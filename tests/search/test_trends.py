"""A topic's counts per venue: each the total the search reports for `<topic> venue:<venue>`, over a four-venue
index built by the production loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.papers import index
from bot.search import search
from bot.search.trends import TrendError, table_lines, topic_trend
from tests.support.venue_index import build_four_venue_index


@pytest.fixture(scope="module")
def four_venues(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_four_venue_index(tmp_path_factory.mktemp("trend-venues"))


def test_counts_are_the_search_totals_venue_by_venue(four_venues: Path) -> None:
    db = index.connect(four_venues, readonly=True)
    try:
        trend = topic_trend(db, "kv cache eviction budgets")
        for venue in trend.venues:
            response = search(db, f"kv cache eviction budgets venue:{venue.venue}")
            assert (venue.matches, venue.exact) == (response.total, response.total_exact)
        assert table_lines(trend) == [
            "venue      papers  on topic   share",
            "ICLR 2024       4        1*   25.0%",
            "ICML 2024       3        3*  100.0%",
            "ICLR 2026       4        3*   75.0%",
            "ICML 2026      21        7*   33.3%",
            "*: few papers there have every word, so papers with some of them count too",
        ]
    finally:
        db.conn.close()


def test_a_track_narrows_both_the_count_and_the_share(four_venues: Path) -> None:
    db = index.connect(four_venues, readonly=True)
    try:
        trend = topic_trend(db, "kv cache track:position")
        assert [(v.venue, v.papers, v.matches) for v in trend.venues] == [("icml2026", 1, 1)]
        assert topic_trend(db, "kv cahce").corrected == "kv cache"
    finally:
        db.conn.close()


@pytest.mark.parametrize("topic", ["kv cache venue:icml2024", "kv cache year:2026", "", "any papers?", "-"])
def test_what_cannot_be_charted_is_refused(four_venues: Path, topic: str) -> None:
    db = index.connect(four_venues, readonly=True)
    try:
        with pytest.raises(TrendError):
            topic_trend(db, topic)
    finally:
        db.conn.close()
