"""ICML_BOT_REFRESH as `icml-bot serve` runs it: each serving process's Runtime starts the refresher and stops it."""

from __future__ import annotations

import time
from pathlib import Path

from bot.papers import fetching as run
from bot.papers import index
from bot.papers.venues import parse_venue
from bot.serve import refresh
from bot.serve.runtime import Runtime
from tests.support.conference_fakes import FakeSite, make_conference, serve
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import slack_config


def stamp(path: Path) -> str:
    db = index.connect(path, readonly=True)
    try:
        return str(db.execute("SELECT value FROM meta WHERE key = 'last_indexed'").fetchone()[0])
    finally:
        db.conn.close()


def test_serve_refreshes_a_stale_index_and_stops_refreshing(fake: FakeSlack, tmp_path: Path) -> None:
    path = tmp_path / "papers.db"
    with serve(FakeSite(make_conference(), page_size=10)) as site:
        assert run.fetch_venues(path, [parse_venue("icml2026")], run.Settings(tmp_path / "cache", site.url)).index
        db = index.connect(path)
        # 11 months old
        db.execute("UPDATE meta SET value = '2026-01-01T00:00:00Z' WHERE key = 'last_indexed'")
        db.conn.commit()
        db.conn.close()
        site.conference = make_conference(posters=31)
        config = slack_config(
            fake, path, tmp_path / "state.db", refresh=6 * 3600, site_url=site.url, cache_dir=tmp_path / "cache"
        )
        runtime = Runtime.start(config)
        try:
            assert runtime.refresher is not None
            deadline = time.monotonic() + 60
            while not runtime.refresher.outcomes and time.monotonic() < deadline:
                # Waiting for the refresher thread's first outcome, not for a time to pass
                time.sleep(0.05)
            [outcome] = runtime.refresher.outcomes
            assert outcome.ok, outcome.line
            assert outcome.line.startswith("refreshed icml2026 in ")
        finally:
            runtime.stop()
        assert runtime.refresher.stopping.is_set()
        assert stamp(path) > "2026-01-01T00:00:00Z"
    assert refresh.start(slack_config(fake, path, tmp_path / "state.db")) is None  # off by default
