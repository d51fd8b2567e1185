"""The state's repositories: the only code that runs SQL on the state tables, returning typed rows on both backends."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

import bot
from bot.state import State
from bot.state.digests import RunRow, RunStatus, SubscriptionRow
from bot.state.feedback import ChannelVote, Via, Vote
from bot.state.leases import Lease
from tests.support.state_sql import STATE_TABLES

# SQL naming a state table: FROM/INTO/UPDATE/JOIN/TABLE before it, as any statement on it has.
STATE_SQL = re.compile(rf"\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\s+({'|'.join(STATE_TABLES)})\b", re.IGNORECASE)
SUB = SubscriptionRow(
    channel="C0REPO0001",
    team="T1",
    enterprise="",
    topics="kv cache",
    at="09:00",
    tz="Asia/Seoul",
    days="mon-fri",
    size=3,
    source="slack",
    active=True,
    created_by="U1",
    created_at=1.5,
    updated_at=2.5,
    schedule_from=1.5,
    last_error=None,
    last_error_at=None,
)


def test_no_code_outside_bot_state_runs_sql_on_the_state() -> None:
    package = Path(bot.__file__).parent
    found = [
        f"{path.relative_to(package)}: {match.group(0)}"
        for path in sorted(package.rglob("*.py"))
        if "state" not in path.relative_to(package).parts[:1]
        for match in STATE_SQL.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []
    assert not hasattr(State, "db")  # the connection is the repositories' own


def test_a_digest_run_comes_back_typed_and_changes_only_what_is_named(state_target: Path | str) -> None:
    state = State(state_target)
    claim = RunRow("T1", "C0REPO0001", "2026-03-09", RunStatus.CLAIMED, 10.0, 10.0, papers=["p1", "p2"], total=19)
    assert state.digests.claim(claim) is True
    # One run per workspace, channel and date
    assert state.digests.claim(replace(claim, owner="another")) is False
    assert state.digests.run("C0REPO0001", "2026-03-09", "T1") == claim
    # A shared channel: each workspace its own
    assert state.digests.run("C0REPO0001", "2026-03-09", "T2") is None
    state.digests.update_run("C0REPO0001", "2026-03-09", "T1", status=RunStatus.FAILED, error="x", permanent=True)
    failed = state.digests.run("C0REPO0001", "2026-03-09", "T1")
    assert failed == replace(claim, status=RunStatus.FAILED, error="x", permanent=True)
    assert failed is not None
    assert failed.status is RunStatus.FAILED
    assert state.digests.runs(statuses=(RunStatus.CLAIMED, RunStatus.UNCERTAIN)) == []
    assert state.digests.runs("C0REPO0001", (RunStatus.FAILED,), team="T1") == [failed]
    again = replace(claim, attempts=2, claimed_at=20.0)
    state.digests.replace_run(again)
    assert state.digests.run("C0REPO0001", "2026-03-09", "T1") == again
    state.close()


@pytest.mark.parametrize("field", ["team", "day", "no_such_column", "status = 'posted' --"])
def test_a_run_change_names_only_its_fields(tmp_path: Path, field: str) -> None:
    state = State(tmp_path / "state.db")
    with pytest.raises(ValueError, match="not a changeable digest run field"):
        state.digests.update_run("C0REPO0001", "2026-03-09", "T1", **{field: "x"})


def test_a_subscription_round_trips_and_is_adopted_once(state_target: Path | str) -> None:
    state = State(state_target)
    state.digests.save_subscription(SUB)
    assert state.digests.subscription("C0REPO0001", "T1") == SUB
    orphan = replace(SUB, channel="C0REPO0002", team="")
    state.digests.save_subscription(orphan)
    state.digests.record_papers("C0REPO0002", 1, ["p1"], "2026-03-09", 3.0)
    assert state.digests.adopt("C0REPO0002", "T2") is True
    assert state.digests.adopt("C0REPO0002", "T3") is False  # adopted once, by one workspace
    assert state.digests.subscription("C0REPO0002", "T2") == replace(orphan, team="T2")
    assert state.digests.posted_ids("C0REPO0002", state.digests.current_round("C0REPO0002", "T2"), "T2") == {"p1"}
    assert [s.channel for s in state.digests.subscriptions()] == ["C0REPO0001", "C0REPO0002"]
    state.close()


def test_leases_votes_saves_and_lists_come_back_typed(state_target: Path | str) -> None:
    state = State(state_target)
    assert state.leases.acquire("digest", "A", now=100.0, ttl=90.0) is True
    assert state.leases.acquire("digest", "B", now=150.0, ttl=90.0) is False
    assert state.leases.holder("digest") == Lease("digest", "A", 100.0, 190.0)
    state.feedback.put("T1", "C1", ChannelVote("p1", Vote.MORE, "U1", Via.SAVE, 5.0))
    assert state.feedback.current("T1", "C1", "p1") == ChannelVote("p1", Vote.MORE, "U1", Via.SAVE, 5.0)
    saved, created = state.saves.add("T1", "U1", "p1", 7.0)
    assert (saved.saved_at, created) == (7.0, True)
    assert state.saves.page("T1", "U1", limit=None, offset=0) == ([saved], 1)
    added, created = state.lists.add("T1", "C1", "U2", "p1", 8.0)
    assert state.lists.remove("T1", "C1", "p1") == added
    assert state.events.first_time("Ev1", now=9.0) is True
    state.close()
