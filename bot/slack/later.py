"""Work run again after a delay, from one background thread: a mention reply Slack refused with 429 goes out once
its Retry-After has passed, and no listener thread sleeps meanwhile (other clicks and mentions need them).

The thread starts with the first call (so after a fork) and is a daemon: work still waiting when the process exits
is dropped, as a reply Slack refused would have been.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Later:
    """One thread running each piece of work when its delay has passed, earliest first."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._cond = threading.Condition()
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()  # (ties run in the order they came)
        self._thread: threading.Thread | None = None

    def call(self, delay: float, work: Callable[[], None]) -> None:
        """Run `work()` in `delay` seconds (its exceptions are logged; it must tell the user itself)."""
        with self._cond:
            heapq.heappush(self._due, (self._clock() + max(delay, 0.0), next(self._order), work))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="later", daemon=True)
                self._thread.start()
            self._cond.notify()

    def pending(self) -> int:
        """How many calls are still waiting."""
        with self._cond:
            return len(self._due)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._due or self._due[0][0] > self._clock():
                    self._cond.wait(self._due[0][0] - self._clock() if self._due else None)
                _, _, work = heapq.heappop(self._due)
            try:
                work()
            except Exception:  # one failing retry must not end the thread the others wait in
                log.exception("delayed work failed")
