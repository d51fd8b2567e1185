"""What to do about a date's run row before posting: post, resolve an interrupted claim, or stop and say why.

A pure rule over the row and the time: bot/digest/channels.py takes the claim it decides on.
"""

from __future__ import annotations

from datetime import date
from enum import Enum

from bot.digest.model import Outcome, OutcomeStatus
from bot.state.digests import RunRow, RunStatus

# A claim without a ts this old is a crashed post (a live one ends within ~4 min)
CLAIM_STALE_SECONDS = 600
# Automatic retries of a digest Slack rejected for a passing reason (rate limit)
MAX_AUTO_ATTEMPTS = 5
UNRESOLVED = (RunStatus.CLAIMED, RunStatus.UNCERTAIN)


class Decision(Enum):
    """What `post_digest` does about a date: claim and post, resolve an interrupted claim, or stop (the rest, each
    named as the outcome it returns)."""

    # Claim the date and post (no run yet, or another attempt at a skipped or refused one)
    NEW = "new"
    # An interrupted claim: the channel history first, then post only if it is not there
    RESOLVE = "resolve"
    ALREADY = "already"  # posted
    SKIPPED = "skipped"  # recorded as skipped, and this is not a manual post
    BUSY = "busy"  # another thread or process is posting it now
    UNCERTAIN = "uncertain"  # may have been posted; too soon to look in the channel history again
    FAILED = "failed"  # Slack refused it: for good, or too soon or too often to retry by itself

    @property
    def posts(self) -> bool:
        """Whether this attempt goes on to post (NEW, RESOLVE), rather than return the run's outcome."""
        return self in (Decision.NEW, Decision.RESOLVE)

    def outcome(self, channel: str, day: date, row: RunRow) -> Outcome:
        """The outcome of stopping here: nothing changed, the run's ts and error as recorded."""
        return Outcome(OutcomeStatus(self.value), channel, day, acted=False, ts=row.ts, error=row.error)


def decide(row: RunRow | None, ts: float, manual: bool, abandoned: bool) -> Decision:
    """What to do about a date's run row at unix time `ts`; `manual` posts again what was skipped or refused, and
    `abandoned` says a claim is this process's own with no thread of it posting it (the database failed then)."""
    if row is None:
        return Decision.NEW
    age = ts - row.claimed_at
    if row.status is RunStatus.POSTED:
        return Decision.ALREADY
    if row.status is RunStatus.SKIPPED:
        return Decision.NEW if manual else Decision.SKIPPED
    if row.status is RunStatus.CLAIMED:
        # Another process's claim may still be posting until it is stale.
        return Decision.RESOLVE if abandoned or age >= CLAIM_STALE_SECONDS else Decision.BUSY
    if row.status is RunStatus.UNCERTAIN:
        return Decision.RESOLVE if manual or age >= backoff(row.attempts) else Decision.UNCERTAIN
    # failed: Slack refused it, nothing was posted
    if manual or (not row.permanent and row.attempts < MAX_AUTO_ATTEMPTS and age >= backoff(row.attempts)):
        return Decision.NEW
    return Decision.FAILED


def backoff(attempts: int) -> float:
    """Seconds to wait before automatic attempt `attempts + 1`: 2, 4, 8 … minutes, at most an hour."""
    return float(min(60 * 2 ** max(attempts, 1), 3600))
