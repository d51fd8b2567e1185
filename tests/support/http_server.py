"""The app served in one thread of the test process by the very waitress server each `icml-bot serve --http` worker
runs (bot/serve/http_workers.waitress_server: the same threads, idle timeout, size limits, poll loop), behind the same
signature gate; this module only adds running it in a thread and stopping it, which gunicorn does for the workers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from slack_bolt import App
from waitress import wasyncore

from bot.search.reader import Papers
from bot.serve.gate import WsgiApp
from bot.serve.http_workers import waitress_server
from bot.state import State


class HttpServer:
    """A worker's waitress server for the app: `start()` runs it in a thread (tests, benchmarks), `run()` in this."""

    def __init__(
        self,
        app: App,
        papers: Papers,
        host: str = "127.0.0.1",
        port: int = 0,
        signing_secret: str | None = None,
        state: State | None = None,
    ) -> None:
        secret = signing_secret if signing_secret is not None else _app_secret(app)
        self.wsgi = WsgiApp(app, papers, secret, state)
        self.connections: dict[int, Any] = {}
        self.server = waitress_server(self.wsgi, self.connections, host=host, port=port)
        self._thread: threading.Thread | None = None
        self._stopping = False  # set by stop(): the loop may then end on a socket closed under it

    @property
    def port(self) -> int:
        """The port actually bound (useful with port 0)."""
        return int(self.server.effective_port)

    @property
    def url(self) -> str:
        """Base URL, e.g. http://127.0.0.1:3000."""
        return f"http://{self.server.effective_host}:{self.port}"

    def run(self) -> None:
        """Serve until stop() (or Ctrl-C)."""
        try:
            self.server.run()
        except OSError:
            # Stopping, the sockets may close under the loop's select: that ends it too
            if not self._stopping:
                raise

    def start(self) -> HttpServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self.run, name="icml-bot-http", daemon=True)
        self._thread.start()
        return self

    def in_progress(self) -> int:
        """Requests being answered or waiting for a thread."""
        dispatcher = self.server.task_dispatcher
        return int(len(dispatcher.queue) + dispatcher.active_count)

    def stop(self, timeout: float = 5.0) -> int:
        """Stop accepting connections, let requests in progress finish (up to `timeout` s), and end run().

        Returns how many requests were still unanswered at the deadline (Slack retries events it got no 200 for).
        """
        deadline = time.monotonic() + timeout
        self._stopping = True
        if self._thread is not None and self._thread.is_alive():
            closed = threading.Event()

            def close_listener() -> None:
                # The listening socket only: open connections carry on
                wasyncore.dispatcher.close(self.server)
                closed.set()

            self._in_loop(close_listener)
            closed.wait(timeout)
        while self.in_progress() and time.monotonic() < deadline:
            time.sleep(0.02)
        left = self.in_progress()
        self.server.task_dispatcher.shutdown(timeout=max(deadline - time.monotonic(), 0.1))
        # Close the sockets from inside the server's own loop, then wake it so run() returns at once.
        self._in_loop(lambda: wasyncore.close_all(self.connections))
        if self._thread is not None:
            self._thread.join(timeout=5)
        return left

    def _in_loop(self, thunk: Callable[[], None]) -> None:
        """Run `thunk` in the server's loop by waking it; when the loop has closed its own wake-up pipe (a hang-up
        on it, under load), there is no waking it: run it here."""
        try:
            self.server.trigger.pull_trigger(thunk)
        except OSError:
            thunk()


def _app_secret(app: App) -> str:
    """The signing secret the Bolt app was built with (HttpServer checks signatures before Bolt does)."""
    return str(getattr(app, "_signing_secret", "") or "")
