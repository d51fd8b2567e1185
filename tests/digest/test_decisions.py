"""What post_digest does about a date's run row: the pure rule of bot/digest/decisions.py, times passed in."""

from __future__ import annotations

from datetime import date

import pytest

from bot.digest.decisions import CLAIM_STALE_SECONDS, MAX_AUTO_ATTEMPTS, Decision, backoff, decide
from bot.digest.model import OutcomeStatus
from bot.state.digests import RunRow, RunStatus

T0 = 1_773_000_000.0


def row(status: RunStatus, attempts: int = 1, permanent: bool = False) -> RunRow:
    return RunRow(
        "T1", "C0123456789", "2026-03-09", status, T0, T0, ["p1"], attempts=attempts, permanent=permanent, ts="1.2"
    )


@pytest.mark.parametrize(
    ("run", "after", "manual", "expected"),
    [
        (None, 0, False, Decision.NEW),
        (row(RunStatus.POSTED), 0, True, Decision.ALREADY),  # never twice, even by hand
        (row(RunStatus.SKIPPED), 0, False, Decision.SKIPPED),
        (row(RunStatus.SKIPPED), 0, True, Decision.NEW),  # `/icml digest now` posts a skipped day
        # Another process may be posting
        (row(RunStatus.CLAIMED), CLAIM_STALE_SECONDS - 1, True, Decision.BUSY),
        # A crashed post: history first
        (row(RunStatus.CLAIMED), CLAIM_STALE_SECONDS, False, Decision.RESOLVE),
        (row(RunStatus.UNCERTAIN, attempts=1), backoff(1) - 1, False, Decision.UNCERTAIN),
        (row(RunStatus.UNCERTAIN, attempts=1), backoff(1), False, Decision.RESOLVE),
        (row(RunStatus.UNCERTAIN, attempts=1), 0, True, Decision.RESOLVE),
        (row(RunStatus.FAILED, attempts=2), backoff(2) - 1, False, Decision.FAILED),
        # A passing refusal, retried
        (row(RunStatus.FAILED, attempts=2), backoff(2), False, Decision.NEW),
        # Retried enough
        (row(RunStatus.FAILED, attempts=MAX_AUTO_ATTEMPTS), 3600, False, Decision.FAILED),
        # Retrying cannot help
        (row(RunStatus.FAILED, permanent=True), 3600, False, Decision.FAILED),
        (row(RunStatus.FAILED, permanent=True), 0, True, Decision.NEW),
    ],
)
def test_a_run_row_decides_what_post_digest_does(
    run: RunRow | None, after: float, manual: bool, expected: Decision
) -> None:
    assert decide(run, T0 + after, manual, abandoned=False) is expected


def test_a_claim_of_this_process_that_no_thread_is_posting_is_resolved_at_once() -> None:
    assert decide(row(RunStatus.CLAIMED), T0 + 1, False, abandoned=True) is Decision.RESOLVE


def test_stopping_returns_the_run_as_recorded_and_changes_nothing() -> None:
    failed = RunRow("T1", "C0123456789", "2026-03-09", RunStatus.FAILED, T0, T0, [], error="not_in_channel")
    outcome = decide(failed, T0, False, abandoned=False).outcome("C0123456789", date(2026, 3, 9), failed)
    assert not Decision.FAILED.posts
    assert Decision.RESOLVE.posts
    assert (outcome.status, outcome.acted, outcome.error) == ("failed", False, "not_in_channel")
    assert "not posted: not_in_channel" in outcome.describe()


def test_automatic_retries_wait_longer_each_time_up_to_an_hour() -> None:
    assert [backoff(n) for n in (0, 1, 2, 3, 10)] == [120.0, 120.0, 240.0, 480.0, 3600.0]


def test_every_outcome_a_decision_or_a_run_stops_with_has_a_status() -> None:
    """Decision.outcome and an unposted run name their OutcomeStatus by value: a word missing there would raise."""
    stops = [d for d in Decision if not d.posts]
    unposted = [RunStatus.FAILED, RunStatus.UNCERTAIN, RunStatus.SKIPPED]
    assert [OutcomeStatus(d.value) for d in stops] == [
        OutcomeStatus.ALREADY,
        OutcomeStatus.SKIPPED,
        OutcomeStatus.BUSY,
        OutcomeStatus.UNCERTAIN,
        OutcomeStatus.FAILED,
    ]
    assert [OutcomeStatus(s.value) for s in unposted] == [
        OutcomeStatus.FAILED,
        OutcomeStatus.UNCERTAIN,
        OutcomeStatus.SKIPPED,
    ]
