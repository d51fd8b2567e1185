"""Which version of which index file a connection reads: what search keys its caches on (a rebuild under a running
bot changes the stamp or the sequence)."""

from __future__ import annotations

import sqlite3
import weakref
from typing import NamedTuple

from bot.papers.reading import Reader


class IndexVersion(NamedTuple):
    """Which index a cache belongs to: a rebuild under a running bot changes the stamp or the sequence."""

    path: str
    stamp: str | None  # meta.last_indexed and meta.generation (how many loads the index has had)
    seq: int  # highest paper sequence number


_PATHS: weakref.WeakKeyDictionary[Reader, str] = weakref.WeakKeyDictionary()
_VERSION_SQL = (
    "SELECT (SELECT value FROM meta WHERE key = 'last_indexed') || ' #' || "
    "coalesce((SELECT value FROM meta WHERE key = 'generation'), 0), (SELECT max(seq) FROM papers)"
)


def version_of(db: Reader) -> IndexVersion:
    """The file and version `db` reads, in one statement: a connection's file path is looked up once (an index in
    memory is `memory:<id>`)."""
    conn = db.conn
    path = _PATHS.get(db)
    if path is None:
        path = next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")
        path = _PATHS[db] = path or f"memory:{id(conn)}"
    try:
        stamp, seq = conn.execute(_VERSION_SQL).fetchone()
    except sqlite3.OperationalError:  # an index from before the meta table
        stamp, seq = None, conn.execute("SELECT max(seq) FROM papers").fetchone()[0]
    return IndexVersion(path, stamp, seq or 0)
