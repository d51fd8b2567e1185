"""ICML_BOT_REFRESH: fetching the indexed venues again on a schedule, against the local fake conference site.

Time is passed in (the refresher's clock), never slept; the index's own last_indexed stamp is what it compares."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.config import Config, ConfigError
from bot.papers import fetching as run
from bot.papers import index
from bot.papers.fetch.http import JsonClient, RetryPolicy
from bot.papers.venues import Scope, parse_scope, parse_venue
from bot.search.reader import Papers
from bot.serve import refresh
from tests.search.test_reader_warm import WHOLE_TABLE_READS
from tests.support.conference_fakes import FakeSite, Fault, make_conference, serve

HOUR = 3600


@pytest.fixture
def site() -> Iterator[FakeSite]:
    with serve(FakeSite(make_conference(), page_size=10)) as fake:
        yield fake


def settings(tmp_path: Path, site: FakeSite) -> run.Settings:
    return run.Settings(
        cache_dir=tmp_path / "cache",
        site_url=site.url,
        client=JsonClient(timeout=10, retry=RetryPolicy(sleep=lambda _: None)),
    )


def titles(path: Path) -> set[str]:
    db = index.connect(path, readonly=True)
    try:
        return {r[0] for r in db.execute("SELECT title FROM papers")}
    finally:
        db.conn.close()


def later(hours: float) -> Any:
    """A clock `hours` from now."""
    return lambda: datetime.now(UTC) + timedelta(hours=hours)


def test_due_compares_the_index_stamp_with_the_interval() -> None:
    stamp = datetime(2026, 7, 20, 9, 0, tzinfo=UTC)
    assert not refresh.due(stamp, stamp + timedelta(hours=5, minutes=59), 6 * HOUR)
    assert refresh.due(stamp, stamp + timedelta(hours=6), 6 * HOUR)
    assert refresh.due(None, stamp, 6 * HOUR)  # no stamp: never refreshed


def test_setting() -> None:
    env = {"HOME": "/nonexistent"}
    assert Config.from_env(env).refresh is None
    assert Config.from_env({**env, "ICML_BOT_REFRESH": "daily"}).refresh == 86400
    assert Config.from_env({**env, "ICML_BOT_REFRESH": "6h"}).refresh == 6 * HOUR
    assert Config.from_env({**env, "ICML_BOT_REFRESH": "off"}).refresh is None
    with pytest.raises(ConfigError, match=r"ICML_BOT_REFRESH='10m' is too often: use off, daily or a duration"):
        Config.from_env({**env, "ICML_BOT_REFRESH": "10m"})
    with pytest.raises(ConfigError, match=r"ICML_BOT_REFRESH='weekly' is not a duration"):
        Config.from_env({**env, "ICML_BOT_REFRESH": "weekly"})


def test_a_refresh_fetches_when_due_and_logs_one_line(
    tmp_path: Path, site: FakeSite, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "papers.db"
    report = run.fetch_venues(path, [parse_venue("icml2026")], settings(tmp_path, site))
    assert report.index is not None
    first = titles(path)
    requests = len(site.requests)
    fresh = refresh.Refresher(path, 6 * HOUR, settings(tmp_path, site), clock=later(1))
    assert fresh.tick() is None  # fetched an hour ago: not due
    assert len(site.requests) == requests
    added = make_conference(posters=31)  # the site now lists one more paper
    site.conference = added
    due = refresh.Refresher(path, 6 * HOUR, settings(tmp_path, site), clock=later(7))
    with caplog.at_level(logging.INFO, logger="bot.serve.refresh"):
        outcome = due.tick()
    assert outcome is not None
    assert outcome.ok
    assert outcome.line.startswith("refreshed icml2026 in ")
    assert "1 added" in outcome.line
    assert [r.getMessage() for r in caplog.records] == [outcome.line]
    assert len(titles(path) - first) == 1


def _whole_reads(papers: Papers) -> list[str]:
    """The statements of one search that read every paper, name part, vector or acronym pair."""
    statements: list[str] = []
    papers.db.conn.set_trace_callback(statements.append)
    assert papers.search("generated paper").results
    papers.db.conn.set_trace_callback(None)
    return [s for s in statements if s in WHOLE_TABLE_READS]


def test_a_refreshed_index_is_warmed_by_the_refresher_not_by_a_search(tmp_path: Path, site: FakeSite) -> None:
    path = tmp_path / "papers.db"
    run.fetch_venues(path, [parse_venue("icml2026")], settings(tmp_path, site))
    served = Papers(path)
    served.warm().join()
    site.conference = make_conference(posters=31)
    outcome = refresh.Refresher(path, 6 * HOUR, settings(tmp_path, site), clock=later(7)).tick()
    assert outcome is not None
    assert "1 added" in outcome.line
    # The refresher read them for the new version after loading it
    assert _whole_reads(served) == []
    assert _whole_reads(served) == []


def test_a_failed_refresh_keeps_the_index(tmp_path: Path, site: FakeSite, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "papers.db"
    run.fetch_venues(path, [parse_venue("icml2026")], settings(tmp_path, site))
    before = titles(path)
    site.faults.append(Fault("orals-posters", status=500, times=99))
    with caplog.at_level(logging.INFO, logger="bot.serve.refresh"):
        outcome = refresh.Refresher(path, 6 * HOUR, settings(tmp_path, site), clock=later(7)).tick()
    assert outcome is not None
    assert not outcome.ok
    assert outcome.line.startswith("refresh of icml2026: nothing usable arrived, nothing was indexed: icml2026 site")
    assert outcome.line.endswith("; the index is unchanged")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("WARNING", outcome.line)]
    assert titles(path) == before


def test_which_venues_a_refresh_fetches(tmp_path: Path, site: FakeSite) -> None:
    path = tmp_path / "papers.db"
    assert [v.name for v in refresh.venues_to_fetch(path, Scope())] == ["icml2026"]  # no index yet
    assert [v.name for v in refresh.venues_to_fetch(path, parse_scope("icml2024, neurips2025"))] == [
        "icml2024",
        "neurips2025",
    ]
    run.fetch_venues(path, [parse_venue("icml2026")], settings(tmp_path, site))
    # What fetch loaded into the index wins over the setting.
    assert [v.name for v in refresh.venues_to_fetch(path, parse_scope("icml2024"))] == ["icml2026"]
