"""Readers and a new index renamed over the old one: the next query reads the new file, a running one the old."""

from __future__ import annotations

from pathlib import Path

from bot.papers.publish import publish
from bot.search.reader import Papers
from tests.support.venue_index import NEW_PAPER, build


def test_a_renamed_index_is_read_by_the_next_query(tmp_path: Path) -> None:
    old, new = build(tmp_path / "old", []), build(tmp_path / "new", [NEW_PAPER])
    live = tmp_path / "live" / "papers.db"
    publish(old, live)
    papers = Papers(live)
    assert papers.count() == 19
    assert papers.search("zorblatting").results == []
    with papers.snapshot() as db:
        publish(new, live)  # a query under way keeps reading the file it started on
        assert db.execute("SELECT count(*) FROM papers").fetchone()[0] == 19
    assert papers.count() == 20
    assert [r.paper["source_id"] for r in papers.search("zorblatting").results] == ["ZORB1"]
    assert papers.get("ZORB1") is not None
    publish(old, live)
    assert papers.search("zorblatting").results == []
    assert papers.get("ZORB1") is None
    assert sorted(p.name for p in live.parent.iterdir()) == ["papers.db"]  # no WAL, no leftovers
