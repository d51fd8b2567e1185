"""APScheduler wiring for the daily digest: one cron job per subscription in its own time zone, a lease so that one
process per state database schedules, and catch-up from the digest log. The only code that reads the clock.

Every serve process runs a BackgroundScheduler with a `tick` job (every 30 s): it takes or renews the lease row in
the state database; the holder adds, changes and removes the cron jobs to match the subscriptions, settles digests
whose posting was interrupted and posts a digest it missed (bot down at the time) within ICML_DIGEST_GRACE. Jobs
live in a MemoryJobStore: what was posted is in the state database, so nothing is lost when the process stops.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler

from bot.digest.channels import ChannelDigests
from bot.digest.model import Outcome, Subscription
from bot.digest.schedules import LOOKBACK, runs_between, trigger
from bot.state import ERRORS, is_locked, is_unreachable
from bot.state.digests import RunStatus

log = logging.getLogger(__name__)

LEASE = "digest-scheduler"
# A crashed owner's lease runs out after this; the tick renews it three times as often
LEASE_TTL = 90.0
TICK_SECONDS = 30.0
JOB_PREFIX = "digest:"
# due digests the catch-up posts at once (each waits mostly on Slack and the state database)
CATCH_UP_THREADS = 4


def utcnow() -> datetime:
    """The current time (UTC, aware): the one place the bot reads the clock."""
    return datetime.now(UTC)


def job_key(sub: Subscription) -> str:
    """A digest's name among the jobs: its channel, and its workspace when it has one (a shared channel has two)."""
    return f"{sub.channel}@{sub.team}" if sub.team else sub.channel


def run_within(timeout: float, work: Callable[[], object]) -> bool:
    """Run `work` in a helper thread and wait at most `timeout` s; True if it finished in time."""
    thread = threading.Thread(target=work, name="icml-bot-stop", daemon=True)
    thread.start()
    thread.join(timeout)
    return not thread.is_alive()


def _log_failure(what: str, exc: Exception) -> None:
    """A locked or unreachable state database is one line (it passes); anything else gets its traceback."""
    if is_locked(exc):
        log.warning("%s: the state database is locked by another writer (%s)", what, exc)
    elif is_unreachable(exc):
        log.warning("%s: the state database cannot be reached (%s); retried at the next check", what, exc)
    else:
        log.exception("%s", what)


def duration(seconds: float) -> str:
    """`6h`, `1h 30m`, `45m`: a short human duration."""
    minutes = int(seconds // 60)
    hours, minutes = divmod(minutes, 60)
    return " ".join(p for p in (f"{hours}h" if hours else "", f"{minutes}m" if minutes or not hours else "") if p)


class DigestScheduler:
    """Posts each subscription's digest at its time; only the lease holder among processes on one state database."""

    def __init__(
        self,
        digests: ChannelDigests,
        *,
        clock: Callable[[], datetime] = utcnow,
        owner: str | None = None,
        tick_seconds: float = TICK_SECONDS,
        lease_ttl: float = LEASE_TTL,
    ) -> None:
        self.digests = digests
        self.state = digests.state
        self.clock = clock
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.tick_seconds = tick_seconds
        self.lease_ttl = lease_ttl
        self.is_owner = False
        self.stopping = False
        self._announced: bool | None = None
        self._signatures: dict[str, tuple[Any, ...]] = {}
        self._lock = threading.RLock()
        # Held while our code calls into APScheduler's job store. Its shutdown(wait=True) holds the job store's lock
        # while it waits for running jobs, so a tick that reached for that lock then would wait forever: shutdown
        # sets `stopping` under this lock, and nothing touches the job store once it is set.
        self._jobs_lock = threading.Lock()
        self.scheduler = BackgroundScheduler(
            timezone=UTC,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": max(int(digests.grace), 1)},
        )

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Take the lease if free, add the jobs, and start the background thread (catch-up runs at once there)."""
        self.take_lease(self.clock())
        self.scheduler.add_job(
            self.tick,
            "interval",
            seconds=self.tick_seconds,
            id="digest-tick",
            name="digest lease and catch-up",
            next_run_time=utcnow(),
            misfire_grace_time=None,
        )
        self.scheduler.start()

    def shutdown(self, timeout: float = 0.0) -> bool:
        """Run nothing new, wait up to `timeout` s for a digest being posted, and hand the lease back at once.

        Returns False when a post was still running at the deadline: its claim stays in the state database, so no
        process posts that digest again before it has looked in the channel history.
        """
        # Waits for a sync under way, a moment: it only adds and removes jobs in memory
        with self._jobs_lock:
            self.stopping = True
        finished = True
        if self.scheduler.running:
            if timeout > 0:
                finished = run_within(timeout, lambda: self.scheduler.shutdown(wait=True))
            else:
                self.scheduler.shutdown(wait=False)
        with self._lock:
            if self.is_owner:
                try:
                    self.state.leases.release(LEASE, self.owner)
                except ERRORS as exc:  # it runs out by itself within LEASE_TTL
                    log.warning(
                        "could not hand back the digest lease (%s); another process takes over within %ds",
                        exc,
                        self.lease_ttl,
                    )
                self.is_owner = False
        return finished

    # ------------------------------------------------------------------ the lease

    def take_lease(self, now: datetime) -> bool:
        """Take or renew the schedule lease; add or drop the cron jobs when that changes. True while we hold it."""
        with self._lock:
            held = self.state.leases.acquire(LEASE, self.owner, now.timestamp(), self.lease_ttl)
            if held != self._announced:
                if held:
                    log.info(
                        "this process (%s) schedules the daily digests for %s (%d channels)",
                        self.owner,
                        self.state.path,
                        len(self.digests.subscriptions.active()),
                    )
                else:
                    lease = self.state.leases.holder(LEASE)
                    log.info(
                        "another icml-bot process (%s) schedules the daily digests for %s: this one answers "
                        "commands but posts no scheduled digests (it takes over if that process stops for "
                        "%ds)",
                        lease.owner if lease else "?",
                        self.state.path,
                        self.lease_ttl,
                    )
                self._announced = held
            self.is_owner = held
            self.sync()
            return held

    # ------------------------------------------------------------------ jobs

    def sync(self) -> None:
        """Make the cron jobs match the active subscriptions (none unless we hold the lease); nothing once stopping."""
        with self._lock:
            subs = {JOB_PREFIX + job_key(s): s for s in self.digests.subscriptions.active()} if self.is_owner else {}
            with self._jobs_lock:
                if not self.stopping:
                    self._match_jobs(subs)

    def _match_jobs(self, subs: dict[str, Subscription]) -> None:
        """Add, change and remove APScheduler's cron jobs to match `subs` (job id → subscription)."""
        for job in self.scheduler.get_jobs():
            if job.id.startswith(JOB_PREFIX) and job.id not in subs:
                job.remove()
                self._signatures.pop(job.id, None)
                log.info("removed the digest job for %s", job.id[len(JOB_PREFIX) :])
        for job_id, sub in subs.items():
            signature = (sub.at, sub.tz.key, sub.days)
            existing = self.scheduler.get_job(job_id)
            if self._signatures.get(job_id) == signature and existing is not None:
                continue
            # (replace_existing does not replace jobs added before start())
            if existing is not None:
                existing.remove()
            self.scheduler.add_job(
                self.fire,
                trigger(sub),
                args=[sub.channel, sub.team],
                id=job_id,
                name=f"digest {job_key(sub)} {sub.when()}",
                replace_existing=True,
            )
            self._signatures[job_id] = signature
            log.info("digest for %s scheduled %s", job_key(sub), sub.when())

    def jobs(self) -> dict[str, datetime | None]:
        """Channel (`channel@team` with many workspaces) → next run time of its cron job (for status and tests)."""
        return {
            j.id[len(JOB_PREFIX) :]: getattr(j, "next_run_time", None)
            for j in self.scheduler.get_jobs()
            if j.id.startswith(JOB_PREFIX)
        }

    def tick(self) -> None:
        """The interval job: keep the lease, then settle interrupted digests and catch up on missed ones."""
        if self.stopping:
            return
        now = self.clock()
        try:
            if not self.take_lease(now):
                return
        except ERRORS as exc:
            if is_unreachable(exc):
                log.warning(
                    "the state database %s cannot be reached (%s): digests wait for the next check in %ds",
                    self.state.path,
                    " ".join(str(exc).split()),
                    self.tick_seconds,
                )
                return
            if not is_locked(exc):
                raise
            log.warning(
                "the state database %s is locked by another writer (%s): digests wait for the next check in %ds",
                self.state.path,
                exc,
                self.tick_seconds,
            )
            return
        try:
            self.digests.resolve_pending(now)
        except Exception as exc:  # one broken row must not stop the catch-up below
            _log_failure("settling interrupted digests failed", exc)
        self.catch_up(now)

    def fire(self, channel: str, team: str = "") -> Outcome | None:
        """The cron job of one channel's digest (its failure is logged here and touches no other digest)."""
        if self.stopping:
            return None
        try:
            return self.run_due(channel, self.clock(), team)
        except Exception as exc:
            _log_failure(
                f"the digest for {channel} failed; the next check retries it within {self.tick_seconds:.0f}s", exc
            )
            return None

    def catch_up(self, now: datetime) -> list[Outcome]:
        """Run every subscription's due digest (each channel on its own: one failing never blocks another).

        Every tick runs it over every subscription, so what it asks of the state is one read of the recent runs, not
        queries per channel: only a channel whose digest is due, or whose missed date has no record, costs more. Due
        digests go out CATCH_UP_THREADS at a time: after a take-over the rest of a morning's fan-out goes this way,
        and one post Slack answers slowly or with a 5xx (checked in the history first) must not hold up the others."""
        now_utc = now.astimezone(UTC)
        recorded = self.state.digests.recorded_since((now_utc - LOOKBACK - timedelta(days=1)).date().isoformat())
        # Per schedule: its times in the look-back window
        slots: dict[tuple[Any, ...], list[datetime]] = {}
        due = []
        for sub in self.digests.subscriptions.active():
            schedule = (sub.at, sub.tz.key, sub.days)
            if schedule not in slots:
                slots[schedule] = list(runs_between(sub, now_utc - LOOKBACK, now_utc))
            mine = [slot for slot in slots[schedule] if slot.timestamp() >= sub.schedule_from]
            if self._due(sub, mine, now_utc, recorded):
                due.append(sub)
        outcomes: list[Outcome] = []
        if not due:
            return outcomes
        renewed = time.monotonic()
        with ThreadPoolExecutor(CATCH_UP_THREADS, thread_name_prefix="digest-catch-up") as pool:
            running: set[Future[Outcome | None]] = set()
            for sub in due:
                if self.stopping:
                    break
                if len(running) >= CATCH_UP_THREADS:
                    finished, running = wait(running, return_when=FIRST_COMPLETED)
                    outcomes += [o for f in finished if (o := f.result()) is not None and o.acted]
                try:
                    # Slow posts must not let the lease run out
                    if time.monotonic() - renewed >= self.lease_ttl / 3:
                        if not self.state.leases.acquire(LEASE, self.owner, self.clock().timestamp(), self.lease_ttl):
                            # It ran out all the same and another process took over: it carries on
                            break
                        renewed = time.monotonic()
                except Exception as exc:
                    _log_failure(f"the digest for {sub.channel} failed; the next check retries it", exc)
                    continue
                running.add(pool.submit(self._run_caught_up, sub, now))
            outcomes += [o for f in wait(running).done if (o := f.result()) is not None and o.acted]
        return outcomes

    def _run_caught_up(self, sub: Subscription, now: datetime) -> Outcome | None:
        """One due digest of the catch-up (its failure is logged here and touches no other digest)."""
        if self.stopping:
            return None
        try:
            return self.run_due(sub.channel, now, sub.team)
        except Exception as exc:
            _log_failure(f"the digest for {sub.channel} failed; the next check retries it", exc)
            return None

    def _due(
        self, sub: Subscription, slots: list[datetime], now: datetime, recorded: dict[tuple[str, str, str], RunStatus]
    ) -> bool:
        """Whether run_due has anything to do for `sub` (its scheduled times `slots`), by the runs read in one go:
        the latest time within the grace has no posted or skipped digest, or an earlier one has no record."""
        for n, slot in enumerate(slots, 1):
            status = recorded.get((sub.team, sub.channel, slot.astimezone(sub.tz).date().isoformat()))
            if n == len(slots) and (now - slot).total_seconds() <= self.digests.grace:
                return status not in (RunStatus.POSTED, RunStatus.SKIPPED)
            if status is None:
                return True
        return False

    def run_due(self, channel: str, now: datetime, team: str = "") -> Outcome | None:
        """Post the digest of the latest scheduled time within the grace window; record missed dates as skipped."""
        sub = self.digests.subscriptions.subscription(channel, team)
        if sub is None or not sub.active:
            return None
        now = now.astimezone(UTC)  # arithmetic across a repeated local hour is only right in UTC
        start = max(now - LOOKBACK, datetime.fromtimestamp(sub.schedule_from, UTC))
        slots = list(runs_between(sub, start, now))
        for n, slot in enumerate(slots, 1):
            day = slot.astimezone(sub.tz).date()
            late = (now - slot).total_seconds()
            row = self.state.digests.run(channel, day.isoformat(), team)
            if n == len(slots) and late <= self.digests.grace:
                if row is not None and row.status in (RunStatus.POSTED, RunStatus.SKIPPED):
                    return None
                return self.digests.post_digest(channel, day, now, team=team)
            # Missed: the bot was down, or a later digest is due now (one digest, not a backlog)
            if row is None:
                local = slot.astimezone(sub.tz)
                reason = (
                    f"the bot was not running at {local:%H:%M %Z} and came back {duration(late)} later, "
                    f"beyond ICML_DIGEST_GRACE ({duration(self.digests.grace)})"
                )
                if n < len(slots) and (now - slots[-1]).total_seconds() <= self.digests.grace:
                    reason = f"the bot was not running at {local:%H:%M %Z}; the digest of a later date went out"
                self.digests.skip(channel, day, now, reason, team)
        return None
