"""Running the app: Socket Mode (the default) or HTTP through waitress with /healthz; token checks and logging
that never shows a token."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import waitress.server
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier
from waitress import wasyncore

from bot.config import Config, ConfigError
from bot.digest.scheduler import run_within
from bot.digest.service import DigestService
from bot.logs import RateLimit
from bot.papers import refresh
from bot.search.reader import Papers
from bot.slack import digest_commands
from bot.slack.app import REJECTED_TOKEN, build_app, setting_help
from bot.slack.home_publisher import HomePublisher
from bot.state import State

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
HTTP_THREADS = 8  # searches are CPU-bound under one GIL: more threads add memory, not throughput (bench/load_bench)
DEFAULT_PORT = 3000
MAX_BODY_BYTES = 1 << 20  # Slack's payloads are a few kB; a block_actions body with a long message stays far below
SIGNATURE_MAX_AGE = 300  # seconds: Slack's replay window
STOP_REQUESTS_SECONDS = 5  # at shutdown: requests in progress get this long to finish
STOP_LISTENERS_SECONDS = 10  # ... replies started by listeners (they post to Slack)
STOP_DIGEST_SECONDS = 20  # ... and a digest being posted (its own timeout is 30 s; a claim keeps it from doubling)

log = logging.getLogger(__name__)


# ------------------------------------------------------------------ configuration checks


def check_tokens(config: Config, http: bool) -> None:
    """Fail fast with one line naming the variable and where to find it; never echo a token's value."""
    if config.many_workspaces:
        if not http:
            raise ConfigError(
                "SLACK_CLIENT_ID and SLACK_CLIENT_SECRET install the app in many workspaces, which needs HTTP mode "
                "(/slack/install and /slack/oauth_redirect): run `icml-bot serve --http`, or unset them"
            )
    else:
        _check("SLACK_BOT_TOKEN", config.bot_token, "xoxb-")
    if http:
        if not config.signing_secret:
            raise ConfigError(
                f"SLACK_SIGNING_SECRET is not set (needed with --http). {setting_help('SLACK_SIGNING_SECRET')}"
            )
    else:
        if not config.app_token:
            raise ConfigError(
                f"SLACK_APP_TOKEN is not set (needed for Socket Mode; or run `icml-bot serve --http`). "
                f"{setting_help('SLACK_APP_TOKEN')}"
            )
        _check("SLACK_APP_TOKEN", config.app_token, "xapp-")


def _check(env: str, value: str, prefix: str) -> None:
    if not value:
        raise ConfigError(f"{env} is not set. {setting_help(env)}")
    if not value.startswith(prefix) or not re.fullmatch(r"[\w-]+", value):
        raise ConfigError(f"{env} is malformed: it must start with {prefix}. {setting_help(env)}")


# ------------------------------------------------------------------ HTTP mode


class WsgiApp:
    """GET /healthz needs no signature; every other request must carry a valid Slack signature (401 otherwise).

    Signed requests go to Bolt at POST /slack/events (405 for another method there, 404 for another path), so an
    unsigned request learns nothing about the app, and nothing unsigned ever reaches a listener or the logs' error
    handler. With many workspaces, GET /slack/install and /slack/oauth_redirect go to Bolt's OAuth flow unsigned
    (a browser, not Slack, sends them; the flow checks its own state parameter and cookie).
    """

    def __init__(self, app: App, papers: Papers, signing_secret: str, state: State | None = None) -> None:
        self.bolt = SlackRequestHandler(app, path=EVENTS_PATH)
        flow = app.oauth_flow
        self.oauth_paths = {flow.install_path, flow.redirect_uri_path} if flow is not None else set()
        self.papers = papers
        self.state = state
        self.verifier = SignatureVerifier(signing_secret) if signing_secret else None
        self._rejected = RateLimit()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Route one request."""
        path, method = environ.get("PATH_INFO") or "", environ.get("REQUEST_METHOD") or ""
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            return self.health(start_response)
        if self.oauth_paths and path in self.oauth_paths and method == "GET":  # "Add to Slack": a browser, unsigned
            return self.bolt(environ, start_response)
        body = _read_body(environ)
        reason = self.unsigned(environ, body)
        if reason:
            left_out = self._rejected.allow()
            if left_out is not None:
                log.warning(
                    "rejected %s %s from %s: %s (%d more since the last such line; if Slack's own requests "
                    "get this, check SLACK_SIGNING_SECRET)",
                    method,
                    path[:100],
                    environ.get("REMOTE_ADDR", "?"),
                    reason,
                    left_out,
                )
            return _plain(start_response, "401 Unauthorized", "invalid request")
        if path != EVENTS_PATH:
            return _plain(start_response, "404 Not Found", "not found")
        if method != "POST":
            return _plain(start_response, "405 Method Not Allowed", "use POST", [("Allow", "POST")])
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        return self.bolt(environ, start_response)

    def unsigned(self, environ: dict[str, Any], body: bytes) -> str:
        """Why the request is not signed by Slack (missing, stale or wrong signature), or "" when it is."""
        signature = environ.get("HTTP_X_SLACK_SIGNATURE")
        timestamp = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP") or ""
        if not signature or not timestamp:
            return "no Slack signature"
        if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
            return "malformed timestamp"
        if abs(time.time() - int(timestamp)) > SIGNATURE_MAX_AGE:
            return "timestamp outside Slack's 5-minute window"
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return "body is not UTF-8"
        if self.verifier is None or not self.verifier.is_valid(text, timestamp, signature):
            return "wrong signature"
        return ""

    def health(self, start_response: Callable[..., Any]) -> Iterable[bytes]:
        """200 when the index answers and the state database reads; 503 saying which fails otherwise. Anyone may ask,
        so the answer is only ok or failing per part: what failed (paths, sockets, hosts) goes to the log."""
        body: dict[str, Any] = {"ok": True}
        problems: dict[str, str] = {}
        try:
            body["papers"] = self.papers.count()
        except Exception as exc:  # a health check reports any failure instead of raising
            problems["index"] = f"{type(exc).__name__}: {exc}"
        body["index"] = "failing" if "index" in problems else "ok"
        if self.state is not None:
            said = self.state.health()
            if said != "ok":
                problems["state"] = said
            body["state"] = "failing" if "state" in problems else "ok"
        if problems:
            body["ok"] = False
            log.error("health check failed: %s", problems)
        raw = json.dumps(body).encode()
        status = "200 OK" if body["ok"] else "503 Service Unavailable"
        start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(raw)))])
        return [raw]


def _read_body(environ: dict[str, Any]) -> bytes:
    """The request body (waitress has already refused anything over MAX_BODY_BYTES)."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    stream = environ.get("wsgi.input")
    return stream.read(min(max(length, 0), MAX_BODY_BYTES)) if stream is not None and length > 0 else b""


def _plain(
    start_response: Callable[..., Any], status: str, text: str, headers: list[tuple[str, str]] | None = None
) -> Iterable[bytes]:
    raw = text.encode()
    start_response(
        status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(raw))), *(headers or [])]
    )
    return [raw]


class HttpServer:
    """waitress serving the app; `start()` runs it in a thread (tests, benchmarks), `run()` in this one."""

    def __init__(
        self,
        app: App,
        index_path: Path,
        host: str = "0.0.0.0",
        port: int = DEFAULT_PORT,
        threads: int = HTTP_THREADS,
        signing_secret: str | None = None,
        state: State | None = None,
    ) -> None:
        secret = signing_secret if signing_secret is not None else _app_secret(app)
        self.wsgi = WsgiApp(app, Papers(index_path), secret, state)
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


# ------------------------------------------------------------------ Socket Mode


def start_socket_mode(app: App, config: Config) -> SocketModeHandler:
    """Connect over Socket Mode (returns at once; Bolt's handler reconnects by itself)."""
    handler = SocketModeHandler(app, app_token=config.app_token)
    try:
        handler.connect()
    except SlackApiError as exc:
        error = str(exc.response.get("error"))
        if error in REJECTED_TOKEN:
            raise ConfigError(
                f"SLACK_APP_TOKEN was rejected by Slack ({error}). {setting_help('SLACK_APP_TOKEN')}"
            ) from None
        raise ConfigError(f"Slack refused a Socket Mode connection ({error}); check SLACK_APP_TOKEN") from None
    except OSError as exc:
        raise ConfigError(
            f"cannot reach Slack at SLACK_API_URL={config.api_url} to open Socket Mode "
            f"({type(exc).__name__}); check the network or SLACK_API_URL"
        ) from None
    return handler


# ------------------------------------------------------------------ serve


@dataclass
class Runtime:
    """What one serving process runs: its state connection, the digest desk and the Bolt app built on them."""

    state: State
    digests: DigestService
    app: App
    publisher: HomePublisher  # Home views, published off the listener threads
    refresher: refresh.Refresher | None = None  # ICML_BOT_REFRESH: fetch again and load in one transaction

    @classmethod
    def build(cls, config: Config) -> Runtime:
        """Open the state database and build the app (auth.test); nothing runs yet."""
        state = State(config.state_target)
        digests = digest_commands.build_service(config, config.db_path, state)  # checks ICML_DIGEST_CHANNEL first
        publisher = HomePublisher()
        app = build_app(config, config.db_path, state, digests=digests, publisher=publisher)
        return cls(state, digests, app, publisher)

    @classmethod
    def start(cls, config: Config) -> Runtime:
        """Build it and start the digest scheduler (one process per state database schedules; the others log so)."""
        runtime = cls.build(config)
        runtime.digests.digests.papers.warm()
        runtime.digests.start_scheduler()
        runtime.refresher = refresh.start(config)  # several processes on one index: the first due one fetches
        return runtime

    @classmethod
    def check(cls, config: Config) -> None:
        """Fail before forking workers on what start() would refuse (state database, settings, a rejected token)."""
        cls.build(config).state.close()

    def stop(self) -> None:
        """Let replies in progress, the Home views they queued and a digest being posted finish (bounded), hand the
        lease back, close the state."""
        if self.refresher is not None:
            self.refresher.stop()
        if not drain_listeners(self.app, STOP_LISTENERS_SECONDS):
            log.warning(
                "replies still in progress after %ds; they finish before the process exits", STOP_LISTENERS_SECONDS
            )
        self.publisher.stop()
        if not self.digests.stop(timeout=STOP_DIGEST_SECONDS):
            log.warning(
                "a digest post is still running after %ds; its claim stays in the state database, so it is "
                "checked in the channel history before anything posts it again",
                STOP_DIGEST_SECONDS,
            )
        self.state.close()


def serve(config: Config, http: bool = False, host: str = "0.0.0.0", port: int = DEFAULT_PORT, workers: int = 1) -> int:
    """`icml-bot serve` (tokens already checked by the CLI): build the app (auth.test), serve until SIGTERM or Ctrl-C.

    HTTP mode runs gunicorn with `workers` processes (bot/slack/http_workers.py); Socket Mode with more than one
    worker runs that many connected processes (bot/slack/socket_workers.py). On the first SIGTERM/SIGINT it stops
    taking requests, lets those in progress and a digest being posted finish (bounded), stops the scheduler and
    hands its lease back, and returns 0; a second signal ends it at once.
    """
    if http or workers > 1:
        from bot.slack import http_workers, socket_workers

        status = http_workers.serve(config, host, port, workers) if http else socket_workers.supervise(config, workers)
        log.info("stopped" if status == 0 else f"stopped (exit status {status})")
        return status
    stop = threading.Event()
    received: list[str] = []

    def on_signal(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        if stop.is_set():  # a second signal: the operator does not want to wait
            log.warning(
                "%s again: stopping at once (a digest being posted is checked in the channel history at "
                "the next start)",
                name,
            )
            os._exit(128 + signum)
        received.append(name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    runtime = Runtime.start(config)
    handler = start_socket_mode(runtime.app, config)
    log.info("connected to Slack over Socket Mode")
    stop.wait()
    log.info(
        "%s: stopping (closing Socket Mode; finishing replies in progress and any digest being posted)",
        received[0] if received else "stop",
    )
    handler.close()
    runtime.stop()
    log.info("stopped")
    return 0


def drain_listeners(app: App, timeout: float) -> bool:
    """Let the listener threads finish what they started (mention replies, button answers); True if they did."""
    executor = getattr(app.listener_runner, "listener_executor", None)
    if executor is None:
        return True
    return run_within(timeout, lambda: executor.shutdown(wait=True))
