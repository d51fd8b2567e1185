"""The state store on one SQLite file (the default): per-thread connections in WAL mode, BEGIN IMMEDIATE writes."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

BUSY_TIMEOUT = 10.0  # seconds a write waits for another connection's write lock (scheduler, CLI)
# seconds between tries of the WAL switch while replicas starting together race for it
WAL_SWITCH_RETRY = 0.02
# The state file holds every workspace's bot token: readable and writable by the bot's user only
PRIVATE = 0o600
# SQLite's files beside the database, holding the same data
SIDE_FILES = ("-wal", "-shm", "-journal")

log = logging.getLogger(__name__)

Error = sqlite3.Error


def path_problem(path: Path, exc: OSError) -> str:
    """Why a database file cannot be created at `path`, in words (a parent that is a file says so)."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                return f"{parent} is a file, not a folder"
            break
    return exc.strerror or str(exc)


def make_private(path: Path) -> None:
    """Create the state file for the bot's user only (SQLite gives its -wal and -shm the file's mode), and tighten
    one that other users could read, saying so (or warn when it cannot be): it holds bot tokens."""
    # Never open an existing file here: closing it would drop this process's SQLite locks on it (POSIX locks).
    with contextlib.suppress(FileExistsError):
        # Empty: a new SQLite database
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE))
    for file in (path, *(path.with_name(path.name + side) for side in SIDE_FILES)):
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
            if mode & ~PRIVATE:
                os.chmod(file, mode & PRIVATE)
                log.warning(
                    "%s was open to other users (mode %04o): now %04o, as it holds bot tokens",
                    file,
                    mode,
                    mode & PRIVATE,
                )
        except FileNotFoundError:
            continue
        except OSError as exc:  # another user's file, a read-only mount: the operator must do it
            log.warning(
                "%s is open to other users and holds bot tokens, but %s: run chmod 600 on it", file, exc.strerror
            )


def is_locked(exc: BaseException) -> bool:
    """Whether an SQLite error means another connection held the write lock for longer than we waited."""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    """Put the file in WAL mode, trying again while another process does the same: SQLite answers "locked" at once
    there (two readers both wanting the exclusive lock), without waiting its busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_locked(exc) or time.monotonic() > deadline:
                raise
            time.sleep(WAL_SWITCH_RETRY)


class SqliteBackend:
    """One SQLite file; a connection per thread (SQLite connections belong to one thread)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self._local = threading.local()

    def connect(self) -> sqlite_utils.Database:
        """This thread's connection."""
        db = getattr(self._local, "db", None)
        if db is not None and getattr(self._local, "pid", None) != os.getpid():
            # Inherited through fork() (pre-fork servers): SQLite connections must not cross processes
            db = None
        if db is None:
            make_private(self.path)
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT, check_same_thread=False, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")
            _switch_to_wal(conn)
            # Here: the command line imports is_locked and path_problem, not sqlite-utils
            import sqlite_utils

            db = sqlite_utils.Database(conn)
            self._local.db, self._local.pid = db, os.getpid()
        return db

    @contextmanager
    def write(self, db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
        """A write transaction that takes the write lock at BEGIN, so check-then-write is atomic across processes."""
        if db.conn.in_transaction:  # nested: already inside one
            yield db
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def waiting_at_most(self, db: sqlite_utils.Database, seconds: float) -> Iterator[None]:
        """Within this block, this thread's writes wait at most `seconds` for a lock."""
        db.execute(f"PRAGMA busy_timeout={int(seconds * 1000)}")
        try:
            yield
        finally:
            db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")

    def close(self) -> None:
        """Close this thread's connection."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.conn.close()
            self._local.db = None

    # ---------------------------------------------------------------- schema version (bot/state/migrations.py)

    def schema_version(self, db: sqlite_utils.Database) -> int:
        """The schema version the file says it has (0: new, or written by 0.1.0)."""
        return int(db.execute("PRAGMA user_version").fetchone()[0])

    @contextmanager
    def migrating(self, db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
        """The whole upgrade in one write transaction."""
        with self.write(db):
            yield db

    def set_schema_version(self, db: sqlite_utils.Database, version: int, what: str) -> None:
        """Record that a migration step was applied (PRAGMA user_version, inside migrating())."""
        db.execute(f"PRAGMA user_version = {int(version)}")
