"""No listener's acknowledgement waits for Bolt's 10 ms polling: `/icml` answers in its ack, a button acks at once.

Bolt runs every listener in its thread pool and has the request thread poll for the ack every 10 ms
(slack_bolt/listener/thread_runner.py). For `/icml`, which searches and acks with the results in a few
milliseconds, that poll was most of each request's time: a gunicorn worker answered few commands a second with the
CPU mostly idle (docs/benchmarks.md). Bolt's own `process_before_response` mode runs a listener inline, but for the
whole app, and button and mention listeners post to Slack after their ack, which must not hold the ack back. So the
runner below picks the mode per listener: inline for the ones marked with `answers_in_ack`; for the ones marked with
`acks_at_once` (buttons: an empty ack, then the answer through the response_url) the empty ack is given in the
request's thread before the listener goes to the pool, so the request returns at once instead of after a poll;
Bolt's thread pool and its polling for the rest (mentions, whose events Bolt acks itself before the pool).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypeVar

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.listener import Listener
from slack_bolt.listener.thread_runner import ThreadListenerRunner

MARK = "answers_in_ack"
ACKS_FIRST = "acks_at_once"
F = TypeVar("F", bound=Callable[..., Any])


def answers_in_ack(listener: F) -> F:
    """Mark a listener whose whole work is computing its ack (it posts nothing afterwards)."""
    setattr(listener, MARK, True)
    return listener


def acks_at_once(listener: F) -> F:
    """Mark a listener whose ack says nothing (its first act is `ack()`): the runner gives that ack itself."""
    setattr(listener, ACKS_FIRST, True)
    return listener


class InlineAckRunner(ThreadListenerRunner):
    """Bolt's runner for every listener, except that marked ones answer without Bolt polling for their ack."""

    # Shares the pool and handlers, no __init__ of its own
    def __init__(self, threaded: ThreadListenerRunner) -> None:
        self.__dict__.update(threaded.__dict__)
        self.inline = copy.copy(threaded)
        self.inline.process_before_response = True

    def run(
        self,
        request: BoltRequest,
        response: BoltResponse,
        listener_name: str,
        listener: Listener,
        starting_time: float | None = None,
    ) -> BoltResponse | None:
        """Run the listener inline if it answers in its ack; else in Bolt's thread pool, acked here first if its ack
        says nothing."""
        function = getattr(listener, "ack_function", None)
        if getattr(function, MARK, False):
            return self.inline.run(request, response, listener_name, listener, starting_time)
        if getattr(function, ACKS_FIRST, False):
            ack = request.context.ack
            # What the listener's own ack() says; Bolt's wait for an ack then ends before it sleeps
            acked = ack()
            # The listener, in the pool
            super().run(request, response, listener_name, listener, starting_time)
            # (not ack.response: the listener's own ack(), or Bolt after it fails, sets that again)
            return acked
        return super().run(request, response, listener_name, listener, starting_time)


def install(app: App) -> None:
    """Give `app` the runner above; call after app.error(...), whose handler the runner shares."""
    # Bolt has no public way to pass a runner
    app._listener_runner = InlineAckRunner(app.listener_runner)
