"""Running the app: Socket Mode (the default) or HTTP through waitress with /healthz; token checks and logging
that never shows a token."""

from __future__ import annotations

import json
import logging
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import waitress
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk.errors import SlackApiError

from bot.config import Config, ConfigError
from bot.slack import digest_commands
from bot.slack.app import REJECTED_TOKEN, build_app, setting_help
from bot.slack.papers import Papers
from bot.state import State

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
HTTP_THREADS = 8
DEFAULT_PORT = 3000
MAX_BODY_BYTES = 1 << 20  # Slack's payloads are a few kB; a block_actions body with a long message stays far below

log = logging.getLogger("icml_bot.server")


# ------------------------------------------------------------------ configuration checks


def check_tokens(config: Config, http: bool) -> None:
    """Fail fast with one line naming the variable and where to find it; never echo a token's value."""
    _check("SLACK_BOT_TOKEN", config.bot_token, "xoxb-")
    if http:
        if not config.signing_secret:
            raise ConfigError(f"SLACK_SIGNING_SECRET is not set (needed with --http). "
                              f"{setting_help('SLACK_SIGNING_SECRET')}")
    else:
        if not config.app_token:
            raise ConfigError(f"SLACK_APP_TOKEN is not set (needed for Socket Mode; or run `icml-bot serve --http`). "
                              f"{setting_help('SLACK_APP_TOKEN')}")
        _check("SLACK_APP_TOKEN", config.app_token, "xapp-")


def _check(env: str, value: str, prefix: str) -> None:
    if not value:
        raise ConfigError(f"{env} is not set. {setting_help(env)}")
    if not value.startswith(prefix) or not re.fullmatch(r"[\w-]+", value):
        raise ConfigError(f"{env} is malformed: it must start with {prefix}. {setting_help(env)}")


# ------------------------------------------------------------------ logging


class RedactSecrets(logging.Filter):
    """Replace Slack tokens and the configured secrets in every log line, whatever library logged it."""

    PATTERN = re.compile(r"\b(xox[a-z]|xapp)-[\w-]+")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if len(s) >= 6]

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the formatted message with secrets masked (always keeps the record)."""
        text = record.getMessage()
        clean = self.PATTERN.sub(r"\1-[redacted]", text)
        for secret in self.secrets:
            clean = clean.replace(secret, "[redacted]")
        if clean != text:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info, record.exc_text = None, self.PATTERN.sub(r"\1-[redacted]", exc_text)
        return True


def setup_logging(config: Config) -> None:
    """Log lines to stderr at the configured level, with tokens and the signing secret masked."""
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    redact = RedactSecrets((config.bot_token, config.app_token, config.signing_secret))
    for handler in logging.getLogger().handlers:
        handler.addFilter(redact)


# ------------------------------------------------------------------ HTTP mode


class WsgiApp:
    """POST /slack/events goes to Bolt (which checks the signature: 401 otherwise); GET /healthz needs none."""

    def __init__(self, app: App, papers: Papers) -> None:
        self.bolt = SlackRequestHandler(app, path=EVENTS_PATH)
        self.papers = papers

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Route one request."""
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            return self.health(start_response)
        return self.bolt(environ, start_response)

    def health(self, start_response: Callable[..., Any]) -> Iterable[bytes]:
        """200 with the number of papers when the index answers, 503 when it doesn't."""
        try:
            body, status = {"ok": True, "papers": self.papers.count()}, "200 OK"
        except Exception as exc:  # a health check reports any failure instead of raising
            log.error("health check failed: %s", exc)
            body, status = {"ok": False, "error": type(exc).__name__}, "503 Service Unavailable"
        raw = json.dumps(body).encode()
        start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(raw)))])
        return [raw]


class HttpServer:
    """waitress serving the app; `start()` runs it in a thread (tests, benchmarks), `run()` in this one."""

    def __init__(self, app: App, index_path: Path, host: str = "0.0.0.0", port: int = DEFAULT_PORT,
                 threads: int = HTTP_THREADS) -> None:
        self.wsgi = WsgiApp(app, Papers(index_path))
        self.server = waitress.create_server(self.wsgi, host=host, port=port, threads=threads, ident="icml-bot",
                                             max_request_body_size=MAX_BODY_BYTES)
        self._thread: threading.Thread | None = None

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
        self.server.run()

    def start(self) -> HttpServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self.run, name="icml-bot-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, finish or cancel running requests, and end run()."""
        self.server.task_dispatcher.shutdown(timeout=5)
        # Close the sockets from inside the server's own loop, then wake it so run() returns at once.
        self.server.trigger.pull_trigger(lambda: _close_all(self.server))
        if self._thread is not None:
            self._thread.join(timeout=5)


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
            raise ConfigError(f"SLACK_APP_TOKEN was rejected by Slack ({error}). "
                              f"{setting_help('SLACK_APP_TOKEN')}") from None
        raise ConfigError(f"Slack refused a Socket Mode connection ({error}); check SLACK_APP_TOKEN") from None
    except OSError as exc:
        raise ConfigError(f"cannot reach Slack at SLACK_API_URL={config.api_url} to open Socket Mode "
                          f"({type(exc).__name__}); check the network or SLACK_API_URL") from None
    return handler


# ------------------------------------------------------------------ serve


def serve(config: Config, http: bool = False, host: str = "0.0.0.0", port: int = DEFAULT_PORT) -> int:
    """`icml-bot serve`: check tokens, build the app (auth.test), then serve until SIGTERM or Ctrl-C."""
    check_tokens(config, http)
    setup_logging(config)
    state = State(config.state_path)
    digests = digest_commands.build_desk(config, config.db_path, state)  # checks ICML_DIGEST_CHANNEL first
    app = build_app(config, config.db_path, state, digests=digests)
    digests.start_scheduler()  # one process per state database schedules digests; the others log that they don't
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if http:
        server = HttpServer(app, config.db_path, host=host, port=port).start()
        log.info("serving HTTP on %s%s (health: %s%s)", server.url, EVENTS_PATH, server.url, HEALTH_PATH)
        stop.wait()
        server.stop()
    else:
        handler = start_socket_mode(app, config)
        log.info("connected to Slack over Socket Mode")
        stop.wait()
        handler.close()
    digests.stop()
    log.info("stopped")
    return 0
