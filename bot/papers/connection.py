"""Connections to the index, owned here: opening it (WAL for the writer, read-only for everyone else), one read
transaction at a time, and one read-only connection per thread to the file now at a path (a new index renamed over
the old one is picked up by the next query, without a restart)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bot.papers import reading
from bot.papers.reading import Reader
from bot.papers.versions import IndexVersion

if TYPE_CHECKING:
    import sqlite_utils  # (readers that need SQL only open reading.read_only, without it)

    # What PerThread hands out, named for callers' annotations
    from sqlite_utils import Database as Database


def connect(path: str | Path, readonly: bool = False) -> sqlite_utils.Database:
    """Open the index (WAL, one connection per thread); read-only connections never create a file."""
    import sqlite_utils  # (readers that need SQL only open reading.read_only, without it)

    path = Path(path)
    if readonly:
        conn = reading.read_only(path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA busy_timeout={reading.BUSY_TIMEOUT_MS}")
    # The index uses no plugin, and looking for them costs start-up time (docs/benchmarks.md).
    return sqlite_utils.Database(conn, execute_plugins=False)


AnyReader = TypeVar("AnyReader", bound=Reader)


@contextmanager
def snapshot(db: AnyReader) -> Iterator[AnyReader]:
    """One read transaction: every query inside sees the same version of the index, even while it is rebuilt, and
    SQLite takes its locks once instead of once per statement. A transaction already open is the caller's."""
    if db.conn.in_transaction:
        yield db
        return
    db.conn.execute("BEGIN")
    try:
        yield db
    finally:
        # Nothing was written: this ends the read (and does nothing if it has ended)
        db.conn.commit()


def file_id(path: Path) -> tuple[int, int] | None:
    """Which file is at the path now (device, inode); None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class PerThread:
    """One read-only connection per thread (SQLite connections belong to one thread) to the index file now at a path;
    safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's connection, to the file now at the path.

        A new index renamed over the old one (build, copy, atomic rename) is a different file: the next query opens
        it, so replicas pick it up without a restart, and a query never sees a half-copied file."""
        db: sqlite_utils.Database | None = getattr(self._local, "db", None)
        if db is not None and (db.conn.in_transaction or self._local.file == file_id(self.path)):
            return db
        while True:
            before = file_id(self.path)
            fresh = connect(self.path, readonly=True)
            if file_id(self.path) == before:  # not renamed while we opened it
                break
            fresh.conn.close()
        if db is not None:
            db.conn.close()
        self._local.db, self._local.file = fresh, before
        return fresh

    def close(self) -> None:
        """Close this thread's connection, if it has one (a thread that ends with it)."""
        db: sqlite_utils.Database | None = getattr(self._local, "db", None)
        if db is not None:
            db.conn.close()
            self._local.db = None


class KeptPerThread:
    """Read-only connections a worker thread keeps to the index files it reads, each for one version of its file
    (reopened when the file has changed), at most `kept` files per thread (the oldest closed first: tests open many).
    Opened without the checks of reading.read_only: the caller has read the file already."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._local = threading.local()  # index path -> (index version, connection)

    def connection(self, index_file: IndexVersion) -> sqlite3.Connection:
        """This thread's connection to the file at that version; sqlite3.Error when it cannot be opened."""
        path = index_file.path
        conns: dict[str, tuple[IndexVersion, sqlite3.Connection]] = self._local.__dict__.setdefault("conns", {})
        held = conns.get(path)
        if held is None or held[0] != index_file:
            if held is not None:
                held[1].close()
                del conns[path]
            conn = sqlite3.connect(reading.read_only_uri(path), uri=True)
            conn.execute(f"PRAGMA busy_timeout={reading.BUSY_TIMEOUT_MS}")
            while len(conns) >= self.kept:
                conns.pop(next(iter(conns)))[1].close()
            held = conns[path] = (index_file, conn)
        return held[1]
