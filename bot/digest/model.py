"""What a digest is: a channel's subscription, one day's digest, the outcome of posting it, and where it goes."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import date, datetime, time, tzinfo
from enum import StrEnum
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.config import DAY_NAMES, DEFAULT_DIGEST_SIZE, DEFAULT_DIGEST_TIME, ConfigError, default, parse_days, parse_time
from bot.papers.row import PaperRow
from bot.state.digests import RunRow, SubscriptionRow, SubscriptionSource
from bot.team.plan import Session

CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{6,}$")
MARKER = "icml_digest"  # metadata event_type and block_id prefix that identify a posted digest
ALL_TOPICS = ("all", "everything", "none", "-")  # `/icml digest subscribe all` clears the topics


def validate_channel(value: str, var: str = "ICML_DIGEST_CHANNEL") -> str:
    """A Slack channel id (C…, G… or D…), or ConfigError naming the bad value."""
    channel = value.strip()
    if not CHANNEL_ID.match(channel):
        raise ConfigError(
            f"{var}={value!r} is not a channel id: use the id like C0123456789 (in Slack: channel "
            "name → View channel details → the id at the bottom of the About tab), not its name"
        )
    return channel


def days_to_cron(days: frozenset[int] | set[int]) -> str:
    """Weekday numbers (Monday = 0) to cron day-of-week text with ranges: {0..4} → `mon-fri`."""
    runs: list[list[int]] = []
    for d in sorted(days):
        if runs and d == runs[-1][-1] + 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    return ",".join(DAY_NAMES[r[0]] if len(r) == 1 else f"{DAY_NAMES[r[0]]}-{DAY_NAMES[r[-1]]}" for r in runs)


def normalize_days(text: str, var: str = "days") -> str:
    """Validate cron day-of-week text and write it the canonical way (`Mon,Tue,Wed` → `mon-wed`)."""
    return days_to_cron(parse_days(text, var))


@dataclass(frozen=True)
class Subscription:
    """One channel's daily digest: when (local time, zone, days), how many papers, and which topics go first."""

    channel: str
    at: time = DEFAULT_DIGEST_TIME
    tz: ZoneInfo = field(default_factory=lambda: ZoneInfo(default("ICML_DIGEST_TZ")))
    days: str = default("ICML_DIGEST_DAYS")
    size: int = DEFAULT_DIGEST_SIZE
    topics: str = ""
    source: SubscriptionSource = SubscriptionSource.SLACK
    active: bool = True
    created_by: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    schedule_from: float = 0.0
    last_error: str | None = None
    last_error_at: float | None = None
    # The Slack workspace (many-workspace mode: whose bot token posts it); "" for the single one
    team: str = ""
    # Its Enterprise Grid org, if any (an org-wide install holds the bot token)
    enterprise: str = ""
    # During a venue's dates: "today at <venue>" instead of the round (/icml digest today on)
    today: bool = False

    @classmethod
    def from_row(cls, row: SubscriptionRow) -> Subscription:
        """A subscription from its state-database row (time, zone and source parsed; every other field as stored)."""
        stored = {f.name: getattr(row, f.name) for f in fields(row)}
        parsed = {"at": parse_time(row.at, "at"), "tz": ZoneInfo(row.tz), "source": SubscriptionSource(row.source)}
        return cls(**{**stored, **parsed})

    def to_row(self) -> SubscriptionRow:
        """The state-database row (time, zone and source as text)."""
        kept = {f.name: getattr(self, f.name) for f in fields(SubscriptionRow)}
        as_text = {"at": self.at.strftime("%H:%M"), "tz": self.tz.key, "source": self.source.value}
        return SubscriptionRow(**{**kept, **as_text})

    def when(self) -> str:
        """Its schedule in words: `mon-fri at 09:00 Asia/Seoul`."""
        return f"{self.days} at {self.at:%H:%M} {self.tz.key}"


@dataclass(frozen=True)
class Today:
    """What a "today at <venue>" digest holds: the team's saved and listed papers in the day's sessions, then the day's
    orals on the channel's topics, each part in time order (times read in the channel's zone `tz`)."""

    venue: str
    tz: tzinfo
    sessions: tuple[Session, ...]  # the team's papers, by session
    # Oral sessions with talks on the topics that are not the team's already
    orals: tuple[Session, ...]
    more: int = 0  # the team's papers today beyond what one message holds

    @property
    def team_papers(self) -> int:
        """How many distinct papers of the team are shown."""
        return len({p.paper_id for s in self.sessions for p in s.items})

    @property
    def oral_papers(self) -> int:
        """How many distinct orals on the topics are shown."""
        return len({p.paper_id for s in self.orals for p in s.items})


@dataclass(frozen=True)
class Digest:
    """One day's digest for one channel: the papers and where they stand in the channel's round."""

    channel: str
    day: date
    papers: list[PaperRow]
    first: int  # number of the first paper within the round, from 1
    total: int  # papers in a round (the whole index)
    round: int
    round_done: bool  # this digest shows the last papers of the round
    topics: str = ""
    topic_ids: frozenset[str] = frozenset()  # which of these papers matched the topics
    next_at: datetime | None = None  # the channel's next digest, for the footer
    # By paper: authors the topics named (author:, a person)
    named: dict[str, list[str]] = field(default_factory=dict)
    # The workspace it is for (a shared channel gets one digest per workspace that subscribed)
    team: str = ""
    # set for a "today at <venue>" digest (papers: its papers, in the order shown)
    today: Today | None = None

    @property
    def paper_ids(self) -> list[str]:
        """The ids of the papers, in order."""
        return [str(p["id"]) for p in self.papers]

    @property
    def last(self) -> int:
        """Number of the last paper within the round."""
        return self.first + len(self.papers) - 1


@dataclass(frozen=True)
class DigestStatus:
    """A channel's digest at a glance, for `/icml digest status`."""

    channel: str
    subscription: Subscription | None
    next_at: datetime | None
    last: RunRow | None  # the latest posted run
    pending: list[RunRow]  # runs that failed or are unresolved
    left: int  # papers not yet shown in the current round
    total: int
    round: int
    error: tuple[str, datetime] | None  # the last error, when nothing was posted since


class OutcomeStatus(StrEnum):
    """What one post attempt did or found; a run's RunStatus (bot/state/digests.py) and a Decision
    (bot/digest/decisions.py) use the same words where they meet."""

    POSTED = "posted"
    ALREADY = "already"
    BUSY = "busy"
    FAILED = "failed"
    UNCERTAIN = "uncertain"
    SKIPPED = "skipped"
    EMPTY = "empty"
    STOPPING = "stopping"


@dataclass(frozen=True)
class Outcome:
    """What one `post_digest` call did or found: posted, already, busy, failed, uncertain, skipped, empty, stopping."""

    status: OutcomeStatus
    channel: str
    day: date
    # False when the call changed nothing (already posted, another process busy, waiting)
    acted: bool = True
    ts: str | None = None
    error: str | None = None
    digest: Digest | None = None
    recovered: bool = False  # the ts came from the channel history, not from the post's answer

    def describe(self) -> str:
        """One line for logs and replies."""
        what = {
            OutcomeStatus.POSTED: "found in the channel history (posted before a crash or timeout)"
            if self.recovered
            else f"posted (ts {self.ts})",
            OutcomeStatus.ALREADY: f"already posted (ts {self.ts})",
            OutcomeStatus.BUSY: "being posted by another thread or process right now",
            OutcomeStatus.FAILED: f"not posted: {self.error}",
            OutcomeStatus.UNCERTAIN: f"may or may not have been posted: {self.error}; will check the channel history "
            "again",
            OutcomeStatus.SKIPPED: f"skipped: {self.error}",
            OutcomeStatus.EMPTY: "not posted: the paper index is empty",
            OutcomeStatus.STOPPING: "not posted: the bot is shutting down",
        }[self.status]
        return f"digest for {self.channel} on {self.day.isoformat()} {what}"


class PostRejected(Exception):
    """Slack did not take the message (nothing was posted); `permanent` when retrying cannot help."""

    def __init__(self, error: str, permanent: bool = True) -> None:
        super().__init__(error)
        self.error = error
        self.permanent = permanent


class PostUncertain(Exception):
    """The post may or may not have reached the channel (timeout, dropped connection, server error)."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


class HistoryUnavailable(Exception):
    """The channel history could not be read, so whether a digest is there is unknown."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


class Poster(Protocol):
    """Where digests go: posts one and finds one already posted (by its marker) in a channel's history."""

    def post(self, digest: Digest) -> str:
        """Post and return the message ts; raise PostRejected or PostUncertain."""
        ...

    def find(self, channel: str, day: date, since: float, team: str = "") -> str | None:
        """The ts of workspace `team`'s digest for `day` posted after unix time `since`, or None; raise
        HistoryUnavailable."""
        ...


NextRun = Callable[[Subscription, datetime], "datetime | None"]
