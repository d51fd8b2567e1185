"""The digest tables: each channel's subscription, the log of its runs (one per workspace, channel and date), and the
papers it was shown per round. Keyed by (team, channel) since migration 4: a shared channel has a digest per
workspace; team "" is the single workspace (or a digest not yet adopted by one)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from bot.state.repository import Repository, marks


class SubscriptionSource(StrEnum):
    """Who made a digest subscription (digest_subscriptions.source)."""

    CONFIG = "config"  # ICML_DIGEST_CHANNEL: the settings own it, and a change of channel moves it
    SLACK = "slack"  # /icml digest subscribe


class RunStatus(StrEnum):
    """Where one digest run stands (digest_runs.status); bot/digest/decisions.py and channels.py hold the rules."""

    CLAIMED = "claimed"  # a process chose its papers and is posting it
    POSTED = "posted"  # in the channel, with its message ts
    FAILED = "failed"  # Slack refused it: nothing was posted
    # The post may or may not have reached Slack: the channel history decides
    UNCERTAIN = "uncertain"
    SKIPPED = "skipped"  # not posted on purpose (too late, unsubscribed)


@dataclass(frozen=True)
class SubscriptionRow:
    """One digest_subscriptions row, as stored (bot/digest/model.py's Subscription parses it)."""

    channel: str
    team: str
    enterprise: str
    topics: str
    at: str  # HH:MM local time
    tz: str  # IANA name
    days: str  # cron day-of-week, e.g. mon-fri
    size: int
    source: str  # a SubscriptionSource's value
    active: bool
    created_by: str
    created_at: float
    updated_at: float
    schedule_from: float
    last_error: str | None
    last_error_at: float | None
    # During a venue's dates, "today at <venue>" instead of the round (migration 8)
    today: bool = False


@dataclass(frozen=True)
class RunRow:
    """One digest_runs row: a workspace's digest in a channel on a date (defaults: the table's own)."""

    team: str
    channel: str
    day: str  # YYYY-MM-DD
    status: RunStatus
    claimed_at: float
    first_claimed_at: float
    papers: list[str]  # the ids this digest holds, fixed when it is claimed
    round: int = 1
    first: int = 0
    total: int = 0
    owner: str = ""
    attempts: int = 1
    ts: str | None = None
    posted_at: float | None = None
    error: str | None = None
    permanent: bool = False
    venue: str = ""  # a "today at <venue>" digest's venue; "" for the round's digest (migration 8)


_SUBSCRIPTION_COLUMNS = tuple(f.name for f in fields(SubscriptionRow))
_RUN_COLUMNS = tuple(f.name for f in fields(RunRow))
_RUN_KEY = ("team", "channel", "day")


def _subscription(row: dict[str, Any]) -> SubscriptionRow:
    return SubscriptionRow(
        **{
            **row,
            "topics": row["topics"] or "",
            "created_by": row["created_by"] or "",
            "active": bool(row["active"]),
            "today": bool(row["today"]),
        }
    )


def _run(row: dict[str, Any]) -> RunRow:
    return RunRow(
        **{
            **row,
            "status": RunStatus(row["status"]),
            "papers": json.loads(row["papers"]),
            "permanent": bool(row["permanent"]),
        }
    )


def _stored(value: object) -> object:
    """A field as the column holds it: papers as JSON, flags as 0/1, statuses as their word."""
    if isinstance(value, list):
        return json.dumps(value)
    if isinstance(value, bool):
        return int(value)
    return str(value) if isinstance(value, StrEnum) else value


class Digests(Repository):
    """Subscriptions, runs and shown papers; bot/digest owns the rules (exactly once, rounds, adoption)."""

    # ------------------------------------------------------------------ subscriptions

    def subscription(self, channel: str, team: str = "") -> SubscriptionRow | None:
        """Workspace `team`'s subscription in a channel (active or not), or None."""
        row = self._one("SELECT * FROM digest_subscriptions WHERE team = ? AND channel = ?", [team, channel])
        return _subscription(row) if row else None

    def subscriptions(
        self, channel: str | None = None, active: bool = True, teams: Sequence[str] | None = None
    ) -> list[SubscriptionRow]:
        """Every active subscription, or every one of a channel (any workspace) or of some workspaces, by channel and
        workspace."""
        where, params = (["active = 1"] if active else []), []
        if channel is not None:
            where.append("channel = ?")
            params.append(channel)
        if teams is not None:
            where.append(f"team IN ({marks(teams)})")
            params += teams
        sql = "SELECT * FROM digest_subscriptions" + (" WHERE " + " AND ".join(where) if where else "")
        return [_subscription(row) for row in self._all(sql + " ORDER BY channel, team", params)]

    def save_subscription(self, row: SubscriptionRow) -> None:
        """Insert or replace a subscription row."""
        cols = _SUBSCRIPTION_COLUMNS
        updates = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in ("channel", "team"))
        self._db.execute(
            f"INSERT INTO digest_subscriptions ({', '.join(cols)}) VALUES ({marks(cols)}) "
            f"ON CONFLICT (team, channel) DO UPDATE SET {updates}",
            [_stored(getattr(row, c)) for c in cols],
        )

    def adopt(self, channel: str, team: str) -> bool:
        """Give a channel's digest without a workspace ('') to `team`, with its runs, papers and votes; False when
        there is none, or `team` has a digest there already."""
        if self.subscription(channel) is None:  # (almost always: no write lock taken for nothing)
            return False
        with self._write() as db:
            if self.subscription(channel, team) is not None or self.subscription(channel) is None:
                return False
            for table in ("digest_subscriptions", "digest_runs", "digest_papers", "digest_feedback"):
                db.execute(f"UPDATE {table} SET team = ? WHERE team = '' AND channel = ?", [team, channel])
        return True

    def enterprise_of(self, team: str) -> str:
        """The Enterprise Grid org a workspace's digests were subscribed from ("" for none)."""
        row = self._db.execute(
            "SELECT enterprise FROM digest_subscriptions WHERE team = ? AND enterprise != '' LIMIT 1", [team]
        ).fetchone()
        return str(row[0]) if row else ""

    def set_error(self, channel: str, error: str | None, at: float | None, team: str = "") -> None:
        """Remember the last thing that went wrong for a channel's digest (None once a digest got through)."""
        self._db.execute(
            "UPDATE digest_subscriptions SET last_error = ?, last_error_at = ? WHERE team = ? AND channel = ?",
            [error, at, team, channel],
        )

    # ------------------------------------------------------------------ runs

    def run(self, channel: str, day: str, team: str = "") -> RunRow | None:
        """The run of a workspace's channel and date, or None."""
        row = self._one("SELECT * FROM digest_runs WHERE team = ? AND channel = ? AND day = ?", [team, channel, day])
        return _run(row) if row else None

    def runs(
        self,
        channel: str | None = None,
        statuses: tuple[RunStatus, ...] = (),
        limit: int = 100,
        team: str | None = None,
    ) -> list[RunRow]:
        """Runs, newest date first, optionally of one channel (of one workspace) and only some statuses."""
        where: list[str] = []
        params: list[object] = []
        if team is not None:
            where.append("team = ?")
            params.append(team)
        if channel:
            where.append("channel = ?")
            params.append(channel)
        if statuses:
            where.append(f"status IN ({marks(statuses)})")
            params.extend(str(s) for s in statuses)
        sql = "SELECT * FROM digest_runs" + (" WHERE " + " AND ".join(where) if where else "")
        return [_run(row) for row in self._all(sql + " ORDER BY day DESC, channel, team LIMIT ?", [*params, limit])]

    def recorded_since(self, day: str) -> dict[tuple[str, str, str], RunStatus]:
        """(team, channel, date) → status of every run from date `day` on, in one read (the scheduler's check)."""
        rows = self._db.execute("SELECT team, channel, day, status FROM digest_runs WHERE day >= ?", [day])
        return {(r[0], r[1], r[2]): RunStatus(r[3]) for r in rows}

    def claim(self, run: RunRow) -> bool:
        """Insert a run: True if this call created it, False if the workspace's channel and date had one."""
        cursor = self._db.execute(
            f"INSERT INTO digest_runs ({', '.join(_RUN_COLUMNS)}) VALUES ({marks(_RUN_COLUMNS)}) "
            "ON CONFLICT DO NOTHING",
            [_stored(getattr(run, c)) for c in _RUN_COLUMNS],
        )
        return cursor.rowcount == 1

    def replace_run(self, run: RunRow) -> None:
        """Write every field of an existing run (a new attempt at the workspace's channel and date)."""
        cols = [c for c in _RUN_COLUMNS if c not in _RUN_KEY]
        self._db.execute(
            f"UPDATE digest_runs SET {', '.join(f'{c} = ?' for c in cols)} WHERE team = ? AND channel = ? AND day = ?",
            [*(_stored(getattr(run, c)) for c in cols), run.team, run.channel, run.day],
        )

    def update_run(self, channel: str, day: str, team: str = "", /, **changes: object) -> None:
        """Change some fields of a run (names as RunRow's)."""
        wrong = sorted(set(changes) - set(_RUN_COLUMNS) | set(changes) & set(_RUN_KEY))
        if wrong:
            raise ValueError(f"not a changeable digest run field: {', '.join(wrong)}")
        sets = ", ".join(f"{k} = ?" for k in changes)
        self._db.execute(
            f"UPDATE digest_runs SET {sets} WHERE team = ? AND channel = ? AND day = ?",
            [*(_stored(v) for v in changes.values()), team, channel, day],
        )

    # ------------------------------------------------------------------ papers shown, by round

    def posted_ids(self, channel: str, round_: int, team: str = "") -> set[str]:
        """Ids of the papers a workspace's channel was shown in a round."""
        rows = self._db.execute(
            "SELECT paper_id FROM digest_papers WHERE team = ? AND channel = ? AND round = ?", [team, channel, round_]
        )
        return {r[0] for r in rows}

    def current_round(self, channel: str, team: str = "") -> int:
        """The channel's current round number (1 before anything was posted)."""
        row = self._db.execute(
            "SELECT MAX(round) FROM digest_papers WHERE team = ? AND channel = ?", [team, channel]
        ).fetchone()
        return int(row[0] or 1)

    def record_papers(
        self, channel: str, round_: int, paper_ids: list[str], day: str, at: float, team: str = ""
    ) -> None:
        """Mark papers as shown to a workspace's channel in a round."""
        for paper_id in paper_ids:
            self._db.execute(
                "INSERT INTO digest_papers (team, channel, round, paper_id, day, posted_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [team, channel, round_, paper_id, day, at],
            )
