"""Reading the index with the standard library alone: search, `icml-bot paper` and the digests need SQL only, and a
one-shot `icml-bot search` starts without importing sqlite-utils (and numpy, which sqlite-utils imports with it)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

# How long a statement waits for a writer's lock (a load commits in one transaction)
BUSY_TIMEOUT_MS = 5000


class IndexUnavailable(RuntimeError):
    """The index file is missing, unreadable or not an icml-bot index; the message says what to do."""


class Reader(Protocol):
    """What reading the index takes of a connection: its SQL and the connection (sqlite_utils.Database has both)."""

    conn: sqlite3.Connection

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] | None = None) -> sqlite3.Cursor: ...


class ReadOnly:
    """A Reader over a plain connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] | None = None) -> sqlite3.Cursor:
        """One statement, as sqlite_utils.Database.execute runs it."""
        return self.conn.execute(sql) if parameters is None else self.conn.execute(sql, parameters)


def read_only_uri(path: str | Path) -> str:
    """The SQLite URI that opens `path` read-only, whatever characters it holds (`?` and `#` are URI syntax)."""
    return f"{Path(path).resolve().as_uri()}?mode=ro"


def read_only(path: str | Path) -> sqlite3.Connection:
    """A read-only connection to the index at `path` (one per thread; it never creates a file)."""
    path = Path(path)
    if not path.exists():
        raise IndexUnavailable(f"no index at {path}; build it with `icml-bot index`")
    conn = sqlite3.connect(read_only_uri(path), uri=True, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    if not has_table(conn, "papers"):
        conn.close()
        raise IndexUnavailable(f"{path} is not an icml-bot index (no papers table); rebuild it with `icml-bot index`")
    return conn


def has_table(db: Reader | sqlite3.Connection, name: str) -> bool:
    """Whether the index has this table (an index built by an older version may lack it)."""
    sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return db.execute(sql, [name]).fetchone() is not None


# What a failed statement raises, named here so that callers catch it without importing sqlite3 (bot.papers owns it).
Connection = sqlite3.Connection
Error = sqlite3.Error
DatabaseError = sqlite3.DatabaseError
OperationalError = sqlite3.OperationalError
