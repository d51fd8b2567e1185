"""Publishing Home views off the listener threads: the latest view per user wins, and a 429 pauses only its
workspace.

Listeners hand a user's Home view over and return, so a click is acknowledged at once however Slack answers.
One thread (started at the first view, so after a fork) publishes: a user who saves 60 papers while Slack
answers 429 gets one publish, of the newest view, once Slack's Retry-After has passed for that workspace;
the other workspaces' views go on meanwhile.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry import ConnectionErrorRetryHandler
from slack_sdk.http_retry.builtin_handlers import ServerErrorRetryHandler

# A view Slack refuses with 429 this many times is dropped (logged); the next visit publishes again
ATTEMPTS = 5
DEFAULT_RETRY_AFTER = 1.0  # seconds to wait after a 429 without a usable Retry-After header
# seconds per views.publish: a slow Slack delays other Home views, never a listener
PUBLISH_TIMEOUT = 10
STOP_SECONDS = 5.0  # at shutdown: views due now get this long to go out

log = logging.getLogger(__name__)

Render = Callable[[], dict[str, Any]]


@dataclass
class Pending:
    """A Home view waiting to be published: built when it goes out, so it shows the user's state at that moment."""

    token: str | None
    base_url: str
    render: Render
    attempts: int = 0


class HomePublisher:
    """One background thread publishing the latest Home view per (workspace, user)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        # Oldest first: a user's new view goes to the back
        self._pending: dict[tuple[str, str], Pending] = {}
        # Workspace -> when its Retry-After ends (time.monotonic)
        self._paused: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        self._stopping = False

    def submit(self, team: str, user: str, client: WebClient, render: Render) -> None:
        """Publish `render()` as the user's Home view soon, replacing one still waiting; never waits for Slack."""
        with self._cond:
            if self._stopping:
                log.info("not publishing %s's Home view: the app is stopping", user)
                return
            self._pending.pop((team, user), None)
            self._pending[(team, user)] = Pending(client.token, client.base_url, render)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="home-publisher", daemon=True)
                self._thread.start()
            self._cond.notify()

    def stop(self, timeout: float = STOP_SECONDS) -> bool:
        """Publish the views due now (bounded), drop those waiting out a 429, and end the thread; True if it ended."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
            thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _run(self) -> None:
        while (job := self._next()) is not None:
            self._publish(*job)

    def _next(self) -> tuple[tuple[str, str], Pending] | None:
        """The oldest view whose workspace is not waiting out a 429; None once stopping leaves nothing due."""
        with self._cond:
            while True:
                now = time.monotonic()
                due = next((key for key in self._pending if self._paused.get(key[0], 0.0) <= now), None)
                if due is not None:
                    return due, self._pending.pop(due)
                if self._stopping:
                    if self._pending:
                        log.warning("dropped %d Home views waiting for Slack's rate limit at stop", len(self._pending))
                    return None
                resume = min((self._paused[team] for team, _ in self._pending), default=None)
                self._cond.wait(None if resume is None else max(resume - now, 0.0))

    def _publish(self, key: tuple[str, str], item: Pending) -> None:
        """views.publish once; a 429 pauses the workspace and keeps the view unless a newer one came meanwhile."""
        team, user = key
        try:
            view = item.render()
            client = WebClient(
                token=item.token,
                base_url=item.base_url,
                timeout=PUBLISH_TIMEOUT,
                retry_handlers=[ConnectionErrorRetryHandler(max_retry_count=1), ServerErrorRetryHandler()],
            )
            client.views_publish(user_id=user, view=view)
        except SlackApiError as exc:
            if exc.response.status_code != 429:
                log.warning("views.publish for %s failed: %s", user, exc.response.get("error"))
                return
            wait = retry_after(exc.response.headers)
            item.attempts += 1
            with self._cond:
                self._paused[team] = max(self._paused.get(team, 0.0), time.monotonic() + wait)
                if item.attempts >= ATTEMPTS:
                    log.warning("views.publish for %s rate limited %d times: dropped", user, item.attempts)
                elif key not in self._pending:
                    self._pending[key] = item
        # The state database or the index failed: this view is lost, the thread goes on
        except Exception as exc:
            log.warning("Home view for %s not published: %s: %s", user, type(exc).__name__, exc)


def retry_after(headers: dict[str, Any]) -> float:
    """Seconds Slack asks us to wait (Retry-After), or DEFAULT_RETRY_AFTER when the header is missing or odd."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if isinstance(value, list):
        value = value[0] if value else None
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return DEFAULT_RETRY_AFTER
    return seconds if 0 <= seconds < float("inf") else DEFAULT_RETRY_AFTER
