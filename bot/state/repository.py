"""What every repository shares: this thread's connection to the state database and its write transaction.

Each repository (digests, leases, events, saves, lists, feedback) holds the SQL of its tables, written once in what
SQLite and PostgreSQL both speak, and returns typed rows; nothing outside bot/state runs SQL on the state.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

# A LIMIT that both SQLite and PostgreSQL read as "no limit" (SQLite's -1 is an error in PostgreSQL)
NO_LIMIT = 2**62


class Cursor(Protocol):
    """What a statement returns on either backend."""

    @property
    def rowcount(self) -> int: ...

    @property
    def description(self) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """A connection of either backend: runs one statement with `?` parameters."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Cursor: ...


class Backend(Protocol):
    """Per-thread connections and the write transaction (bot/state/sqlite.py, bot/state/postgres.py)."""

    def connect(self) -> Any: ...

    def write(self, db: Any) -> AbstractContextManager[Any]: ...


class Repository:
    """SQL over one backend's per-thread connection; safe to share between threads, as the State is."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    @property
    def _db(self) -> Connection:
        db: Connection = self._backend.connect()
        return db

    def _write(self) -> AbstractContextManager[Any]:
        """A write transaction (nested in an open one), so check-then-write is atomic across processes."""
        return self._backend.write(self._backend.connect())

    def _one(self, sql: str, params: Sequence[Any]) -> dict[str, Any] | None:
        cursor = self._db.execute(sql, params)
        row = cursor.fetchone()
        return dict(zip([c[0] for c in cursor.description], row, strict=True)) if row else None

    def _papers_among(self, rows: str, params: Sequence[Any], paper_ids: Iterable[str]) -> set[str]:
        """Which of `paper_ids` the rows `FROM … WHERE …` (with `params`) hold, in one query."""
        wanted = list(dict.fromkeys(paper_ids))
        if not wanted:
            return set()
        found = self._db.execute(f"SELECT paper_id {rows} AND paper_id IN ({marks(wanted)})", [*params, *wanted])
        return {row[0] for row in found}

    def _all(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        cursor = self._db.execute(sql, params)
        cols = [c[0] for c in cursor.description]
        return [dict(zip(cols, row, strict=True)) for row in cursor.fetchall()]


def marks(values: Sequence[object]) -> str:
    """`?, ?, ?`: one placeholder per value, for IN (…) and VALUES (…)."""
    return ", ".join("?" * len(values))


def sql_limit(limit: int | None) -> int:
    """A page's LIMIT: None means all rows."""
    return NO_LIMIT if limit is None else limit
