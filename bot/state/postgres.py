"""The state store on PostgreSQL (ICML_BOT_STATE=postgresql://…), so several processes and replicas share one state.

The store's SQL is written once, in the subset both databases speak (ON CONFLICT upserts, quoted "user"); this module
only adapts the driver's differences: `?` placeholders become psycopg's `%s`, REAL columns become double precision
(PostgreSQL's REAL is 4 bytes, too coarse for unix times), and SQLite's BEGIN IMMEDIATE write lock becomes a
transaction holding one advisory lock, so every check-then-write stays atomic across processes exactly as on SQLite.
"""

from __future__ import annotations

import os
import re
import select
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

# psycopg is imported where a PostgreSQL URL is used: the CLI and an SQLite state do without it
if TYPE_CHECKING:
    import psycopg

SCHEMES = ("postgresql://", "postgres://")
# A URL's password, found as libpq finds it (after the user's ":", up to the "@" before the host; the last "@" before
# any "?", so an unencoded "@" in it is masked too) or as a query parameter; written for malformed URLs as well.
_USER_PASSWORD = re.compile(r"(?P<user>^[a-z]+://[^:@/]*:)(?P<password>[^?]*)@", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"(?P<key>[?&]password=)(?P<password>[^&#]*)", re.IGNORECASE)
PERCENT_HINT = "percent-encode the user and password (% as %25, @ as %40, a space as %20)"
# Advisory lock held by every write transaction (SQLite's single writer, made explicit)
WRITE_LOCK = 7_302_516_001
CONNECT_TIMEOUT = 5  # seconds: an unreachable server is reported, not waited on for minutes
DEFAULT_LOCK_WAIT = 10.0  # seconds a write waits for another one, as SQLite's BUSY_TIMEOUT


def is_url(target: object) -> bool:
    """Whether ICML_BOT_STATE names a PostgreSQL database rather than an SQLite file."""
    return isinstance(target, str) and target.startswith(SCHEMES)


def passwords(url: str) -> list[str]:
    """The password a URL holds (`user:password@`, `?password=`), as written and percent-decoded, longest first: what
    to mask. Found without parsing the URL, so a malformed one (where libpq quotes the password back) is covered."""
    found = [m["password"] for m in [_USER_PASSWORD.match(url)] if m]
    found += [m["password"] for m in _QUERY_PASSWORD.finditer(url)]
    return sorted({form for written in found for form in (written, unquote(written)) if form}, key=len, reverse=True)


def mask(text: str, url: str) -> str:
    """`text` (a driver's message, a log line) with every form of the URL's password replaced by ***."""
    for password in passwords(url):
        text = text.replace(password, "***")
    return text


def redact(url: str) -> str:
    """The URL without its password, for logs and error lines; never raises, whatever the URL."""
    return _QUERY_PASSWORD.sub(r"\g<key>***", _USER_PASSWORD.sub(r"\g<user>***@", url, count=1))


def url_problem(url: str) -> str | None:
    """What makes a PostgreSQL URL unusable, read as libpq reads it and said without its password; None if nothing."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        said = mask(" ".join(str(exc).split()), url)
        return f"{said}; {PERCENT_HINT}" if "percent" in said else said
    ports = str(params.get("port") or "").split(",")
    if not all(not port or (port.isdigit() and 0 < int(port) < 65536) for port in ports):
        return "its port is not a number from 1 to 65535"
    return None


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """The store's SQL as psycopg wants it: `%s` placeholders; in CREATE TABLE, REAL/FLOAT as double precision."""
    out = sql.replace("%", "%%").replace("?", "%s")
    if re.match(r"\s*CREATE TABLE", out, re.IGNORECASE):
        out = re.sub(r"\b(REAL|FLOAT)\b", "DOUBLE PRECISION", out)
    return out


def is_locked(exc: BaseException) -> bool:
    """Whether a PostgreSQL error means a write waited longer than allowed for another one's lock."""
    from psycopg import errors

    return isinstance(exc, errors.LockNotAvailable)


def is_unreachable(exc: BaseException) -> bool:
    """Whether a PostgreSQL error means the server cannot be reached now (down, restarting, network)."""
    import psycopg

    return isinstance(exc, psycopg.OperationalError) and not isinstance(exc, psycopg.errors.LockNotAvailable)


def problem(url: str, exc: BaseException) -> str:
    """One line saying why the database cannot be used and what to do, never with the password."""
    import psycopg
    from psycopg import errors

    lines = mask(str(exc), url).strip().splitlines()  # libpq may quote the password back
    # The rest is a caret under the SQL
    text = " ".join(lines[0].split()) if lines else type(exc).__name__
    where = redact(url)
    if "password authentication failed" in text or "no password supplied" in text:
        return f"cannot log in to the state database {where}: wrong user or password; fix ICML_BOT_STATE"
    if isinstance(exc, errors.InsufficientPrivilege):
        return (
            f"the user of ICML_BOT_STATE may not create tables in the state database {where} ({_short(text)}): "
            "make it the database's owner or grant it CREATE on schema public"
        )
    if isinstance(exc, psycopg.OperationalError) and "does not exist" in text and "database" in text:
        return f"the state database {where} does not exist: create it (createdb) or fix ICML_BOT_STATE"
    if isinstance(exc, psycopg.OperationalError):
        return (
            f"cannot reach the state database {where} ({_short(text)}); start PostgreSQL or fix the host in "
            "ICML_BOT_STATE"
        )
    return f"cannot use the state database {where} ({_short(text)})"


def _short(text: str) -> str:
    return text if len(text) <= 200 else text[:199] + "…"


def _alive(conn: psycopg.Connection[Any]) -> bool:
    """Whether a connection still has its server. An idle session expects nothing from the server (no LISTEN here),
    so a readable socket means the server ended it (restart, failover): replaced before a statement fails on it."""
    from psycopg.pq import TransactionStatus

    if conn.closed or conn.broken:
        return False
    if conn.info.transaction_status != TransactionStatus.IDLE:
        return True  # inside a transaction: the statement itself reports a lost server
    try:
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


class PgDatabase:
    """One psycopg connection (autocommit, like the SQLite one) that runs the store's SQL."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        """Run one statement; the cursor has fetchone, fetchall, rowcount, description and iteration."""
        return self.conn.execute(translate(sql), list(params))

    def in_transaction(self) -> bool:
        """Whether a transaction is open on this connection (immediate() then nests)."""
        from psycopg.pq import TransactionStatus

        return self.conn.info.transaction_status != TransactionStatus.IDLE


class PostgresBackend:
    """Per-thread connections to one PostgreSQL database; a broken one is replaced at the next use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = redact(url)
        self._local = threading.local()

    def connect(self) -> PgDatabase:
        """This thread's connection, opened (again) when missing or broken."""
        db: PgDatabase | None = getattr(self._local, "db", None)
        if db is not None and getattr(self._local, "pid", None) != os.getpid():
            # Inherited through fork(): the parent's socket, never to be used (or closed) here.
            db = self._local.db = None
        if db is not None and _alive(db.conn):
            return db
        if db is not None:
            db.conn.close()
            self._local.db = None
        import psycopg

        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
        conn.execute(f"SET lock_timeout = {int(DEFAULT_LOCK_WAIT * 1000)}")
        db = PgDatabase(conn)
        self._local.db, self._local.pid = db, os.getpid()
        return db

    @contextmanager
    def write(self, db: PgDatabase) -> Iterator[PgDatabase]:
        """A transaction that first takes the write lock, so check-then-write is atomic across processes."""
        if db.in_transaction():
            yield db
            return
        with db.conn.transaction():
            db.conn.execute("SELECT pg_advisory_xact_lock(%s)", [WRITE_LOCK])
            yield db

    @contextmanager
    def waiting_at_most(self, db: PgDatabase, seconds: float) -> Iterator[None]:
        """Within this block a write waits at most `seconds` for the lock, then raises LockNotAvailable."""
        db.conn.execute(f"SET lock_timeout = {max(1, int(seconds * 1000))}")
        try:
            yield
        finally:
            if not db.conn.broken and not db.conn.closed:
                db.conn.execute(f"SET lock_timeout = {int(DEFAULT_LOCK_WAIT * 1000)}")

    def close(self) -> None:
        """Close this thread's connection."""
        db: PgDatabase | None = getattr(self._local, "db", None)
        if db is not None:
            db.conn.close()
            self._local.db = None

    # ---------------------------------------------------------------- schema version (bot/state/migrations.py)

    def schema_version(self, db: PgDatabase) -> int:
        """The newest migration applied (0 for an empty database); reads only."""
        row = db.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
        if not row or not row[0]:
            return 0
        found = db.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(found[0] or 0) if found else 0

    @contextmanager
    def migrating(self, db: PgDatabase) -> Iterator[PgDatabase]:
        """One transaction for the whole upgrade, under the write lock (a second process waits, then sees it done)."""
        with self.write(db):
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, what TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            yield db

    def set_schema_version(self, db: PgDatabase, version: int, what: str) -> None:
        """Record that a migration step was applied (inside migrating())."""
        db.execute("INSERT INTO schema_version (version, what) VALUES (?, ?)", [version, what])
