"""When a subscription's digests fall: its cron trigger (its days at its local time, in its own zone), the next
scheduled time, and the times within a span, stepped in UTC so that a repeated local hour is neither skipped nor seen
twice."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from bot.digest.model import Subscription

LOOKBACK = timedelta(days=8)  # catch-up looks this far back for slots without a record


def trigger(sub: Subscription) -> CronTrigger:
    """The cron trigger of a subscription: its days at its local time, in its own time zone (DST-safe)."""
    return _trigger(sub.days, sub.at.hour, sub.at.minute, sub.tz)


@functools.lru_cache(maxsize=1024)
def _trigger(days: str, hour: int, minute: int, tz: ZoneInfo) -> CronTrigger:
    """One trigger per schedule, shared by every subscription that has it: building one for every subscription on
    every tick added up (docs/benchmarks.md)."""
    return CronTrigger(day_of_week=days, hour=hour, minute=minute, timezone=tz)


def next_run(sub: Subscription, after: datetime) -> datetime | None:
    """The first scheduled time at or after `after`, in the subscription's time zone."""
    fire: datetime | None = trigger(sub).get_next_fire_time(None, after)
    return fire


def runs_between(sub: Subscription, start: datetime, end: datetime) -> Iterator[datetime]:
    """Scheduled times in [start, end], oldest first."""
    cron = trigger(sub)
    fire = cron.get_next_fire_time(None, start)
    while fire is not None and fire <= end:
        yield fire
        # Step in UTC: local wall-clock arithmetic would land before a repeated time (fold) and find it again.
        after = fire.astimezone(UTC) + timedelta(seconds=1)
        following = cron.get_next_fire_time(fire, after)
        if following is not None and following.astimezone(UTC) <= fire.astimezone(UTC):
            return  # (aware times in one zone compare by wall clock, ignoring fold: compare in UTC)
        fire = following


def last_run(sub: Subscription, now: datetime) -> datetime | None:
    """The latest scheduled time at or before `now` (within a week), or None."""
    fires = list(runs_between(sub, now - LOOKBACK, now))
    return fires[-1] if fires else None
