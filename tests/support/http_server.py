"""The app served by waitress in one thread of the test process (tests and benchmarks only; `icml-bot serve --http`
runs gunicorn workers, bot/serve/http_workers.py), behind the same signature gate."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import waitress.server
from slack_bolt import App
from waitress import wasyncore

from bot.search.reader import Papers
from bot.serve.gate import MAX_BODY_BYTES, WsgiApp
from bot.state import State

HTTP_THREADS = 8  # searches are CPU-bound under one GIL: more threads add memory, not throughput (bench/load_bench)


class HttpServer:
    """waitress serving the app; `start()` runs it in a thread (tests, benchmarks), `run()` in this one."""

    def __init__(
        self,
        app: App,
        papers: Papers,
        host: str = "0.0.0.0",
        port: int = 0,
        threads: int = HTTP_THREADS,
        signing_secret: str | None = None,
        state: State | None = None,
    ) -> None:
        secret = signing_secret if signing_secret is not None else _app_secret(app)
        self.wsgi = WsgiApp(app, papers, secret, state)
        self.server = waitress.server.create_server(
            self.wsgi, host=host, port=port, threads=threads, ident="icml-bot", max_request_body_size=MAX_BODY_BYTES
        )
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
            if not self._stopping:  # (stopping, the sockets may close under the loop's select: that ends it too)
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
                wasyncore.dispatcher.close(self.server)  # the listening socket only: open connections carry on
                closed.set()

            self._in_loop(close_listener)
            closed.wait(timeout)
        while self.in_progress() and time.monotonic() < deadline:
            time.sleep(0.02)
        left = self.in_progress()
        self.server.task_dispatcher.shutdown(timeout=max(deadline - time.monotonic(), 0.1))
        # Close the sockets from inside the server's own loop, then wake it so run() returns at once.
        self._in_loop(lambda: _close_all(self.server))
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


def _close_all(server: Any) -> None:
    for channel in list(server._map.values()):
        channel.close()
