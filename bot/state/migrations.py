"""Ordered, versioned changes to the state database, so every upgrade keeps what users made.

SQLite keeps the version in PRAGMA user_version, PostgreSQL in a schema_version table; each backend says how.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from bot.state import installations_schema
from bot.state.schema import (
    DIGEST_KEYED_COPIES,
    DIGEST_KEYED_PAPERS,
    DIGEST_KEYED_RUNS,
    DIGEST_KEYED_SUBSCRIPTIONS,
    DIGEST_KEYED_TABLES,
    DIGEST_RUN_VENUE,
    DIGEST_SCHEMA_LEASES,
    DIGEST_SCHEMA_PAPERS,
    DIGEST_SCHEMA_RUNS,
    DIGEST_SCHEMA_SUBSCRIPTIONS,
    DIGEST_SUBSCRIPTION_TEAM,
    DIGEST_SUBSCRIPTION_TODAY,
    PLAN_SCHEMA_REMINDERS,
    PLAN_SCHEMA_REMINDERS_SENT,
    TEAM_HISTORY_FROM_LISTS,
    TEAM_HISTORY_FROM_SAVES,
    TEAM_INDEX_CHANNEL_LIST_NEWEST,
    TEAM_INDEX_PAPER_HISTORY_NEWEST,
    TEAM_INDEX_SAVES_NEWEST,
    TEAM_SCHEMA_CHANNEL_LIST,
    TEAM_SCHEMA_DIGEST_FEEDBACK,
    TEAM_SCHEMA_PAPER_HISTORY,
    TEAM_SCHEMA_SAVES,
)


class NewerSchema(RuntimeError):
    """The database was written by a newer icml-bot: this release must not touch it."""


class Executes(Protocol):
    """A connection of either backend: runs one statement with `?` parameters."""

    def execute(self, sql: str, params: Any = ..., /) -> Any: ...


class Versioned(Protocol):
    """What a backend offers the upgrade: read the version, one transaction for all steps, record each step."""

    where: str

    def schema_version(self, db: Any) -> int: ...

    def migrating(self, db: Any) -> AbstractContextManager[Any]: ...

    def set_schema_version(self, db: Any, version: int, what: str) -> None: ...


class Migration(NamedTuple):
    """One step from `version - 1` to `version`; `apply` runs inside the upgrade's transaction."""

    version: int
    what: str
    apply: Callable[[Any], None]


def _first(db: Executes) -> None:
    # 0.1.0 wrote these tables without a version (user_version 0): IF NOT EXISTS makes this step adopt them as is.
    db.execute("CREATE TABLE IF NOT EXISTS seen_events (event_id TEXT PRIMARY KEY, seen_at FLOAT)")
    db.execute(DIGEST_SCHEMA_SUBSCRIPTIONS)
    db.execute(DIGEST_SCHEMA_RUNS)
    db.execute(DIGEST_SCHEMA_PAPERS)
    db.execute(DIGEST_SCHEMA_LEASES)


def _team(db: Executes) -> None:
    for statement in (
        TEAM_SCHEMA_SAVES,
        TEAM_INDEX_SAVES_NEWEST,
        TEAM_SCHEMA_CHANNEL_LIST,
        TEAM_INDEX_CHANNEL_LIST_NEWEST,
        TEAM_SCHEMA_DIGEST_FEEDBACK,
    ):
        db.execute(statement)


def _workspaces(db: Executes) -> None:
    db.execute(DIGEST_SUBSCRIPTION_TEAM)


def _keyed_by_workspace(db: Executes) -> None:
    for statement in (DIGEST_KEYED_SUBSCRIPTIONS, DIGEST_KEYED_RUNS, DIGEST_KEYED_PAPERS, *DIGEST_KEYED_COPIES):
        db.execute(statement)
    for table in DIGEST_KEYED_TABLES:
        db.execute(f"DROP TABLE {table}")
        db.execute(f"ALTER TABLE {table}_keyed RENAME TO {table}")


def _installations(db: Any) -> None:
    # Made by the installation store's create_tables() before this step, outside the lock: IF NOT EXISTS adopts them.
    dialect: installations_schema.Dialect = "sqlite" if isinstance(db.conn, sqlite3.Connection) else "postgresql"
    for statement in installations_schema.create_statements(dialect):
        db.execute(statement)
    db.execute(installations_schema.DROP_OAUTH_STATES)


def _paper_history(db: Executes) -> None:
    for statement in (
        TEAM_SCHEMA_PAPER_HISTORY,
        TEAM_INDEX_PAPER_HISTORY_NEWEST,
        TEAM_HISTORY_FROM_SAVES,
        TEAM_HISTORY_FROM_LISTS,
    ):
        db.execute(statement)


def _reminders(db: Executes) -> None:
    db.execute(PLAN_SCHEMA_REMINDERS)
    db.execute(PLAN_SCHEMA_REMINDERS_SENT)


def _today(db: Executes) -> None:
    db.execute(DIGEST_SUBSCRIPTION_TODAY)
    db.execute(DIGEST_RUN_VENUE)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "seen events, digest subscriptions, runs, papers, leases", _first),
    Migration(2, "saved papers, channel reading lists, digest feedback (per Slack workspace)", _team),
    Migration(3, "the Slack workspace of each digest subscription (many workspaces)", _workspaces),
    Migration(
        4, "the workspace in every digest key: subscriptions, runs and papers (shared channels)", _keyed_by_workspace
    ),
    Migration(
        5, "Slack installations and bots (many workspaces); OAuth states are signed, no longer stored", _installations
    ),
    Migration(
        6,
        "each workspace's paper history: shares, unfurls, saves and list entries (from today's saves and lists)",
        _paper_history,
    ),
    Migration(7, "conference-day reminders: who opted in, and each reminder claimed or sent", _reminders),
    Migration(8, "a channel's \"today at <venue>\" digest switch, and the venue of each day's digest", _today),
)
LATEST = MIGRATIONS[-1].version


def refuse_newer(path: Path) -> None:
    """Raise NewerSchema before anything writes to the file (even switching it to WAL changes its header)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()
    if found > LATEST:
        raise NewerSchema(_newer(path, found))


def _newer(where: object, found: int) -> str:
    return (
        f"the state database {where} was written by a newer icml-bot (schema {found}; this release knows up to "
        f"{LATEST}); upgrade icml-bot, or set ICML_BOT_STATE to another database. It was not modified"
    )


def upgrade(backend: Versioned, db: Any) -> int:
    """Bring the database to LATEST in one transaction (returns the version it had); refuse a newer one unchanged."""
    found = backend.schema_version(db)
    if found > LATEST:
        raise NewerSchema(_newer(backend.where, found))
    if found == LATEST:
        return found
    with backend.migrating(db):
        # Another process may have upgraded it while we waited for the lock
        current = backend.schema_version(db)
        if current > LATEST:
            raise NewerSchema(_newer(backend.where, current))
        for step in MIGRATIONS:
            if step.version > current:
                step.apply(db)
                backend.set_schema_version(db, step.version, step.what)
    return found
