"""The count behind "N papers", run on another core while this one reads candidates, ranks and writes snippets.

At 110,000 papers it is the costliest statement of a slow search: FTS5 seeks every other word's posting list for
each row of the rarest word (docs/benchmarks.md). The answer needs it only
once the page is written, and SQLite counts without holding the GIL, so a worker thread with a read-only
connection of its own counts meanwhile. Only slow counts go there: a hand-off costs more than a small count, and
one started before the candidates are read is wasted when they turn out to be every match (5 of 55 bench queries).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from bot.papers import fulltext
from bot.papers.connection import KeptPerThread
from bot.papers.reading import Connection, Error
from bot.papers.versions import IndexVersion

log = logging.getLogger(__name__)

# Seeks (the rarest word's papers x the other words) from which a count is started beside
BESIDE_FROM = 8000
WORKERS = 2  # counts of concurrent searches, each on its worker's connection
KEPT = 4  # index files a worker keeps a connection to

# with the pid that made it: threads do not cross a fork
_pool: tuple[int, ThreadPoolExecutor] | None = None
_pool_lock = threading.Lock()
_kept = KeptPerThread(KEPT)  # a worker's connections, one per index file


def count_matches(conn: Connection, expression: str, cap: int) -> int:
    """Papers matching an FTS5 expression, counted up to `cap`."""
    return fulltext.count_matches(conn, expression, cap)


def beside(conn: Connection, index_file: IndexVersion, expression: str, cap: int) -> Callable[[], int]:
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
    try:
        conn = _kept.connection(index_file)
    except Error as exc:
        log.warning("counting beside search could not open %s: %s", index_file.path, exc)
        return None
    return count_matches(conn, expression, cap)
