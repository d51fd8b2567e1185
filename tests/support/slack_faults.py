"""What the fake Slack is told to do wrong: fail the next calls, answer them late, or hold them until released."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = ["Delay", "Fault", "FaultPlan"]


T = TypeVar("T", "Fault", "Delay")  # what a plan holds: each has `times` left
K = TypeVar("K", str, str | None)  # a Web API method, or a response_url name (None = any)


@dataclass
class Fault:
    """An injected failure for the next ``times`` matching requests."""

    error: str
    status: int
    retry_after: int | None
    body: str | None
    times: int
    carried_out: bool = False  # the call was carried out (a message posted) before the error answer
    channel: str | None = None  # only calls to this channel match (None = any)


@dataclass
class Delay:
    """Answer the next ``times`` matching requests late: after ``seconds``, or once ``gate`` is set.

    With ``channel`` only requests to that channel match (others pass at once and leave the delay pending).
    """

    seconds: float
    times: int
    gate: threading.Event | None = field(default=None)
    channel: str | None = None


class FaultPlan:
    """Pending faults and delays by Web API method ("*" = any; "response" = response_url POSTs for delays)."""

    def __init__(self, cond: threading.Condition, stopping: threading.Event) -> None:
        self._cond = cond
        self._stopping = stopping
        self._gates: list[threading.Event] = []
        self._faults: dict[str, list[Fault]] = {}
        self._delays: dict[str, list[Delay]] = {}
        self._response_faults: dict[str | None, list[Fault]] = {}

    def clear(self) -> None:
        """Forget pending faults and delays (held requests stay held until their gate is set or the fake stops)."""
        with self._cond:
            self._faults.clear()
            self._delays.clear()
            self._response_faults.clear()

    def fail_next(
        self,
        method: str,
        error: str = "ratelimited",
        status: int | None = None,
        retry_after: int | None = None,
        times: int = 1,
        body: str | None = None,
        carried_out: bool = False,
        channel: str | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` ("*" = any) fail; with ``channel``, only calls to that channel.

        ``ratelimited`` defaults to HTTP 429 with ``Retry-After: 1``; other errors default to HTTP 200 with
        ``{"ok": false, "error": error}``; pass ``status=500`` for a server error; ``body`` replaces the JSON body.
        ``carried_out``: Slack did the call (posted the message) and answered the error all the same, as a 5xx may.
        """
        if status is None:
            status = 429 if error == "ratelimited" else 200
        if status == 429 and retry_after is None:
            retry_after = 1
        with self._cond:
            self._faults.setdefault(method, []).append(
                Fault(error, status, retry_after, body, times, carried_out, channel)
            )

    def delay_next(self, method: str, seconds: float, times: int = 1, channel: str | None = None) -> None:
        """Make the next ``times`` calls of ``method`` ("*" = any, "response" = response_urls) answer late.

        ``channel`` delays only calls to that channel: another call (a digest of another channel) cannot use it up.
        """
        with self._cond:
            self._delays.setdefault(method, []).append(Delay(seconds, times, channel=channel))

    def hold_next(self, method: str, times: int = 1, channel: str | None = None) -> threading.Event:
        """Hold the next ``times`` calls of ``method`` unanswered until the returned event is set (or the fake stops).

        With ``wait_arrived(method)`` a test knows a request is in flight, for as long as it needs, without a sleep.
        ``channel`` holds only calls to that channel (wait with ``wait_arrived(method, channel=channel)``).
        """
        gate = threading.Event()
        with self._cond:
            self._gates.append(gate)
            self._delays.setdefault(method, []).append(Delay(0.0, times, gate, channel))
        return gate

    def fail_response(
        self, name: str | None = None, status: int = 404, body: str = "expired_url", times: int = 1
    ) -> None:
        """Make the next ``times`` POSTs to response_url ``name`` (None = any) fail with ``status``/``body``."""
        with self._cond:
            self._response_faults.setdefault(name, []).append(Fault(body, status, None, body, times))

    def take_fault(self, method: str, channel: str | None = None) -> Fault | None:
        """The fault for this Web API call (to ``channel``), if one is pending (used up by one)."""
        return self._take(self._faults, method, "*", match=lambda f: f.channel in (None, channel))

    def take_response_fault(self, name: str) -> Fault | None:
        """The fault for this response_url POST, if one is pending."""
        return self._take(self._response_faults, name, None)

    def wait_if_delayed(self, method: str, *fallbacks: str, channel: str | None = None) -> float:
        """Sleep or hold as told for this request (to ``channel``); the seconds it waited (0.0 if nothing pending)."""
        delay = self._take(self._delays, method, *fallbacks, match=lambda d: d.channel in (None, channel))
        if delay is None:
            return 0.0
        if delay.gate is None:
            self._stopping.wait(delay.seconds)
            return delay.seconds
        started = time.monotonic()
        delay.gate.wait()
        return time.monotonic() - started

    def release_all(self) -> None:
        """Let every held request be answered (the fake is stopping)."""
        with self._cond:
            for gate in self._gates:
                gate.set()

    def _take(self, table: Mapping[K, list[T]], *keys: K, match: Callable[[T], bool] = lambda _: True) -> T | None:
        with self._cond:
            for key in keys:
                for n, item in enumerate(table.get(key, [])):
                    if not match(item):
                        continue
                    item.times -= 1
                    if item.times <= 0:
                        table[key].pop(n)
                    return item
            return None
