"""Which channels get a digest, when and on what: subscribing, changing, stopping, and ICML_DIGEST_CHANNEL.

A change travels as one `Settings`; what it leaves None stays as it was (or the ICML_DIGEST_* default when new).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime, time
from zoneinfo import ZoneInfo

from bot.config import Config
from bot.digest.model import ALL_TOPICS, Subscription, days_to_cron, normalize_days, validate_channel
from bot.state import State
from bot.state.digests import SubscriptionSource

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settings:
    """What a subscribe sets: each field None (or empty) keeps what the digest had, or the default when it is new.

    `topics` "all" (or "everything", "none", "-") clears them; `enterprise` is the workspace's Enterprise Grid org,
    whose org-wide install may hold its token; `source` is CONFIG for ICML_DIGEST_CHANNEL."""

    topics: str | None = None
    at: time | None = None
    tz: ZoneInfo | None = None
    days: str | None = None
    size: int | None = None
    source: SubscriptionSource = SubscriptionSource.SLACK
    enterprise: str | None = None


class Subscriptions:
    """Every channel's digest subscription, in the state database; safe to share between threads."""

    def __init__(self, state: State, config: Config | None = None) -> None:
        self.state = state
        self.config = config

    @property
    def per_workspace(self) -> bool:
        """Whether digests belong to workspaces (many installed through OAuth), not to the one workspace ("")."""
        return bool(self.config and self.config.many_workspaces)

    def defaults(self, channel: str, team: str = "") -> Subscription:
        """What a new subscription gets when nothing is given: the ICML_DIGEST_* settings."""
        c = self.config
        if c is None:
            return Subscription(channel, team=team)
        return Subscription(
            channel, at=c.digest_time, tz=c.digest_tz, days=days_to_cron(c.digest_days), size=c.digest_size, team=team
        )

    def subscription(self, channel: str, team: str = "") -> Subscription | None:
        """Workspace `team`'s subscription in a channel (also an inactive one), or None."""
        row = self.state.digests.subscription(channel, team)
        return Subscription.from_row(row) if row else None

    def current(self, channel: str, team: str = "") -> Subscription:
        """Workspace `team`'s subscription in a channel, or the defaults when it has none."""
        return self.subscription(channel, team) or self.defaults(channel, team)

    def adopt(self, channel: str, team: str) -> bool:
        """Give a channel's digest made without a workspace (before many workspaces, or by ICML_DIGEST_CHANNEL) to
        workspace `team`, with its rounds and votes (`/icml digest adopt`; with one workspace, any digest command);
        False when none was left."""
        adopted = self.state.digests.adopt(channel, team)
        if adopted:
            log.info("the digest of %s without a workspace now belongs to workspace %s", channel, team)
        return adopted

    def active(self, team: str | None = None) -> list[Subscription]:
        """Every active subscription, or workspace `team`'s: with one workspace, those made before workspaces were
        recorded (team "") are its too; with many, they are nobody's until a workspace adopts them."""
        if team is None:
            return [Subscription.from_row(r) for r in self.state.digests.subscriptions()]
        teams = [team] if self.per_workspace or not team else [team, ""]
        return [Subscription.from_row(r) for r in self.state.digests.subscriptions(teams=teams)]

    def subscribe(
        self, channel: str, now: datetime, settings: Settings = Settings(), *, user: str = "", team: str = ""
    ) -> Subscription:
        """Create or change workspace `team`'s digest in a channel as `settings` say (`user` made it, if new)."""
        validate_channel(channel, "channel")
        ts = now.timestamp()
        with self.state.immediate():
            old = self.subscription(channel, team)
            base = old or replace(self.defaults(channel, team), created_by=user, created_at=ts, schedule_from=ts)
            sub = replace(_changed(base, settings), active=True, updated_at=ts)
            schedule = (sub.at, sub.tz.key, sub.days)
            if old is None or not old.active or schedule != (old.at, old.tz.key, old.days):
                sub = replace(sub, schedule_from=ts)  # no catch-up for slots of the old schedule
            self.state.digests.save_subscription(sub.to_row())
        return sub

    def unsubscribe(self, channel: str, now: datetime, team: str = "") -> bool:
        """Stop workspace `team`'s digest in a channel; False if it had none. Its rounds are kept for a re-subscribe."""
        with self.state.immediate():
            sub = self.subscription(channel, team)
            if sub is None or not sub.active:
                return False
            self.state.digests.save_subscription(replace(sub, active=False, updated_at=now.timestamp()).to_row())
        return True

    def set_today(self, channel: str, on: bool, now: datetime, team: str = "") -> Subscription | None:
        """Switch workspace `team`'s digest in a channel to "today at <venue>" on a venue's days (or back); None when
        the channel has no active digest."""
        with self.state.immediate():
            sub = self.subscription(channel, team)
            if sub is None or not sub.active:
                return None
            sub = replace(sub, today=on, updated_at=now.timestamp())
            self.state.digests.save_subscription(sub.to_row())
        return sub

    def ensure_config_subscription(self, now: datetime) -> Subscription | None:
        """Make ICML_DIGEST_CHANNEL a subscription; Slack's changes to it and an unsubscribe there win over config."""
        if self.config is None:
            return None
        wanted = self.config.digest_channel
        for sub in self.active():
            if sub.source is SubscriptionSource.CONFIG and sub.channel != wanted:
                log.info("ICML_DIGEST_CHANNEL no longer names %s: its daily digest stops", sub.channel)
                self.unsubscribe(sub.channel, now, sub.team)
        if not wanted:
            return None
        channel = validate_channel(wanted)
        # (its row may have been adopted by a workspace since: it is the same digest, whichever workspace owns it)
        rows = self.state.digests.subscriptions(channel, active=False)
        subs = [Subscription.from_row(r) for r in rows]
        owned = [s for s in subs if s.source is SubscriptionSource.CONFIG] or [s for s in subs if not s.team]
        old = owned[0] if owned else None
        if old is not None and old.source is SubscriptionSource.SLACK:
            log.info(
                "ICML_DIGEST_CHANNEL %s has settings from /icml digest subscribe (%s); they win over "
                "ICML_DIGEST_TIME/TZ/DAYS/SIZE",
                channel,
                old.when(),
            )
            return old if old.active else None
        if old is not None and not old.active:
            log.warning(
                "ICML_DIGEST_CHANNEL %s was unsubscribed with /icml digest unsubscribe: no digest there "
                "until someone runs /icml digest subscribe in it",
                channel,
            )
            return None
        d = self.defaults(channel)
        wanted_settings = Settings(
            old.topics if old else "", d.at, d.tz, d.days, d.size, source=SubscriptionSource.CONFIG
        )
        return self.subscribe(channel, now, wanted_settings, user="config", team=old.team if old else "")


def _changed(sub: Subscription, settings: Settings) -> Subscription:
    """`sub` with what `settings` give (topics written canonically, "all" clearing them; days normalized)."""
    topics = settings.topics
    if topics is not None and topics.strip().lower() in ALL_TOPICS:
        topics = ""
    return replace(
        sub,
        topics=sub.topics if topics is None else " ".join(topics.split()),
        at=settings.at or sub.at,
        tz=settings.tz or sub.tz,
        days=normalize_days(settings.days) if settings.days else sub.days,
        size=settings.size or sub.size,
        source=settings.source,
        enterprise=sub.enterprise if settings.enterprise is None else settings.enterprise,
    )
