"""Slack's response_url endpoint: ``/response/<name>`` takes a message up to five times, then answers 404."""

from __future__ import annotations

import threading

from tests.support.slack_faults import Fault

__all__ = ["ResponseUrls"]


class ResponseUrls:
    """How often each response_url was used, and what Slack answers the next POST to it."""

    def __init__(self, cond: threading.Condition, max_uses: int | None = 5) -> None:
        self._cond = cond
        self.max_uses = max_uses
        self._uses: dict[str, int] = {}

    def clear(self) -> None:
        """Forget how often each response_url was used."""
        with self._cond:
            self._uses.clear()

    def answer(self, name: str, fault: Fault | None) -> tuple[int, str]:
        """(HTTP status, body) for a POST to response_url ``name``: the injected ``fault``, used up, or "ok"."""
        with self._cond:
            if fault is not None:
                return fault.status, fault.body or fault.error
            uses = self._uses.get(name, 0)
            if self.max_uses is not None and uses >= self.max_uses:
                # Slack allows 5 uses per response_url (within 30 min); the exact error body is not verified.
                return 404, "used_url"
            self._uses[name] = uses + 1
            return 200, "ok"
