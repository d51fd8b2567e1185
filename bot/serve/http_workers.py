"""`icml-bot serve --http [--workers N]`: gunicorn's pre-fork server. The master binds the port and watches the
workers; each worker builds its own app, index reader and state connection after the fork, so nothing that holds a
database connection or a thread crosses a fork. Everything that must happen once (event dedupe, one digest per
channel and date, one scheduling process) goes through the state database, which every worker shares.

Each worker reads requests in one event loop (waitress) and hands a request to its threads only once it has arrived
whole, so a client that sends its headers or body slowly, or keeps an idle connection open, holds a socket for a few
seconds, never a thread; and the loop beats gunicorn's heartbeat, so no client can get a worker killed.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import time
from collections.abc import Sequence
from typing import Any

import waitress.server
from gunicorn import glogging
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.workers.base import Worker as BaseWorker
from waitress import wasyncore
from waitress.channel import HTTPChannel

from bot.config import Config
from bot.serve.gate import EVENTS_PATH, HEALTH_PATH, MAX_BODY_BYTES, WsgiApp
from bot.serve.runtime import STOP_DIGEST_SECONDS, STOP_LISTENERS_SECONDS, STOP_REQUESTS_SECONDS, Runtime

# A worker stopping finishes its request, then its replies and a digest being posted; the master waits that long.
GRACEFUL_SECONDS = STOP_REQUESTS_SECONDS + STOP_LISTENERS_SECONDS + STOP_DIGEST_SECONDS
WORKER_TIMEOUT = 30  # a worker whose event loop has not run for this long is killed and replaced
# The event loop beats the heartbeat and looks for a stop signal at least this often
LOOP_SECONDS = 1.0
FLUSH_POLL_SECONDS = 0.05  # stopping: how often to look whether the last answers have gone out
# Requests run in this many threads per worker: a search is CPU-bound, so more threads only queue for the GIL; a few
# let /healthz or an ack pass a long search, and a request waiting on Slack or the state database not hold the rest.
WORKER_THREADS = 4
# A connection silent this long, mid-request or between requests, is closed (Slack never is)
CLIENT_IDLE_SECONDS = 5
IDLE_CHECK_SECONDS = 1  # ... looked for this often
# Open connections per worker (one file descriptor each); beyond it new ones wait in the backlog
CONNECTION_LIMIT = 500
# Slack's headers are about 1 kB, a browser's on /slack/install a few kB: 431 beyond
MAX_HEADER_BYTES = 64 * 1024
BACKLOG = 2048  # connections the kernel queues before one is accepted (gunicorn's default)

log = logging.getLogger(__name__)


class Worker(BaseWorker):
    """A gunicorn worker serving through waitress: requests are read whole by one event loop before a thread runs
    them, so slow or idle clients hold no thread. Ctrl-C stops it as gently as SIGTERM."""

    def init_signals(self) -> None:
        """gunicorn's handlers, except that SIGINT finishes the requests in progress instead of dropping them."""
        super().init_signals()
        signal.signal(signal.SIGINT, self.handle_exit)

    def run(self) -> None:
        """Serve until SIGTERM/SIGINT or until the master goes, then finish the requests in progress (bounded)."""
        connections: dict[int, Any] = {}
        # gunicorn wraps them
        listening = [getattr(listener, "sock", listener) for listener in self.sockets]
        server = waitress_server(self.wsgi, connections, listening)
        while self.alive and self.ppid == os.getppid():
            self.notify()
            wasyncore.loop(timeout=LOOP_SECONDS, map=connections, use_poll=True, count=1)
        self.finish(connections)
        server.task_dispatcher.shutdown(timeout=LOOP_SECONDS)  # idle threads end at once
        wasyncore.close_all(connections)

    def finish(self, connections: dict[int, Any]) -> None:
        """Stop accepting, then let the requests read whole run and their answers go out (bounded)."""
        for listener in [c for c in connections.values() if isinstance(c, waitress.server.BaseWSGIServer)]:
            # The listening socket only: connections and the trigger carry on
            wasyncore.dispatcher.close(listener)
        deadline = time.monotonic() + STOP_REQUESTS_SECONDS
        while _answering(connections) and time.monotonic() < deadline:
            self.notify()
            wasyncore.loop(timeout=FLUSH_POLL_SECONDS, map=connections, use_poll=True, count=1)
        if _answering(connections):
            log.warning("requests still in progress after %ds are closed unanswered", STOP_REQUESTS_SECONDS)


class Channel(HTTPChannel):  # type: ignore[misc]  # (waitress is untyped: pyproject.toml)
    """waitress's connection, except that the event loop does not watch it for writing while a thread answers on it.

    The thread sends its own answer (waitress sends as soon as anything is written), so the loop has nothing to send
    meanwhile: yet waitress calls the connection writable whenever unsent bytes wait, which they do while the thread
    is inside send(), so poll() returned at once and the loop spun, holding the GIL against the very thread answering
    (a profile under python -m bench serve's load: docs/benchmarks.md).
    The loop still steps in when the answer outgrows waitress's high-water mark (the thread waits for it then), when
    the connection is to be closed, and once the thread is done (waitress then wakes the loop)."""

    def writable(self) -> bool:
        """Whether the loop has something to send or close on this connection now."""
        if not super().writable():
            return False
        helping = self.total_outbufs_len > self.adj.outbuf_high_watermark
        return not self.requests or helping or bool(self.will_close or self.close_when_flushed)


def waitress_server(
    wsgi: Any,
    connections: dict[int, Any],
    sockets: Sequence[socket.socket] = (),
    host: str = "127.0.0.1",
    port: int = 0,
) -> Any:
    """The waitress server of a worker, with every production setting, on gunicorn's `sockets` or else on host:port
    (the tests' in-process server: the same settings, so tests see what users get); its channels go in `connections`."""
    where: dict[str, Any] = {"sockets": list(sockets)} if sockets else {"host": host, "port": port}
    server = waitress.server.create_server(
        wsgi,
        map=connections,
        **where,
        backlog=BACKLOG,
        threads=WORKER_THREADS,
        channel_timeout=CLIENT_IDLE_SECONDS,
        cleanup_interval=IDLE_CHECK_SECONDS,
        connection_limit=CONNECTION_LIMIT,
        max_request_header_size=MAX_HEADER_BYTES,
        max_request_body_size=MAX_BODY_BYTES,
        asyncore_use_poll=True,  # select() cannot watch more than 1,024 descriptors
        ident="icml-bot",
    )
    for listener in connections.values():  # one per listening socket (gunicorn may bind several)
        if isinstance(listener, waitress.server.BaseWSGIServer):
            # waitress's hook: the class of every connection it accepts
            listener.channel_class = Channel
    return server


def _answering(connections: dict[int, Any]) -> bool:
    """Whether a request read whole is still waiting, running, or having its answer sent."""
    return any(isinstance(c, HTTPChannel) and (c.requests or c.total_outbufs_len) for c in connections.values())


class Master(Arbiter):
    """gunicorn's arbiter with icml-bot's stop: the first SIGTERM or SIGINT stops gracefully, a second one at once."""

    stopping = False

    def handle_term(self) -> None:
        """Stop gracefully (workers finish requests, replies and a digest being posted)."""
        self._stop("SIGTERM")

    def handle_int(self) -> None:
        """Ctrl-C: the same graceful stop."""
        self._stop("SIGINT")

    def _stop(self, name: str) -> None:
        log.info("%s: stopping (no new requests; finishing those in progress and any digest being posted)", name)
        self.stopping = True
        raise StopIteration

    def signal(self, sig: int, frame: Any) -> None:
        """Queue the signal for the main loop; a second stop signal while stopping kills the workers now."""
        if self.stopping and sig in (signal.SIGTERM, signal.SIGINT):
            log.warning(
                "%s again: stopping at once (a digest being posted is checked in the channel history at the next "
                "start)",
                signal.Signals(sig).name,
            )
            self.kill_workers(signal.SIGKILL)
            os._exit(128 + sig)
        super().signal(sig, frame)


class Logger(glogging.Logger):
    """gunicorn's own lines go through the bot's logging (one format, secrets masked, ICML_BOT_LOG_LEVEL)."""

    def setup(self, cfg: Any) -> None:
        """Hand the error log to the root logger's handlers; no access log (a line per request)."""
        self.error_log.handlers.clear()
        self.error_log.propagate = True
        self.error_log.setLevel(logging.WARNING if logging.getLogger().level <= logging.INFO else logging.ERROR)
        self.access_log.disabled = True


class HttpWorkers(BaseApplication):
    """The gunicorn application: settings from the command line, and the app loaded in each worker after the fork."""

    def __init__(self, config: Config, host: str, port: int, workers: int) -> None:
        self.config = config
        self.bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.workers = workers
        self.runtime: Runtime | None = None
        super().__init__()

    def load_config(self) -> None:
        """gunicorn's settings: the worker count, the worker above, graceful stops, our logging."""
        settings = {
            "bind": [self.bind],
            "workers": self.workers,
            "worker_class": Worker,
            "timeout": WORKER_TIMEOUT,
            "backlog": BACKLOG,
            "graceful_timeout": GRACEFUL_SECONDS,
            "logger_class": Logger,
            "proc_name": "icml-bot",
            "post_worker_init": self.post_worker_init,
            "worker_exit": self.worker_exit,
        }
        for key, value in settings.items():
            self.cfg.set(key, value)

    # A WsgiApp; gunicorn's stubs type the environ as a MutableMapping, ours as a dict
    def load(self) -> Any:
        """In each worker, after the fork: its own state connection, digest desk (the lease decides who schedules)
        and Bolt app."""
        self.runtime = Runtime.start(self.config)
        return WsgiApp(
            self.runtime.app, self.runtime.digests.builder.papers, self.config.signing_secret, self.runtime.state
        )

    def post_worker_init(self, worker: Worker) -> None:
        """Log where the app answers once the first worker can (the port actually bound, useful with --port 0)."""
        if worker.age != 1:
            log.info("worker %d ready", os.getpid())
            return
        host, port = worker.sockets[0].getsockname()[:2]
        url = f"http://{host}:{port}"
        log.info(
            "serving HTTP on %s%s (health: %s%s) with %d worker%s",
            url,
            EVENTS_PATH,
            url,
            HEALTH_PATH,
            self.workers,
            "" if self.workers == 1 else "s",
        )

    def worker_exit(self, server: Arbiter, worker: Worker) -> None:
        """In a stopping worker: finish replies and a digest being posted, hand the lease back, close the state."""
        if self.runtime is not None:
            self.runtime.stop()
            log.info("worker %d stopped", os.getpid())


def serve(config: Config, host: str, port: int, workers: int) -> int:
    """Check the setup once here (state database, auth.test), then run gunicorn until SIGTERM or Ctrl-C."""
    Runtime.check(config)
    master = os.getpid()
    try:
        Master(HttpWorkers(config, host, port, workers)).run()
    # gunicorn's master ends with sys.exit: 0 after a stop, 3 when a worker cannot boot
    except SystemExit as exc:
        if os.getpid() != master:
            raise  # a worker ending: its own exit, through gunicorn's
        return exc.code if isinstance(exc.code, int) else 1
    return 0
