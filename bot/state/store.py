"""The state database: what users create and must survive restarts and re-indexing (seen event ids, subscriptions,
the digest log, the scheduling lease), on an SQLite file (the default) or PostgreSQL (ICML_BOT_STATE=postgresql://…).

The SQL here is written once, in what both databases speak; bot/state/sqlite.py and bot/state/postgres.py hold the
connections, the write lock and the schema version of each.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

from bot.state import migrations, postgres
from bot.state import sqlite as sqlite_backend
from bot.state.schema import (
    DIGEST_RUN_COLUMNS,
    DIGEST_SUBSCRIPTION_COLUMNS,
)
from bot.state.sqlite import path_problem

SEEN_EVENT_TTL = 7 * 24 * 3600  # Slack retries within minutes; a week of ids is plenty and stays small
BUSY_TIMEOUT = sqlite_backend.BUSY_TIMEOUT
ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, psycopg.Error)  # what either database raises

__all__ = ["ERRORS", "State", "StateUnavailable", "is_locked", "is_unreachable", "path_problem"]


class StateUnavailable(RuntimeError):
    """The state database cannot be opened or written; the message names the path and what to do."""


def is_locked(exc: BaseException) -> bool:
    """Whether a database error means another writer held the write lock for longer than we waited."""
    return sqlite_backend.is_locked(exc) or postgres.is_locked(exc)


def is_unreachable(exc: BaseException) -> bool:
    """Whether a database error means the state database server cannot be reached now (PostgreSQL only)."""
    return postgres.is_unreachable(exc)


class State:
    """The state database, kept apart from the rebuildable paper index; safe to share between threads."""

    def __init__(self, target: str | Path) -> None:
        self.backend: sqlite_backend.SqliteBackend | postgres.PostgresBackend
        if postgres.is_url(target):
            self.backend = postgres.PostgresBackend(str(target))
            self.path: Path | str = self.backend.where
            try:
                self._migrate(self.db)
            except psycopg.Error as exc:
                raise StateUnavailable(postgres.problem(str(target), exc)) from None
            return
        self.path = Path(target)
        self.backend = sqlite_backend.SqliteBackend(self.path)
        if self.path.is_dir():
            raise StateUnavailable(
                f"cannot use the state database {self.path}: it is a folder; set ICML_BOT_STATE "
                "to a file, e.g. state.db inside it"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            migrations.refuse_newer(self.path)
            self._migrate(self.db)
        except migrations.NewerSchema as exc:
            raise StateUnavailable(str(exc)) from None
        except (OSError, sqlite3.DatabaseError) as exc:
            reason = path_problem(self.path, exc) if isinstance(exc, OSError) else str(exc)
            raise StateUnavailable(
                f"cannot use the state database {self.path} ({reason}); set ICML_BOT_STATE to a writable file"
            ) from None

    @property
    def is_postgres(self) -> bool:
        """Whether the state lives in PostgreSQL (shared by every process and replica) rather than a file."""
        return isinstance(self.backend, postgres.PostgresBackend)

    @property
    def db(self) -> Any:
        """This thread's connection: a sqlite_utils.Database, or a PgDatabase that takes the same SQL."""
        return self.backend.connect()

    def _migrate(self, db: Any) -> None:
        try:
            migrations.upgrade(self.backend, db)
        except migrations.NewerSchema as exc:
            raise StateUnavailable(str(exc)) from None

    @contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        """Within this block, this thread's writes wait at most `seconds` for a lock (Slack wants an answer in 3 s)."""
        with self.backend.waiting_at_most(self.db, seconds):
            yield

    def health(self) -> str:
        """The word "ok", or what is wrong with the state database (for /healthz); reads only, never blocked."""
        try:
            self.db.execute("SELECT count(*) FROM digest_subscriptions").fetchone()
            self.db.execute("SELECT count(*) FROM seen_events").fetchone()
        except ERRORS as exc:
            return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        return "ok"

    def first_time(self, event_id: str, now: float | None = None) -> bool:
        """True the first time an event id is seen (atomic across threads and processes), False for retries."""
        now = time.time() if now is None else now
        cursor = self.db.execute(
            "INSERT INTO seen_events(event_id, seen_at) VALUES (?, ?) ON CONFLICT DO NOTHING", [event_id, now]
        )
        if cursor.rowcount and int(now) % 97 == 0:
            self.db.execute("DELETE FROM seen_events WHERE seen_at < ?", [now - SEEN_EVENT_TTL])
        return bool(cursor.rowcount == 1)

    def close(self) -> None:
        """Close this thread's connection."""
        self.backend.close()

    # ------------------------------------------------------------------ digest (bot/digest.py owns the rules)

    @contextmanager
    def immediate(self) -> Iterator[Any]:
        """A write transaction that takes the write lock at BEGIN, so check-then-write is atomic across processes."""
        with self.backend.write(self.db) as db:
            yield db

    def _one(self, sql: str, params: list[Any]) -> dict[str, Any] | None:
        cursor = self.db.execute(sql, params)
        row = cursor.fetchone()
        return dict(zip([c[0] for c in cursor.description], row, strict=True)) if row else None

    def _all(self, sql: str, params: list[Any]) -> list[dict[str, Any]]:
        cursor = self.db.execute(sql, params)
        cols = [c[0] for c in cursor.description]
        return [dict(zip(cols, row, strict=True)) for row in cursor.fetchall()]

    def digest_subscription(self, channel: str, team: str = "") -> dict[str, Any] | None:
        """Workspace `team`'s subscription row in a channel (active or not), or None."""
        return self._one("SELECT * FROM digest_subscriptions WHERE team = ? AND channel = ?", [team, channel])

    def digest_subscriptions(self, channel: str | None = None, active: bool = True) -> list[dict[str, Any]]:
        """Subscription rows by channel and workspace: every active one, or every one of a channel (any workspace)."""
        where, params = (["active = 1"] if active else []), []
        if channel is not None:
            where.append("channel = ?")
            params.append(channel)
        sql = "SELECT * FROM digest_subscriptions" + (" WHERE " + " AND ".join(where) if where else "")
        return self._all(sql + " ORDER BY channel, team", params)

    def save_digest_subscription(self, row: dict[str, Any]) -> None:
        """Insert or replace a subscription row (all columns given)."""
        cols = ", ".join(DIGEST_SUBSCRIPTION_COLUMNS)
        marks = ", ".join("?" * len(DIGEST_SUBSCRIPTION_COLUMNS))
        updates = ", ".join(f"{c} = excluded.{c}" for c in DIGEST_SUBSCRIPTION_COLUMNS if c not in ("channel", "team"))
        self.db.execute(
            f"INSERT INTO digest_subscriptions ({cols}) VALUES ({marks}) "
            f"ON CONFLICT (team, channel) DO UPDATE SET {updates}",
            [row.get(c) for c in DIGEST_SUBSCRIPTION_COLUMNS],
        )

    def adopt_digest(self, channel: str, team: str) -> bool:
        """Give a channel's digest without a workspace ('') to `team`, with its runs, papers and votes; False when
        there is none, or `team` has a digest there already. (Inside immediate(), with the check before it.)"""
        if self.digest_subscription(channel, team) is not None or self.digest_subscription(channel) is None:
            return False
        for table in ("digest_subscriptions", "digest_runs", "digest_papers", "digest_feedback"):
            self.db.execute(f"UPDATE {table} SET team = ? WHERE team = '' AND channel = ?", [team, channel])
        return True

    def enterprise_of(self, team: str) -> str:
        """The Enterprise Grid org a workspace's digests were subscribed from ("" for none)."""
        row = self.db.execute(
            "SELECT enterprise FROM digest_subscriptions WHERE team = ? AND enterprise != '' LIMIT 1", [team]
        ).fetchone()
        return str(row[0]) if row else ""

    def set_digest_error(self, channel: str, error: str | None, at: float | None, team: str = "") -> None:
        """Remember the last thing that went wrong for a channel's digest (None once a digest got through)."""
        self.db.execute(
            "UPDATE digest_subscriptions SET last_error = ?, last_error_at = ? WHERE team = ? AND channel = ?",
            [error, at, team, channel],
        )

    def digest_run(self, channel: str, day: str, team: str = "") -> dict[str, Any] | None:
        """The run row of a workspace's channel and date, with `papers` decoded, or None."""
        row = self._one("SELECT * FROM digest_runs WHERE team = ? AND channel = ? AND day = ?", [team, channel, day])
        if row:
            row["papers"] = json.loads(row["papers"])
        return row

    def digest_runs(
        self, channel: str | None = None, statuses: tuple[str, ...] = (), limit: int = 100, team: str | None = None
    ) -> list[dict[str, Any]]:
        """Run rows, newest date first, optionally of one channel (of one workspace) and only some statuses."""
        where, params = [], []
        if team is not None:
            where.append("team = ?")
            params.append(team)
        if channel:
            where.append("channel = ?")
            params.append(channel)
        if statuses:
            where.append(f"status IN ({', '.join('?' * len(statuses))})")
            params.extend(statuses)
        sql = "SELECT * FROM digest_runs" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._all(sql + " ORDER BY day DESC, channel, team LIMIT ?", [*params, limit])
        for row in rows:
            row["papers"] = json.loads(row["papers"])
        return rows

    def insert_digest_run(self, row: dict[str, Any]) -> bool:
        """Claim a workspace's channel and date: True if this call created the row, False if one was there."""
        row = {"team": "", **row, "papers": json.dumps(row.get("papers") or [])}
        cols = [c for c in DIGEST_RUN_COLUMNS if row.get(c) is not None]
        values = [row[c] for c in cols]
        cursor = self.db.execute(
            f"INSERT INTO digest_runs ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) ON CONFLICT DO NOTHING",
            values,
        )
        return bool(cursor.rowcount == 1)

    def update_digest_run(self, channel: str, day: str, *, team: str = "", **fields: Any) -> None:
        """Change some columns of a run row."""
        if "papers" in fields:
            fields["papers"] = json.dumps(fields["papers"])
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.db.execute(
            f"UPDATE digest_runs SET {sets} WHERE team = ? AND channel = ? AND day = ?",
            [*fields.values(), team, channel, day],
        )

    def digest_posted_ids(self, channel: str, round_: int, team: str = "") -> set[str]:
        """Ids of the papers a workspace's channel was shown in a round."""
        rows = self.db.execute(
            "SELECT paper_id FROM digest_papers WHERE team = ? AND channel = ? AND round = ?", [team, channel, round_]
        )
        return {r[0] for r in rows}

    def digest_round(self, channel: str, team: str = "") -> int:
        """The channel's current round number (1 before anything was posted)."""
        row = self.db.execute(
            "SELECT MAX(round) FROM digest_papers WHERE team = ? AND channel = ?", [team, channel]
        ).fetchone()
        return int(row[0] or 1)

    def record_digest_papers(
        self, channel: str, round_: int, paper_ids: list[str], day: str, at: float, team: str = ""
    ) -> None:
        """Mark papers as shown to a workspace's channel in a round."""
        for paper_id in paper_ids:
            self.db.execute(
                "INSERT INTO digest_papers (team, channel, round, paper_id, day, posted_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [team, channel, round_, paper_id, day, at],
            )

    def acquire_lease(self, name: str, owner: str, now: float, ttl: float) -> bool:
        """Take or renew a named lease for `ttl` seconds; False while another owner holds an unexpired one."""
        with self.immediate() as db:
            row = db.execute("SELECT owner, expires_at FROM leases WHERE name = ?", [name]).fetchone()
            if row and row[0] != owner and row[1] > now:
                return False
            if row and row[0] == owner:
                db.execute("UPDATE leases SET expires_at = ? WHERE name = ?", [now + ttl, name])
            else:
                db.execute(
                    "INSERT INTO leases (name, owner, acquired_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) "
                    "DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at, "
                    "expires_at = excluded.expires_at",
                    [name, owner, now, now + ttl],
                )
            return True

    def release_lease(self, name: str, owner: str) -> None:
        """Give a lease up (only if `owner` holds it)."""
        self.db.execute("DELETE FROM leases WHERE name = ? AND owner = ?", [name, owner])

    def lease(self, name: str) -> dict[str, Any] | None:
        """Who holds a lease and until when (possibly expired), or None."""
        return self._one("SELECT * FROM leases WHERE name = ?", [name])
