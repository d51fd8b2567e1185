"""The digest service of one process: the channels' digests, the scheduler if this process runs it, and the clock."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from bot.digest import scheduler as sched
from bot.digest import schedules
from bot.digest.building import DigestBuilder
from bot.digest.channels import ChannelDigests
from bot.digest.model import Subscription
from bot.digest.subscriptions import Subscriptions
from bot.state.leases import Leases

log = logging.getLogger(__name__)


@dataclass
class DigestService:
    """The digests of one process, handed what it needs (as Bolt's OAuthFlow is handed its InstallationStore): the
    subscriptions, the builder, the poster of every channel's digests, the scheduling lease; then this process's
    scheduler (None if it has none), the clock, and a small pool for posts started by a command."""

    subscriptions: Subscriptions
    builder: DigestBuilder
    digests: ChannelDigests  # posting, exactly once
    leases: Leases  # who schedules (the state database's lease rows)
    # ICML_DIGEST_TAKEOVER: a crashed scheduler's lease runs out after this
    takeover: float = sched.LEASE_TTL
    scheduler: sched.DigestScheduler | None = None
    clock: Callable[[], datetime] = sched.utcnow
    pool: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(2, thread_name_prefix="digest-now"))

    def start_scheduler(self) -> sched.DigestScheduler:
        """Make ICML_DIGEST_CHANNEL a subscription and start scheduling (if no other process on this state db is)."""
        self.subscriptions.ensure_config_subscription(self.clock())
        self.scheduler = sched.DigestScheduler(
            self.digests, clock=self.clock, lease_ttl=self.takeover, tick_seconds=self.takeover / 3
        )
        self.scheduler.start()
        return self.scheduler

    def stop(self, timeout: float = 0.0) -> bool:
        """Stop posting: nothing new starts, a digest being posted gets up to `timeout` s, the lease is handed back.

        Returns False when a post was still running at the deadline (its claim keeps it from being posted twice).
        """
        self.digests.stopping.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
        finished = True
        if self.scheduler is not None:
            finished = self.scheduler.shutdown(timeout)
        if timeout > 0:
            finished = sched.run_within(timeout, lambda: self.pool.shutdown(wait=True)) and finished
        return finished

    def changed(self) -> None:
        """A subscription changed: update this process's jobs now (another scheduling process syncs on its tick)."""
        if self.scheduler is not None:
            self.scheduler.sync()

    def next_slot(self, sub: Subscription, now: datetime) -> datetime | None:
        """The next scheduled time whose date has no digest yet (`now` may have posted today's early)."""
        after = now
        for _ in range(14):
            at = schedules.next_run(sub, after)
            if at is None or not self.digests.recorded(sub.channel, at.astimezone(sub.tz).date(), sub.team):
                return at
            # UTC: a repeated local time must not loop
            after = at.astimezone(UTC) + timedelta(seconds=1)
        return None

    def scheduling(self, now: datetime) -> str:
        """Which process schedules the digests, in words users may see: which one it is (host, pid) only in the log."""
        if self.scheduler is not None and self.scheduler.is_owner:
            return "Scheduled by this icml-bot process."
        lease = self.leases.holder(sched.LEASE)
        if lease and lease.expires_at > now.timestamp():
            log.info("Scheduled by icml-bot process %s.", lease.owner)  # (for the operator)
            return "Scheduled by another icml-bot process."
        return "No icml-bot process is scheduling digests right now: is `icml-bot serve` running?"

    def today(self, sub: Subscription | None, now: datetime) -> date:
        """The date in the channel's zone (the default zone when it has no subscription)."""
        tz = sub.tz if sub is not None else self.subscriptions.defaults("").tz
        return now.astimezone(tz).date()
