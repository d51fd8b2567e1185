"""The state database upgrades in place and keeps every row; a database from a newer release is refused untouched."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot import cli
from bot.digest.channels import ChannelDigests
from bot.search.reader import Papers
from bot.state import State, StateUnavailable
from bot.state.migrations import LATEST, MIGRATIONS
from tests.support.paths import ROOT
from tests.support.state_sql import state_sql

FIXTURE = ROOT / "tests" / "state" / "fixtures" / "state_0.1.0.sql"
TABLES = ("seen_events", "digest_subscriptions", "digest_runs", "digest_papers", "leases")
TEAM_TABLES = ("team_saves", "channel_list", "digest_feedback")  # migration 2


def _restore(path: Path) -> Path:
    """The 0.1.0 database, rebuilt from its SQL dump."""
    conn = sqlite3.connect(path)
    conn.executescript(FIXTURE.read_text(encoding="utf-8"))
    conn.close()
    return path


def _rows(path: Path, columns: dict[str, list[str]]) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the 0.1.0 tables, in the 0.1.0 columns (later migrations may add columns, never change these)."""
    conn = sqlite3.connect(path)
    try:
        return {
            t: sorted(conn.execute(f"SELECT {', '.join(columns[t])} FROM {t}").fetchall(), key=repr) for t in TABLES
        }
    finally:
        conn.close()


def _columns(path: Path) -> dict[str, list[str]]:
    conn = sqlite3.connect(path)
    try:
        return {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in TABLES}
    finally:
        conn.close()


def test_a_release_0_1_database_opens_with_every_row_kept(tmp_path: Path, seed_index_path: Path) -> None:
    path = _restore(tmp_path / "state.db")
    columns = _columns(path)
    before = _rows(path, columns)
    assert {t: len(r) for t, r in before.items()} == {
        "seen_events": 2,
        "digest_subscriptions": 2,
        "digest_runs": 4,
        "digest_papers": 11,
        "leases": 1,
    }
    state = State(path)
    db = state_sql(state)
    assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST
    assert _rows(path, columns) == before
    assert {t: db[t].count for t in TEAM_TABLES} == {"team_saves": 0, "channel_list": 0, "digest_feedback": 0}
    digests = ChannelDigests.of(state, Papers(seed_index_path))
    sub = digests.subscriptions.subscription("C0123456789")
    assert sub is not None
    assert (sub.topics, sub.tz.key, sub.days, sub.size) == ("kv cache", "Asia/Seoul", "mon-fri", 3)
    assert sub.team == ""  # rows made before many workspaces belong to the single workspace
    stopped = digests.subscriptions.subscription("C0ABCDEFGHI")
    assert stopped is not None
    assert stopped.active is False
    # What 0.1.0 posted still counts: the next digest goes on with the round, without repeats.
    shown = {row[2] for row in before["digest_papers"] if row[0] == "C0123456789"}
    planned = digests.builder.plan("C0123456789", date(2026, 3, 12))
    assert planned.first == 7
    assert not shown & set(planned.paper_ids)
    assert state.events.first_time("Ev0001", now=datetime(2026, 3, 9, tzinfo=UTC).timestamp()) is False
    state.close()
    # Opening again is a no-op.
    assert state_sql(State(path)).execute("PRAGMA user_version").fetchone()[0] == LATEST


def test_a_schema_1_database_gains_the_team_tables_and_keeps_its_rows(tmp_path: Path) -> None:
    import sqlite_utils

    path = tmp_path / "state.db"
    db = sqlite_utils.Database(path)
    MIGRATIONS[0].apply(db)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO seen_events (event_id, seen_at) VALUES ('Ev1', 1.5)")
    db.conn.commit()
    db.conn.close()
    state = State(path)
    db = state_sql(state)
    assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST
    assert db.execute("SELECT * FROM seen_events").fetchall() == [("Ev1", 1.5)]
    assert set(TEAM_TABLES) <= set(db.table_names())
    db.execute("INSERT INTO team_saves (team, user, paper_id, saved_at) VALUES ('T1', 'U1', 'p1', 2.0)")
    with pytest.raises(sqlite3.IntegrityError):  # one save per team, user and paper
        db.execute("INSERT INTO team_saves (team, user, paper_id, saved_at) VALUES ('T1', 'U1', 'p1', 3.0)")
    with pytest.raises(sqlite3.IntegrityError):  # a vote is +1 or -1
        db.execute(
            "INSERT INTO digest_feedback (team, channel, paper_id, vote, user, at) "
            "VALUES ('T1', 'C1', 'p1', 2, 'U1', 1)"
        )


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


def test_schema_4_keys_every_digest_row_by_workspace_and_keeps_every_row(
    state_target: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.state import migrations

    with monkeypatch.context() as before_4:  # a database as schema 3 left it
        before_4.setattr(migrations, "MIGRATIONS", MIGRATIONS[:3])
        before_4.setattr(migrations, "LATEST", 3)
        old = State(state_target)
        sub = "INSERT INTO digest_subscriptions (channel, team, at, tz, days, size, source, created_at, updated_at, "
        sub += "schedule_from, topics) VALUES (?, ?, '09:00', 'UTC', 'mon-fri', 3, 'slack', 1, 2, 3, ?)"
        state_sql(old).execute(sub, ["C1", "T2", "kv cache"])
        state_sql(old).execute(sub, ["C2", "", "grokking"])  # made before many workspaces
        run = "INSERT INTO digest_runs (channel, day, status, papers, claimed_at, first_claimed_at, ts) "
        run += "VALUES (?, '2026-03-09', 'posted', '[\"p1\"]', 4, 4, '1.5')"
        for channel in ("C1", "C2", "C9"):  # C9: a run whose subscription is gone
            state_sql(old).execute(run, [channel])
            state_sql(old).execute(
                "INSERT INTO digest_papers (channel, round, paper_id, day, posted_at) "
                "VALUES (?, 1, 'p1', '2026-03-09', 5)",
                [channel],
            )
        old.close()  # (both backends' connections commit each statement)
    state = State(state_target)
    subs = {(r.team, r.channel): r.topics for r in state.digests.subscriptions(active=False)}
    assert subs == {("T2", "C1"): "kv cache", ("", "C2"): "grokking"}
    runs = {(r.team, r.channel): (r.status, r.papers, r.ts) for r in state.digests.runs()}
    assert runs == {(t, c): ("posted", ["p1"], "1.5") for t, c in (("T2", "C1"), ("", "C2"), ("", "C9"))}
    assert state.digests.posted_ids("C1", 1, "T2") == {"p1"}
    # Another workspace's digest there starts afresh
    assert state.digests.posted_ids("C1", 1, "T3") == set()
    sub = "INSERT INTO digest_subscriptions (channel, team, at, tz, days, size, source, created_at, updated_at, "
    sub += "schedule_from) VALUES ('C1', 'T3', '09:00', 'UTC', 'mon-fri', 3, 'slack', 1, 2, 3)"
    state_sql(state).execute(sub)  # a second workspace in the same (shared) channel: its own row
    assert len(state.digests.subscriptions("C1")) == 2
    state.close()


def test_schema_6_starts_each_workspaces_paper_history_from_its_saves_and_lists(
    state_target: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.state import migrations
    from bot.team import history

    with monkeypatch.context() as before_6:  # a database as schema 5 left it, with saves and a list
        before_6.setattr(migrations, "MIGRATIONS", MIGRATIONS[:5])
        before_6.setattr(migrations, "LATEST", 5)
        old = State(state_target)
        for team, user, paper, at in (("T2", "U1", "p1", 10.0), ("T2", "U2", "p1", 20.0), ("T3", "U1", "p1", 30.0)):
            state_sql(old).execute(
                'INSERT INTO team_saves (team, "user", paper_id, saved_at) VALUES (?, ?, ?, ?)', [team, user, paper, at]
            )
        state_sql(old).execute(
            "INSERT INTO channel_list (team, channel, paper_id, added_by, added_at) "
            "VALUES ('T2', 'C0NLP', 'p1', 'U3', 5)"
        )
        old.close()
    state = State(state_target)
    assert history.memory(state, "T2", "p1") == history.PaperMemory("p1", ("U1", "U2"), ("C0NLP",))
    assert history.memory(state, "T3", "p1") == history.PaperMemory("p1", ("U1",))
    assert state.saves.count("T2", "U1") == 1  # the saves themselves are kept as they were
    state.close()
