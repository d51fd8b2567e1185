"""The WSGI gate in front of Bolt: /healthz unsigned, everything else signed by Slack or refused with 401."""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk.signature import SignatureVerifier

from bot.logs import RateLimit
from bot.search.reader import Papers
from bot.state import State

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
# Slack's payloads are a few kB; a block_actions body with a long message stays far below
MAX_BODY_BYTES = 1 << 20
SIGNATURE_MAX_AGE = 300  # seconds: Slack's replay window

log = logging.getLogger(__name__)


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
        # "Add to Slack": a browser, unsigned
        if self.oauth_paths and path in self.oauth_paths and method == "GET":
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
