"""Migration 8 on both stores: a channel's "today at <venue>" switch and each digest run's venue, added to what
schema 7 left without changing a row; and a workspace's saves read whole, only that workspace's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.state import State
from bot.state.digests import RunRow, RunStatus
from bot.state.migrations import MIGRATIONS
from tests.state.test_repositories import SUB
from tests.support.state_sql import state_sql


def test_schema_8_adds_the_today_switch_and_the_runs_venue_and_keeps_every_row(
    state_target: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.state import migrations

    run = RunRow("T1", SUB.channel, "2026-07-14", RunStatus.POSTED, 10.0, 10.0, papers=["p1"], total=19, ts="1.5")
    # A database as schema 7 left it, with a digest and a posted run
    with monkeypatch.context() as before_8:
        before_8.setattr(migrations, "MIGRATIONS", MIGRATIONS[:7])
        before_8.setattr(migrations, "LATEST", 7)
        old = State(state_target)
        columns = ", ".join(c for c in SUB.__dataclass_fields__ if c != "today")
        values = [getattr(SUB, c) for c in SUB.__dataclass_fields__ if c != "today"]
        with old.immediate():
            state_sql(old).execute(
                f"INSERT INTO digest_subscriptions ({columns}) VALUES ({', '.join('?' * len(values))})",
                [int(v) if isinstance(v, bool) else v for v in values],
            )
            state_sql(old).execute(
                "INSERT INTO digest_runs (team, channel, day, status, papers, total, claimed_at, first_claimed_at, ts) "
                "VALUES ('T1', ?, '2026-07-14', 'posted', '[\"p1\"]', 19, 10, 10, '1.5')",
                [SUB.channel],
            )
        old.close()
    state = State(state_target)
    try:
        # today off, everything else as it was
        assert state.digests.subscription(SUB.channel, SUB.team) == SUB
        # venue "": the round's digest
        assert state.digests.run(SUB.channel, "2026-07-14", "T1") == run
        state.digests.save_subscription(replace(SUB, today=True))
        assert state.digests.subscription(SUB.channel, SUB.team) == replace(SUB, today=True)
        today = replace(run, day="2026-07-15", status=RunStatus.CLAIMED, ts=None, venue="icml2026")
        assert state.digests.claim(today) is True
        assert state.digests.run(SUB.channel, "2026-07-15", "T1") == today
    finally:
        state.close()


def test_a_workspaces_saves_are_read_whole_and_only_its_own(state_target: Path | str) -> None:
    state = State(state_target)
    try:
        for team, user, paper in (("T1", "U1", "p1"), ("T1", "U2", "p1"), ("T1", "U2", "p2"), ("T2", "U1", "p3")):
            state.saves.add(team, user, paper, 1.0)
        assert sorted(state.saves.of_team("T1")) == [("U1", "p1"), ("U2", "p1"), ("U2", "p2")]
        assert state.saves.of_team("T3") == []
    finally:
        state.close()
