"""The count behind "N papers", run on another core while this one reads candidates, ranks and writes snippets.

At 110,000 papers it is the costliest statement of a slow search: FTS5 seeks every other word's posting list for
each row of the rarest word (2-4 ms for "synthetic data for training language models"). The answer needs it only
once the page is written, and SQLite counts without holding the GIL, so a worker thread with a read-only
connection of its own counts meanwhile. Only slow counts go there: a hand-off costs more than a small count, and
one started before the candidates are read is wasted when they turn out to be every match (5 of 55 bench queries).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from bot.papers.reading import read_only_uri
from bot.search.cache import IndexVersion

log = logging.getLogger(__name__)

COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)"
BESIDE_FROM = 8000  # seeks (the rarest word's papers x the other words) from which a count is started beside
WORKERS = 2  # counts of concurrent searches, each on its worker's connection
KEPT = 4  # index files a worker keeps a connection to

_pool: tuple[int, ThreadPoolExecutor] | None = None  # with the pid that made it: threads do not cross a fork
_pool_lock = threading.Lock()
_local = threading.local()  # a worker's connections: index path -> (index version, connection)


def count_matches(conn: sqlite3.Connection, expression: str, cap: int) -> int:
    """Papers matching an FTS5 expression, counted up to `cap`."""
    return int(conn.execute(COUNT_SQL, [expression, cap]).fetchone()[0])


def beside(conn: sqlite3.Connection, index_file: IndexVersion, expression: str, cap: int) -> Callable[[], int]:
    """The count of `expression`'s matches up to `cap`, started on a worker's connection to the index file at that
    version, as a call that waits for it. The call counts on `conn` after all when the worker could not open
    the file."""
    future = _executor().submit(_count_in_worker, index_file, expression, cap)

    def result() -> int:
        n = future.result()
        return count_matches(conn, expression, cap) if n is None else n

    return result


def _executor() -> ThreadPoolExecutor:
    global _pool
    pid = os.getpid()
    if _pool is None or _pool[0] != pid:
        with _pool_lock:
            if _pool is None or _pool[0] != pid:
                _pool = (pid, ThreadPoolExecutor(WORKERS, thread_name_prefix="icml-bot-count"))
    return _pool[1]


def _count_in_worker(index_file: IndexVersion, expression: str, cap: int) -> int | None:
    """In a worker thread: the count on its own read-only connection to the index at that version (reopened when
    the index has changed), or None when the file cannot be opened."""
    path = index_file.path
    conns: dict[str, tuple[IndexVersion, sqlite3.Connection]] = _local.__dict__.setdefault("conns", {})
    held = conns.get(path)
    if held is None or held[0] != index_file:
        if held is not None:
            held[1].close()
            del conns[path]
        try:
            conn = sqlite3.connect(read_only_uri(path), uri=True)
        except sqlite3.Error as exc:
            log.warning("counting beside search could not open %s: %s", path, exc)
            return None
        conn.execute("PRAGMA busy_timeout=5000")
        while len(conns) >= KEPT:  # indexes no longer searched (tests open many) do not keep their files open
            conns.pop(next(iter(conns)))[1].close()
        held = conns[path] = (index_file, conn)
    return count_matches(held[1], expression, cap)
