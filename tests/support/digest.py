"""Helpers for the digest tests: a settable clock shared with the fake Slack, and digests wired to the fake."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from bot.config import Config
from bot.digest import schedules
from bot.digest.channels import ChannelDigests
from bot.digest.service import DigestService
from bot.digest.subscriptions import Settings
from bot.search.reader import Papers
from bot.slack.digest_post import SlackPoster
from bot.state import State
from tests.support.fake_slack import FakeSlack

MON = date(2026, 3, 9)  # a Monday


@dataclass
class Clock:
    """A clock the test moves by hand; the fake Slack stamps messages with it too."""

    now: datetime = field(default_factory=lambda: datetime(2026, 3, 9, 0, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def timestamp(self) -> float:
        """Unix time, for FakeSlack(clock=...)."""
        return self.now.timestamp()

    def set(self, when: datetime) -> datetime:
        """Move to `when` and return it."""
        self.now = when
        return when

    def advance(self, **delta: float) -> datetime:
        """Move forward by timedelta(**delta)."""
        self.now += timedelta(**delta)
        return self.now


def config(index_path: Path, state_path: Path | str, **overrides: Any) -> Config:
    """A Config for digests (tests never read the environment); `state_path` may be a postgresql:// URL."""
    where = dict(state_url=state_path, state_path=index_path.with_name("state.db"))
    if isinstance(state_path, Path):
        where = dict(state_path=state_path)
    values: dict[str, Any] = dict(db_path=index_path, **where, bot_token="xoxb-test")
    values.update(overrides)
    return Config(**values)


def make_digests(
    fake: FakeSlack | None,
    index_path: Path,
    state_path: Path | str,
    timeout: float = 30,
    settle: float = 0.0,
    **overrides: Any,
) -> ChannelDigests:
    """ChannelDigests on a state file or URL (a new State, like a new process), posting through WebClient to `fake`."""
    # WebClient hands the timeout to urllib, which takes fractions of a second (the benches use 0.5 s).
    poster = SlackPoster(fake.web_client(), timeout=cast(int, timeout)) if fake is not None else None
    settings = config(index_path, state_path, **overrides)
    return ChannelDigests.of(
        State(state_path),
        Papers(index_path, settings.venues),
        poster,
        config=settings,
        next_run=schedules.next_run,
        settle=settle,
    )


def service(digests: ChannelDigests, clock: Callable[[], datetime]) -> DigestService:
    """A DigestService over `digests` (their subscriptions, builder, state's leases) on `clock`, as wiring hands it."""
    return DigestService(digests.subscriptions, digests.builder, digests, digests.state.leases, clock=clock)


def digest_ids(post: dict[str, Any]) -> list[str]:
    """The paper ids of a posted digest, from its metadata."""
    return list(post["metadata"]["event_payload"]["papers"])


def due_now(state_path: Path | str, index_path: Path, channel: str) -> str:
    """Subscribe `channel` as of two days ago at the minute before now (so a starting serve posts it at once);
    the date that digest is for."""
    now = datetime.now(UTC)
    at = (now - timedelta(minutes=1)).time().replace(second=0, microsecond=0)
    state = State(state_path)
    ChannelDigests.of(state, Papers(index_path)).subscriptions.subscribe(
        channel, now - timedelta(days=2), Settings(at=at, days="mon-sun")
    )
    state.close()
    return (now - timedelta(minutes=1)).date().isoformat()
