"""The state database upgrades in place and keeps every row; a database from a newer release is refused untouched."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot import cli
from bot.digest.channels import ChannelDigests
from bot.state import State, StateUnavailable
from bot.state.migrations import LATEST
from tests.support.paths import ROOT

FIXTURE = ROOT / "tests" / "state" / "fixtures" / "state_0.1.0.sql"
TABLES = ("seen_events", "digest_subscriptions", "digest_runs", "digest_papers", "leases")


def _restore(path: Path) -> Path:
    """The 0.1.0 database, rebuilt from its SQL dump."""
    conn = sqlite3.connect(path)
    conn.executescript(FIXTURE.read_text(encoding="utf-8"))
    conn.close()
    return path


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}
    finally:
        conn.close()


def test_a_release_0_1_database_opens_with_every_row_kept(tmp_path: Path, seed_index_path: Path) -> None:
    path = _restore(tmp_path / "state.db")
    before = _rows(path)
    assert {t: len(r) for t, r in before.items()} == {
        "seen_events": 2,
        "digest_subscriptions": 2,
        "digest_runs": 4,
        "digest_papers": 9,
        "leases": 1,
    }
    state = State(path)
    assert state.db.execute("PRAGMA user_version").fetchone()[0] == LATEST
    assert _rows(path) == before
    digests = ChannelDigests(state, seed_index_path)
    sub = digests.subscription("C0123456789")
    assert sub is not None
    assert (sub.topics, sub.tz.key, sub.days, sub.size) == ("kv cache", "Asia/Seoul", "mon-fri", 3)
    assert digests.subscription("C0ABCDEFGHI").active is False  # type: ignore[union-attr]
    # What 0.1.0 posted still counts: the next digest goes on with the round, without repeats.
    shown = {row[2] for row in before["digest_papers"] if row[0] == "C0123456789"}
    planned = digests.plan("C0123456789", date(2026, 3, 12))
    assert planned.first == 7
    assert not shown & set(planned.paper_ids)
    assert state.first_time("Ev0001", now=datetime(2026, 3, 9, tzinfo=UTC).timestamp()) is False
    state.close()
    # Opening again is a no-op.
    assert State(path).db.execute("PRAGMA user_version").fetchone()[0] == LATEST


def test_a_database_from_a_newer_release_is_refused_and_not_modified(tmp_path: Path) -> None:
    path = _restore(tmp_path / "state.db")
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    conn.close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StateUnavailable, match=f"newer icml-bot \\(schema {LATEST + 1}; this release knows up to"):
        State(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_the_cli_names_the_newer_database_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = _restore(tmp_path / "state.db")
    conn = sqlite3.connect(state)
    conn.execute(f"PRAGMA user_version = {LATEST + 5}")
    conn.close()
    env_args = ["--db", str(tmp_path / "papers.db"), "digest", "--channel", "C0123456789", "--dry-run"]
    monkeypatch.setenv("ICML_BOT_STATE", str(state))
    assert cli.main(env_args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"icml-bot: error: the state database {state} was written by a newer icml-bot")
    assert "Traceback" not in "\n".join(err)
