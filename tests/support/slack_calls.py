"""What the fake Slack received: every request it answered (a ``Call``), in order, and waits on them.

Besides answered calls the log counts requests the moment they *arrive*, before any injected delay or hold: a test
can wait until a request is provably in flight (``wait_arrived``) instead of sleeping and hoping it is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Call", "CallLog"]


@dataclass
class Call:
    """One request the fake received (Web API call or response_url POST)."""

    kind: str  # "api" or "response"
    method: str  # Web API method ("chat.postMessage") or "response" for response_url POSTs
    path: str
    params: dict[str, Any]
    headers: dict[str, str]
    body: bytes
    time: float
    status: int = 200
    ok: bool = True
    error: str | None = None
    name: str | None = None  # response_url name
    injected: bool = False  # True when the answer came from fail_next()/fail_response()
    delayed: float = 0.0  # seconds the fake waited before answering (delay_next(), hold_next())
    response: Any = None  # what the fake answered (dict for the Web API, str for response_url)

    @property
    def token(self) -> str | None:
        """The bearer token the call was made with, if any."""
        auth = self.headers.get("authorization", "")
        return auth[7:].strip() if auth.lower().startswith("bearer ") else None

    def summary(self) -> str:
        """A short one-line description for assertion messages."""
        keys = {k: self.params[k] for k in ("channel", "text", "thread_ts", "ts") if k in self.params}
        label = f"{self.method}:{self.name}" if self.name else self.method
        return f"{label} status={self.status} ok={self.ok} error={self.error} {keys}"


class CallLog:
    """The calls the fake answered and the requests that reached it, guarded by the fake's one condition."""

    def __init__(self, cond: threading.Condition) -> None:
        self._cond = cond
        self._calls: list[Call] = []
        self._arrived: list[tuple[str, str | None]] = []  # (method, channel) in order of arrival

    def clear(self) -> None:
        """Forget everything recorded."""
        with self._cond:
            self._calls.clear()
            self._arrived.clear()

    def arrive(self, method: str, channel: str | None = None) -> None:
        """Note a request that reached the fake (its answer may still be delayed or held)."""
        with self._cond:
            self._arrived.append((method, channel))
            self._cond.notify_all()

    def record(self, call: Call) -> None:
        """Add an answered call."""
        with self._cond:
            self._calls.append(call)
            self._cond.notify_all()

    def calls(self, method: str | None = None) -> list[Call]:
        """Recorded calls (all, or only ``method``; "response" = response_url POSTs), oldest first."""
        with self._cond:
            return [c for c in self._calls if method is None or c.method == method]

    def params(self, method: str, channel: str | None = None) -> list[dict[str, Any]]:
        """Params of the successful calls of ``method`` (optionally only to ``channel``)."""
        return [
            c.params for c in self.calls(method) if c.ok and (channel is None or c.params.get("channel") == channel)
        ]

    def responses(self, name: str | None = None) -> list[dict[str, Any]]:
        """JSON bodies of successful response_url POSTs (optionally only for ``name``)."""
        return [c.params for c in self.calls("response") if c.ok and (name is None or c.name == name)]

    def arrived(self, method: str | None = None, channel: str | None = None) -> int:
        """How many requests (of ``method``, to ``channel``) reached the fake so far, answered or not."""
        with self._cond:
            return sum((method is None or m == method) and (channel is None or c == channel) for m, c in self._arrived)

    def wait_arrived(self, method: str, count: int = 1, timeout: float = 5.0, channel: str | None = None) -> None:
        """Block until ``count`` requests of ``method`` (to ``channel``) reached the fake (before any delay or hold)."""
        self._wait(
            lambda: self.arrived(method, channel) >= count,
            timeout,
            lambda: (
                f"{count} x {method}{f' to {channel}' if channel else ''} to arrive; arrived: "
                + (", ".join(m if c is None else f"{m} to {c}" for m, c in self._arrived) or "(nothing)")
            ),
        )

    def wait_for(
        self,
        predicate_or_method: str | Callable[[Call], bool],
        count: int = 1,
        timeout: float = 5.0,
        ok: bool | None = None,
    ) -> list[Call]:
        """Block until ``count`` recorded calls match (method name or predicate; ``ok`` filters); return them.

        Raises AssertionError listing everything received when ``timeout`` expires.
        """
        matches: Callable[[Call], bool]
        if isinstance(predicate_or_method, str):
            wanted = predicate_or_method

            def matches(call: Call) -> bool:
                return call.method == wanted

            label = wanted
        else:
            matches = predicate_or_method
            label = getattr(predicate_or_method, "__name__", "predicate")

        def found() -> list[Call]:
            return [c for c in self._calls if matches(c) and (ok is None or c.ok == ok)]

        def failure() -> str:
            got = "\n  ".join(c.summary() for c in self._calls) or "(nothing)"
            return f"{count} x {label} (ok={ok}), matched {len(found())}; received:\n  {got}"

        self._wait(lambda: len(found()) >= count, timeout, failure)
        with self._cond:
            return found()

    def _wait(self, done: Callable[[], bool], timeout: float, failure: Callable[[], str]) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out after {timeout}s waiting for {failure()}")
                self._cond.wait(remaining)
