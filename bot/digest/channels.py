"""Posting a channel's digest for a date, and the record of what was posted: at most one digest per channel and date.

Knows nothing of Slack: a digest goes out through a `Poster` (bot/slack/digest_post.py in production, a fake in
tests), and time comes in as arguments; the scheduler is the only code that reads the clock.

Exactly once, in four steps:
1. claim: in one BEGIN IMMEDIATE transaction, insert the (channel, date) run row with the papers building.py chose,
   or find the row another thread, process or earlier run already wrote and stop there (decisions.py says which);
2. post the message (it carries a marker: metadata `icml_digest` with the channel and date);
3. record the message ts and mark the papers as shown, in one transaction;
4. when step 2 may or may not have reached Slack (timeout, dropped connection, 5xx), or the process died between
   1 and 3, look for the marker in the channel history before posting again; if the history cannot be read, post
   nothing and say so (a missing digest is better than a second one).
"""

from __future__ import annotations

import logging
import threading
import time as _time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from bot.config import DEFAULT_DIGEST_GRACE, Config
from bot.digest.building import DigestBuilder
from bot.digest.decisions import UNRESOLVED, Decision, decide
from bot.digest.model import (
    Digest,
    HistoryUnavailable,
    NextRun,
    Outcome,
    OutcomeStatus,
    Poster,
    PostRejected,
    PostUncertain,
)
from bot.digest.subscriptions import Subscriptions
from bot.search.reader import Papers
from bot.state import State
from bot.state.digests import RunRow, RunStatus

log = logging.getLogger(__name__)

# After an uncertain post, give Slack this long before reading the channel history
SETTLE_SECONDS = 5.0
MAX_POST_TRIES = 2  # posts of one digest in one call, each after a history check found nothing


class ChannelDigests:
    """Posts every channel's digests exactly once and keeps their log; safe to share between threads.

    Handed what it needs, as an httpx Client its transport: the builder of each date's digest (with the
    subscriptions it reads) and the poster; `of` makes the builder from the state, the papers and the config."""

    def __init__(
        self,
        state: State,
        builder: DigestBuilder,
        poster: Poster | None = None,
        *,
        grace: float = DEFAULT_DIGEST_GRACE,
        owner: str | None = None,
        sleep: Callable[[float], None] = _time.sleep,
        settle: float = SETTLE_SECONDS,
    ) -> None:
        self.state = state
        self.builder = builder
        self.subscriptions = builder.subscriptions
        self.poster = poster
        self.grace = float(grace)
        self.owner = owner or f"{uuid.uuid4().hex[:8]}"
        self.sleep = sleep
        self.settle = settle
        # set at shutdown: no new claims, and an uncertain post is not retried
        self.stopping = threading.Event()
        # (team, channel, date) this process is posting now
        self._in_flight: set[tuple[str, str, str]] = set()

    @classmethod
    def of(
        cls,
        state: State,
        papers: Papers,
        poster: Poster | None = None,
        *,
        config: Config | None = None,
        next_run: NextRun | None = None,
        settle: float = SETTLE_SECONDS,
    ) -> ChannelDigests:
        """Digests on `state` and `papers` with the subscriptions and builder made here (ICML_DIGEST_* from `config`,
        the defaults without one): for tests, benches and tools; bot/wiring.py hands the parts in."""
        builder = DigestBuilder(state, papers, Subscriptions(state, config), next_run)
        grace = config.digest_grace if config else DEFAULT_DIGEST_GRACE
        return cls(state, builder, poster, grace=grace, settle=settle)

    def recorded(self, channel: str, day: date, team: str = "") -> bool:
        """Whether workspace `team`'s digest in `channel` has a record for `day` (posted, claimed, failed, skipped)."""
        return self.state.digests.run(channel, day.isoformat(), team) is not None

    # ------------------------------------------------------------------ posting, exactly once

    def post_digest(self, channel: str, day: date, now: datetime, manual: bool = False, team: str = "") -> Outcome:
        """Post workspace `team`'s digest in `channel` for `day` unless it is there; `manual` also redoes a skipped or
        refused one."""
        if self.poster is None:
            raise RuntimeError("ChannelDigests was built without a poster; it can plan digests but not post them")
        ts, key = now.timestamp(), day.isoformat()
        if self.stopping.is_set():
            return Outcome(
                OutcomeStatus.STOPPING,
                channel,
                day,
                acted=False,
                error="the bot is shutting down; try again when it is back",
            )
        # What the paper index says (its whole order, a search for the topics: the costly part of choosing, shared
        # by channels with the same topics) is read before taking the state's write lock, which every writer of
        # every process waits for: a fan-out of many digests would otherwise hold it most of the time.
        sub = self.subscriptions.subscription(channel, team)
        self.builder.paper_order(sub.topics if sub is not None else "")
        flight, flying = (team, channel, key), False
        try:
            with self.state.immediate():
                claimed = self._claim(channel, day, team, ts, manual)
                if isinstance(claimed, Outcome):
                    return claimed
                # Before the claim commits: this process's other threads wait for it
                self._in_flight.add(flight)
                flying = True
        except BaseException:
            if flying:
                self._in_flight.discard(flight)
            raise
        digest = claimed.digest
        try:
            if claimed.row is not None and claimed.resolve:
                return self._resolve(digest, claimed.row, ts, claimed.since, manual)
            return self._send(digest, ts, claimed.since)
        except (Exception, KeyboardInterrupt, SystemExit) as exc:
            # This attempt is over (Ctrl-C, SIGTERM, a bug, a locked database) but the post may have reached Slack:
            # "uncertain" makes the next attempt look in the channel history first, without waiting for the claim
            # to go stale. (A process killed outright leaves its claim, which goes stale in 10 minutes; when the
            # database itself failed, so that not even "uncertain" could be written, this process settles its claim
            # at its next attempt.)
            self._abandon(digest, ts, exc)
            raise
        finally:
            self._in_flight.discard(flight)

    def _claim(self, channel: str, day: date, team: str, ts: float, manual: bool) -> Outcome | _Claimed:
        """Inside the write transaction: what to do about the date's run, and the claim (or the take-over of an
        interrupted claim, to resolve it); an Outcome when there is nothing to post."""
        key = day.isoformat()
        row = self.state.digests.run(channel, key, team)
        # This process's own claim, when no thread of it is posting it, is an attempt that ended without a record.
        abandoned = row is not None and row.owner == self.owner and (team, channel, key) not in self._in_flight
        decision = decide(row, ts, manual, abandoned)
        if not decision.posts:
            assert row is not None
            return decision.outcome(channel, day, row)
        if decision is Decision.RESOLVE:
            assert row is not None
            self.state.digests.update_run(
                channel,
                key,
                team,
                status=RunStatus.CLAIMED,
                owner=self.owner,
                claimed_at=ts,
                attempts=row.attempts + 1,
            )
            return _Claimed(self.builder.from_run(row), row, row.first_claimed_at, resolve=True)
        digest = self.builder.plan(channel, day, team)
        if not digest.papers:
            return Outcome(OutcomeStatus.EMPTY, channel, day, acted=False)
        since = ts if row is None else row.first_claimed_at
        claim = RunRow(
            team,
            channel,
            key,
            RunStatus.CLAIMED,
            claimed_at=ts,
            first_claimed_at=since,
            papers=digest.paper_ids,
            round=digest.round,
            first=digest.first,
            total=digest.total,
            owner=self.owner,
            attempts=1 if row is None else row.attempts + 1,
            venue=digest.today.venue if digest.today else "",
        )
        if row is None:
            self.state.digests.claim(claim)
        else:
            # A new attempt: what the failed or skipped one said goes
            self.state.digests.replace_run(claim)
        return _Claimed(digest, row, since, resolve=False)

    def _resolve(self, digest: Digest, row: RunRow, ts: float, since: float, manual: bool) -> Outcome:
        """A claim that never got a ts: the channel history says whether it was posted; post it if not."""
        age = ts - row.claimed_at
        if row.status is RunStatus.UNCERTAIN and 0 <= age < self.settle:
            # A post abandoned a moment ago may still be on its way into the channel
            self.sleep(self.settle - age)
        try:
            found = self.poster.find(digest.channel, digest.day, since, digest.team)  # type: ignore[union-attr]
        except HistoryUnavailable as exc:
            return self._uncertain(digest, ts, f"cannot read the channel history ({exc.error})")
        if found:
            return self._posted(digest, found, ts, recovered=True)
        if not manual and ts - since > self.grace:
            return self._skip_claimed(
                digest,
                ts,
                "the bot stopped while posting it and it is not in the channel history; too late to post it now",
            )
        sub = self.subscriptions.subscription(digest.channel, digest.team)
        if not manual and sub is not None and not sub.active:
            return self._skip_claimed(digest, ts, "the channel unsubscribed before it could be posted")
        return self._send(digest, ts, since)

    def _abandon(self, digest: Digest, ts: float, exc: BaseException) -> None:
        """Mark a claimed digest uncertain after its attempt was interrupted (best effort: the claim stays else)."""
        try:
            row = self.state.digests.run(digest.channel, digest.day.isoformat(), digest.team)
            if row is not None and row.status is RunStatus.CLAIMED and row.owner == self.owner:
                self._uncertain(digest, ts, f"interrupted while posting ({type(exc).__name__})")
        # e.g. the state database is what failed: the claim goes stale in 10 minutes
        except Exception as inner:
            log.error(
                "could not record that the %s digest for %s was interrupted (%s); the bot checks the channel "
                "history before posting it again",
                digest.day,
                digest.channel,
                inner,
            )

    def _send(self, digest: Digest, ts: float, since: float) -> Outcome:
        assert self.poster is not None
        error = ""
        for _ in range(MAX_POST_TRIES):
            try:
                posted = self.poster.post(digest)
            except PostRejected as exc:
                return self._failed(digest, ts, exc.error, exc.permanent)
            except PostUncertain as exc:
                error = exc.error
                # Shutting down: the next start checks the history, not this process
                if self.stopping.is_set():
                    return self._uncertain(digest, ts, error)
                log.warning(
                    "posting the %s digest to %s may have failed (%s); checking the channel history before "
                    "trying again",
                    digest.day,
                    digest.channel,
                    error,
                )
                self.sleep(self.settle)
                try:
                    found = self.poster.find(digest.channel, digest.day, since, digest.team)
                except HistoryUnavailable as hist:
                    return self._uncertain(digest, ts, f"{error}; cannot read the channel history ({hist.error})")
                if found:
                    return self._posted(digest, found, ts, recovered=True)
                continue
            return self._posted(digest, posted, ts)
        return self._uncertain(digest, ts, error)

    def _posted(self, digest: Digest, message_ts: str, ts: float, recovered: bool = False) -> Outcome:
        with self.state.immediate():
            self.state.digests.update_run(
                digest.channel,
                digest.day.isoformat(),
                digest.team,
                status=RunStatus.POSTED,
                ts=message_ts,
                posted_at=ts,
                error=None,
                permanent=False,
            )
            # A "today" digest is not part of the round: the round goes on after it
            if digest.today is None:
                self.state.digests.record_papers(
                    digest.channel, digest.round, digest.paper_ids, digest.day.isoformat(), ts, digest.team
                )
            # What went wrong before is settled
            self.state.digests.set_error(digest.channel, None, None, digest.team)
        outcome = Outcome(
            OutcomeStatus.POSTED, digest.channel, digest.day, ts=message_ts, digest=digest, recovered=recovered
        )
        log.info("%s", outcome.describe())
        return outcome

    def _failed(self, digest: Digest, ts: float, error: str, permanent: bool) -> Outcome:
        outcome = self._unposted(digest, ts, RunStatus.FAILED, error, permanent=permanent)
        log.error("%s%s", outcome.describe(), "" if permanent else " (will retry)")
        return outcome

    def _uncertain(self, digest: Digest, ts: float, error: str) -> Outcome:
        outcome = self._unposted(digest, ts, RunStatus.UNCERTAIN, error, claimed_at=ts)
        log.error("%s", outcome.describe())
        return outcome

    def _skip_claimed(self, digest: Digest, ts: float, reason: str) -> Outcome:
        outcome = self._unposted(digest, ts, RunStatus.SKIPPED, reason)
        log.warning("%s", outcome.describe())
        return outcome

    def _unposted(self, digest: Digest, ts: float, status: RunStatus, error: str, **fields: Any) -> Outcome:
        """Record a claimed digest as not posted (failed, uncertain or skipped) and why, on its run and its channel."""
        with self.state.immediate():
            self.state.digests.update_run(
                digest.channel, digest.day.isoformat(), digest.team, status=status, error=error, **fields
            )
            self.state.digests.set_error(digest.channel, error, ts, digest.team)
        # A skipped outcome carries no digest
        kept = digest if status is not RunStatus.SKIPPED else None
        return Outcome(OutcomeStatus(status.value), digest.channel, digest.day, error=error, digest=kept)

    def skip(self, channel: str, day: date, now: datetime, reason: str, team: str = "") -> bool:
        """Record that `channel` gets no digest for `day` (e.g. the bot was down); False if the day has a record."""
        ts = now.timestamp()
        with self.state.immediate():
            recorded = self.state.digests.claim(
                RunRow(
                    team,
                    channel,
                    day.isoformat(),
                    RunStatus.SKIPPED,
                    claimed_at=ts,
                    first_claimed_at=ts,
                    papers=[],
                    owner=self.owner,
                    attempts=0,
                    error=reason,
                )
            )
            if recorded:
                self.state.digests.set_error(channel, f"skipped the {day.isoformat()} digest: {reason}", ts, team)
        if recorded:
            log.warning("skipped the digest for %s on %s: %s", channel, day.isoformat(), reason)
        return recorded

    def resolve_pending(self, now: datetime) -> list[Outcome]:
        """Settle digests whose posting was interrupted (claimed long ago, or uncertain): history first, then post."""
        outcomes = []
        for row in self.state.digests.runs(statuses=UNRESOLVED):
            outcome = self.post_digest(row.channel, date.fromisoformat(row.day), now, team=row.team)
            if outcome.acted:
                outcomes.append(outcome)
        return outcomes


@dataclass(frozen=True)
class _Claimed:
    """A date claimed in the write transaction: the digest to post, the run row found before (None: a new one), since
    when the date was first claimed, and whether it is an interrupted claim to resolve (history first)."""

    digest: Digest
    row: RunRow | None
    since: float
    resolve: bool
