"""Slack's published rate limits, for the fake: opt-in (`fake.limits.enable()`), off by default.

What Slack publishes (docs.slack.dev/apis/web-api/rate-limits, each method's page):
- chat.postMessage ("special"): about one message per second per channel, short bursts tolerated, plus a
  workspace-wide limit whose figure Slack does not publish (the method's page: several hundred messages a minute);
- views.publish: Tier 4, 100+ calls a minute per workspace, generous bursts;
- conversations.history: Tier 3, 50+ a minute per workspace (1 a minute for commercially distributed apps outside
  the Marketplace since 2025: pass a stricter SlackLimits to try that).
Each limit is a token bucket per app and workspace (and channel, for posts). A call over any of them is not carried
out: it gets HTTP 429, `Retry-After` (whole seconds, at least 1) and `{"ok": false, "error": "ratelimited"}`.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Limit", "RateLimiter", "SlackLimits"]


@dataclass(frozen=True)
class Limit:
    """A token bucket: `per_second` sustained, up to `burst` at once after a quiet spell."""

    per_second: float
    burst: float


def _tiers() -> dict[str, Limit]:
    return {
        "views.publish": Limit(100 / 60, 20),  # Tier 4
        "conversations.history": Limit(50 / 60, 10),  # Tier 3
    }


@dataclass(frozen=True)
class SlackLimits:
    """The limits the fake enforces once enabled (per workspace; posts also per channel)."""

    channel_posts: Limit = Limit(1.0, 2)  # chat.postMessage per workspace and channel
    # chat.postMessage per workspace: "several hundred a minute"
    workspace_posts: Limit = Limit(300 / 60, 10)
    tiers: dict[str, Limit] = field(default_factory=_tiers)  # other methods, per workspace


@dataclass
class _Bucket:
    limit: Limit
    tokens: float
    at: float

    def refill(self, now: float) -> None:
        self.tokens = min(self.limit.burst, self.tokens + (now - self.at) * self.limit.per_second)
        self.at = now

    def wait(self) -> float:
        """Seconds until one token is there (0 when it is)."""
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.limit.per_second


class RateLimiter:
    """The fake's rate limits: off until enabled; counts what it refused, by method."""

    def __init__(self, cond: threading.Condition, clock: Callable[[], float] = time.monotonic) -> None:
        self._cond = cond
        self._clock = clock
        self.limits: SlackLimits | None = None
        self._buckets: dict[tuple[str, ...], _Bucket] = {}
        self.refused: dict[str, int] = {}

    def enable(self, limits: SlackLimits | None = None, clock: Callable[[], float] | None = None) -> None:
        """Enforce `limits` (Slack's published ones by default) from now on, with full buckets; `clock` (seconds)
        lets a test move time by hand."""
        with self._cond:
            self.limits = limits or SlackLimits()
            self._clock = clock or self._clock
            self._buckets.clear()
            self.refused.clear()

    def disable(self) -> None:
        """Enforce nothing (the default)."""
        with self._cond:
            self.limits = None
            self._buckets.clear()

    def clear(self) -> None:
        """Full buckets and no refusals counted (the limits stay as they are)."""
        with self._cond:
            self._buckets.clear()
            self.refused.clear()

    def check(self, method: str, team: str, channel: str | None) -> int | None:
        """Take this call's tokens and return None, or return the Retry-After (s) of a call over a limit (the caller
        holds the fake's condition)."""
        if self.limits is None:
            return None
        keyed: list[tuple[tuple[str, ...], Limit]] = []
        if method == "chat.postMessage":
            keyed.append((("post", team), self.limits.workspace_posts))
            if channel:
                keyed.append((("post", team, channel), self.limits.channel_posts))
        elif method in self.limits.tiers:
            keyed.append(((method, team), self.limits.tiers[method]))
        if not keyed:
            return None
        now = self._clock()
        buckets = []
        for key, limit in keyed:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = _Bucket(limit, limit.burst, now)
            bucket.refill(now)
            buckets.append(bucket)
        wait = max(b.wait() for b in buckets)
        if wait > 0:
            self.refused[method] = self.refused.get(method, 0) + 1
            return max(1, math.ceil(wait))
        for bucket in buckets:
            bucket.tokens -= 1
        return None
