"""Ordered, versioned changes to the state database (PRAGMA user_version), so every upgrade keeps what users made."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import sqlite_utils

from bot.state.schema import (
    DIGEST_SCHEMA_LEASES,
    DIGEST_SCHEMA_PAPERS,
    DIGEST_SCHEMA_RUNS,
    DIGEST_SCHEMA_SUBSCRIPTIONS,
    TEAM_INDEX_CHANNEL_LIST_NEWEST,
    TEAM_INDEX_SAVES_NEWEST,
    TEAM_SCHEMA_CHANNEL_LIST,
    TEAM_SCHEMA_DIGEST_FEEDBACK,
    TEAM_SCHEMA_SAVES,
)


class NewerSchema(RuntimeError):
    """The database was written by a newer icml-bot: this release must not touch it."""


class Migration(NamedTuple):
    """One step from `version - 1` to `version`; `apply` runs inside the upgrade's transaction."""

    version: int
    what: str
    apply: Callable[[sqlite_utils.Database], None]


def _first(db: sqlite_utils.Database) -> None:
    # 0.1.0 wrote these tables without a version (user_version 0): IF NOT EXISTS makes this step adopt them as is.
    db.execute("CREATE TABLE IF NOT EXISTS seen_events (event_id TEXT PRIMARY KEY, seen_at FLOAT)")
    db.execute(DIGEST_SCHEMA_SUBSCRIPTIONS)
    db.execute(DIGEST_SCHEMA_RUNS)
    db.execute(DIGEST_SCHEMA_PAPERS)
    db.execute(DIGEST_SCHEMA_LEASES)


def _team(db: sqlite_utils.Database) -> None:
    for statement in (
        TEAM_SCHEMA_SAVES,
        TEAM_INDEX_SAVES_NEWEST,
        TEAM_SCHEMA_CHANNEL_LIST,
        TEAM_INDEX_CHANNEL_LIST_NEWEST,
        TEAM_SCHEMA_DIGEST_FEEDBACK,
    ):
        db.execute(statement)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "seen events, digest subscriptions, runs, papers, leases", _first),
    Migration(2, "saved papers, channel reading lists, digest feedback (per Slack workspace)", _team),
)
LATEST = MIGRATIONS[-1].version


def version(db: sqlite_utils.Database) -> int:
    """The schema version the database says it has (0: new, or written by 0.1.0)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


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


def _newer(path: Path, found: int) -> str:
    return (
        f"the state database {path} was written by a newer icml-bot (schema {found}; this release knows up to "
        f"{LATEST}); upgrade icml-bot, or set ICML_BOT_STATE to another file. It was not modified"
    )


def upgrade(db: sqlite_utils.Database, path: Path) -> int:
    """Bring the database to LATEST in one transaction (returns the version it had); refuse a newer one unchanged."""
    found = version(db)
    if found > LATEST:
        raise NewerSchema(_newer(path, found))
    if found == LATEST:
        return found
    db.execute("BEGIN IMMEDIATE")
    try:
        current = version(db)  # another process may have upgraded it while we waited for the lock
        for step in MIGRATIONS:
            if step.version > current:
                step.apply(db)
                db.execute(f"PRAGMA user_version = {step.version}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return found
