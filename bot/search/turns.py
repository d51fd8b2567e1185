"""Searches in one process take turns: one at a time, in the order they asked.

A search is CPU-bound (its SQLite reads are of a local file), and Python runs one thread at a time. Run together,
four searches do not finish sooner: each gives up the interpreter at every SQLite call and waits up to its switch
interval (5 ms) to get it back, so all four finish late, and a short one waits on long ones. Taking turns, each
runs alone from start to end, and a request's time is its queue plus its own search (figures under
bench/speed/serve.py's load: docs/benchmarks.md).
"""

from __future__ import annotations

import threading
from collections import deque
from types import TracebackType


class Turns:
    """A reentrant lock granted in the order it was asked for (threading.RLock lets a releasing thread take it again
    ahead of those waiting)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._owner: int | None = None
        self._depth = 0
        self._waiting: deque[tuple[int, threading.Lock]] = deque()

    def waiting(self) -> int:
        """How many threads wait for their turn."""
        with self._mutex:
            return len(self._waiting)

    def __enter__(self) -> None:
        me = threading.get_ident()
        with self._mutex:
            if self._owner == me:  # a search inside a search (similar papers search for a title)
                self._depth += 1
                return
            if self._owner is None:
                self._owner, self._depth = me, 1
                return
            turn = threading.Lock()
            turn.acquire()
            self._waiting.append((me, turn))
        turn.acquire()  # the thread before us makes us the owner, then lets go of this

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        with self._mutex:
            self._depth -= 1
            if self._depth:
                return
            if not self._waiting:
                self._owner = None
                return
            self._owner, turn = self._waiting.popleft()
            self._depth = 1
            turn.release()
