"""The state database: what users create and must survive restarts and re-indexing (seen event ids, subscriptions,
the digest log, the scheduling lease, saves, reading lists, digest feedback, each workspace's paper history), on an
SQLite file (the default) or PostgreSQL (ICML_BOT_STATE=postgresql://…).

`State` opens and upgrades it and hands out one repository per group of tables (state.digests, state.saves, …),
each holding its SQL, written once in what both databases speak; bot/state/sqlite.py and bot/state/postgres.py hold
the connections, the write lock and the schema version of each. Slack installations are kept by slack_sdk's own
SQLAlchemy store on the same database (bot/slack/oauth.py; tables made by migration 5).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

from bot.state import migrations, postgres
from bot.state import sqlite as sqlite_backend
from bot.state.digests import Digests
from bot.state.events import Events
from bot.state.feedback import Feedback
from bot.state.history import History
from bot.state.leases import Leases
from bot.state.lists import Lists
from bot.state.reminders import Reminders
from bot.state.saves import Saves
from bot.state.sqlite import path_problem

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
        self._backend: sqlite_backend.SqliteBackend | postgres.PostgresBackend
        if postgres.is_url(target):
            self._backend = postgres.PostgresBackend(str(target))
            self.path: Path | str = self._backend.where
        else:
            self.path = Path(target)
            self._backend = sqlite_backend.SqliteBackend(self.path)
        self.digests = Digests(self._backend)
        self.leases = Leases(self._backend)
        self.events = Events(self._backend)
        self.saves = Saves(self._backend)
        self.lists = Lists(self._backend)
        self.feedback = Feedback(self._backend)
        self.history = History(self._backend)
        self.reminders = Reminders(self._backend)
        if isinstance(self.path, Path):
            self._open_file(self.path)
            return
        try:
            self._migrate(self._db)
        except psycopg.Error as exc:
            raise StateUnavailable(postgres.problem(str(target), exc)) from None

    def _open_file(self, path: Path) -> None:
        if path.is_dir():
            raise StateUnavailable(
                f"cannot use the state database {path}: it is a folder; set ICML_BOT_STATE to a file, e.g. state.db "
                "inside it"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            migrations.refuse_newer(path)
            self._migrate(self._db)
        except migrations.NewerSchema as exc:
            raise StateUnavailable(str(exc)) from None
        except (OSError, sqlite3.DatabaseError) as exc:
            reason = path_problem(path, exc) if isinstance(exc, OSError) else str(exc)
            raise StateUnavailable(
                f"cannot use the state database {path} ({reason}); set ICML_BOT_STATE to a writable file"
            ) from None

    @property
    def is_postgres(self) -> bool:
        """Whether the state lives in PostgreSQL (shared by every process and replica) rather than a file."""
        return isinstance(self._backend, postgres.PostgresBackend)

    @property
    def _db(self) -> Any:
        """This thread's connection: a sqlite_utils.Database, or a PgDatabase that takes the same SQL."""
        return self._backend.connect()

    def _migrate(self, db: Any) -> None:
        try:
            migrations.upgrade(self._backend, db)
        except migrations.NewerSchema as exc:
            raise StateUnavailable(str(exc)) from None

    @contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        """Within this block, this thread's writes wait at most `seconds` for a lock (Slack wants an answer in 3 s)."""
        with self._backend.waiting_at_most(self._db, seconds):
            yield

    @contextmanager
    def immediate(self) -> Iterator[None]:
        """One write transaction around several repository calls (taking the write lock at BEGIN), so a rule's
        check-then-write is atomic across threads and processes; repositories' own writes nest inside it."""
        with self._backend.write(self._db):
            yield

    def health(self) -> str:
        """The word "ok", or what is wrong with the state database (for /healthz); reads only, never blocked."""
        try:
            self._db.execute("SELECT count(*) FROM digest_subscriptions").fetchone()
            self._db.execute("SELECT count(*) FROM seen_events").fetchone()
        except ERRORS as exc:
            return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        return "ok"

    def close(self) -> None:
        """Close this thread's connection."""
        self._backend.close()
