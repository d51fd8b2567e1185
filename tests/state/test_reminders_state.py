"""Migration 7 and the reminders' tables on both stores: an upgrade keeps what users made, an opt-in is per person
and workspace, and a reminder is claimed once whatever the number of State objects (processes) asking."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.state import State
from bot.state.migrations import MIGRATIONS
from bot.state.reminders import OptIn, Sent
from tests.support.state_sql import state_sql


def test_schema_7_adds_the_reminders_and_keeps_the_saves(
    state_target: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.state import migrations

    with monkeypatch.context() as before_7:  # a database as schema 6 left it, with a save
        before_7.setattr(migrations, "MIGRATIONS", MIGRATIONS[:6])
        before_7.setattr(migrations, "LATEST", 6)
        old = State(state_target)
        old.saves.add("T1", "U1", "p1", 10.0)
        old.close()
    state = State(state_target)
    try:
        assert state.saves.ids("T1", "U1") == {"p1"}
        assert state.reminders.everyone() == []
        state.reminders.opt_in("T1", "U1", 15, "Asia/Seoul", 20.0)
        # Again: the new minutes and zone
        state.reminders.opt_in("T1", "U1", 10, "Europe/Paris", 30.0)
        state.reminders.opt_in("T2", "U1", 5, "", 40.0)  # the same id in another workspace: its own
        assert state.reminders.of("T1", "U1") == OptIn("T1", "U1", 10, "Europe/Paris")
        assert len(state.reminders.everyone()) == 2
        assert state.reminders.opt_out("T2", "U1") is True
        assert state.reminders.opt_out("T2", "U1") is False
    finally:
        state.close()


def test_a_reminder_is_claimed_once_across_processes_and_released_only_unsent(state_target: Path | str) -> None:
    one, two = State(state_target), State(state_target)
    try:
        key = "2026-07-14T02:00Z Poster Session 1"
        assert one.reminders.claim("T1", "U1", key, 100.0, "a", 90.0) is True
        assert two.reminders.claim("T1", "U1", key, 100.0, "b", 91.0) is False
        # Someone else's: their own
        assert two.reminders.claim("T1", "U2", key, 100.0, "b", 91.0) is True
        two.reminders.release("T1", "U2", key)  # Slack said no: free again
        assert one.reminders.claim("T1", "U2", key, 100.0, "a", 92.0) is True
        one.reminders.sent("T1", "U1", key, "D1", "1.5")
        two.reminders.release("T1", "U1", key)  # a sent one is never released
        [claim] = two.reminders.claims("T1", "U1")
        assert (claim.status, claim.owner, claim.channel, claim.ts) == (Sent.SENT, "a", "D1", "1.5")
        assert one.reminders.claim("T1", "U1", key, 100.0, "a", 93.0) is False
        count = "SELECT count(*) FROM plan_reminders_sent"
        assert state_sql(one).execute(count).fetchone()[0] == 2
    finally:
        one.close()
        two.close()
