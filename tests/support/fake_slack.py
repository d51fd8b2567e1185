"""A local, in-process fake of Slack for tests: Web API, response_url and Socket Mode.

Start it with ``with FakeSlack() as fake:`` (or the ``fake`` fixture / ``serve_fake_slack()``), point the app at it
with ``WebClient(token="xoxb-test", base_url=fake.api_url)`` and assert on what it recorded (``fake.posts()``,
``fake.responses()``, ``fake.calls(...)``). Everything binds to 127.0.0.1 on free ports.

FakeSlack serves HTTP and composes the parts that do the work, each usable as an attribute:
``fake.web`` (slack_web_api: the workspace the Web API answers from), ``fake.response_urls`` (slack_response_url),
``fake.socket`` (slack_socket_mode), ``fake.log`` (slack_calls: what was received), ``fake.faults``
(slack_faults: what to get wrong), ``fake.limits`` (slack_limits: Slack's rate limits, off unless enabled) and
``fake.oauth`` (slack_oauth: oauth.v2.access, workspaces that install the app). ``fake.offline()`` makes Slack
unreachable (connections refused) until ``fake.online()``. The methods below are the short names tests use.
Requests to send the app are built with tests/support/slack_requests.py.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import errno
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from slack_sdk import WebClient

from tests.support.slack_calls import Call, CallLog
from tests.support.slack_faults import FaultPlan
from tests.support.slack_files import SharedFile, TeamSurfaces
from tests.support.slack_limits import RateLimiter
from tests.support.slack_oauth import OAuth
from tests.support.slack_people import People
from tests.support.slack_response_url import ResponseUrls
from tests.support.slack_socket_mode import SocketMode
from tests.support.slack_web_api import DEFAULT_SCOPES, WebApi

__all__ = ["Call", "FakeSlack", "SharedFile", "serve_fake_slack"]

# Fields Slack accepts as JSON-encoded strings inside form bodies (slack_sdk sends them that way for form methods).
_JSON_STRING_FIELDS = ("blocks", "attachments", "metadata", "unfurls", "view", "user_auth_blocks")


class FakeSlack:
    """In-process fake Slack: Web API under ``api_url``, response_urls, and a Socket Mode WebSocket server."""

    def __init__(
        self,
        tokens: set[str] | frozenset[str] | None = None,
        *,
        bot_user_id: str = "UBOT",
        bot_id: str = "BBOT",
        team_id: str = "T1",
        team_domain: str = "icml-test",
        app_id: str = "A1",
        bot_name: str = "icml-bot",
        scopes: str = DEFAULT_SCOPES,
        clock: Callable[[], float] = time.time,
        response_url_max_uses: int | None = 5,
    ) -> None:
        """Configure the fake; nothing listens until start()."""
        # One condition for every part, so that answering a call and recording it is one step.
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._http: _HTTPServer | None = None
        self._port = 0  # kept while offline(), so online() listens where the clients still send
        self._placeholder: socket.socket | None = None  # holds the port while offline()
        self._http_thread: threading.Thread | None = None
        self.log = CallLog(self._cond)
        self.faults = FaultPlan(self._cond, self._stopping)
        self.limits = RateLimiter(self._cond)
        self.response_urls = ResponseUrls(self._cond, response_url_max_uses)
        self.socket = SocketMode(self._cond, app_id)
        self.web = WebApi(
            self._cond,
            lambda: self.socket.url,
            tokens,
            bot_user_id=bot_user_id,
            bot_id=bot_id,
            team_id=team_id,
            team_domain=team_domain,
            app_id=app_id,
            bot_name=bot_name,
            scopes=scopes,
            clock=clock,
        )
        self.tokens = self.web.tokens  # the same set: discard a token to revoke it
        self.surfaces = TeamSurfaces(self._cond, lambda: self.url, self.web.is_member)
        for method in TeamSurfaces.METHODS:
            self.web.more[method] = self.surfaces.answer
        self.shared_files, self.home, self.modals = self.surfaces.shared, self.surfaces.home, self.surfaces.modals
        self.people = People(self._cond)  # users.info (time zones) and conversations.members
        for method in People.METHODS:
            self.web.more[method] = self.people.answer
        self.home_publishes = self.surfaces.home_publishes
        self.oauth = OAuth(self._cond, self.web.tokens, self.web.token_teams, app_id, scopes)
        # Short names for the parts' methods: fake.wait_for() is fake.log.wait_for(), fake.socket_send() is
        # fake.socket.send(), and so on.
        log, faults, web, sock = self.log, self.faults, self.web, self.socket
        self.calls, self.responses, self.wait_for = log.calls, log.responses, log.wait_for
        self.arrived, self.wait_arrived = log.arrived, log.wait_arrived
        self.fail_next, self.delay_next, self.hold_next = faults.fail_next, faults.delay_next, faults.hold_next
        self.fail_response = faults.fail_response
        self.set_thread, self.add_message, self.set_channel = web.set_thread, web.add_message, web.set_channel
        self.history = web.history
        self.socket_connected, self.socket_closed, self.socket_send = sock.connected, sock.closed, sock.send
        self.socket_ack, self.socket_received, self.socket_sent = sock.ack, sock.received, sock.sent
        self.socket_disconnect, self.socket_drop = sock.disconnect, sock.drop

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeSlack:
        """Bind the HTTP and WebSocket servers on 127.0.0.1 (free ports) and serve them in background threads."""
        if self._http is not None:
            return self
        self._stopping.clear()
        self._listen(0)
        self.socket.start()
        return self

    def _listen(self, port: int) -> None:
        self._http = _HTTPServer(("127.0.0.1", port), _Handler)
        self._http.fake = self
        self._port = int(self._http.server_address[1])
        self._http_thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-slack-http", daemon=True
        )
        self._http_thread.start()

    def _close_http(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            if self._http_thread is not None:
                self._http_thread.join(timeout=5)
            self._http = None

    def offline(self) -> None:
        """Slack unreachable: stop listening, so new connections to the Web API are refused (calls under way end).

        The port stays bound (without listening), so that no client's outgoing connection takes it meanwhile."""
        self._close_http()
        if self._port and self._placeholder is None:
            placeholder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            placeholder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            _until_bound(lambda: placeholder.bind(("127.0.0.1", self._port)))
            self._placeholder = placeholder

    def online(self) -> None:
        """Reachable again, on the same port (after offline())."""
        if self._placeholder is not None:
            self._placeholder.close()
            self._placeholder = None
        if self._http is None and self._port:
            _until_bound(lambda: self._listen(self._port))

    def stop(self) -> None:
        """Close client connections, answer held calls, stop both servers and join their threads."""
        self._stopping.set()
        self.faults.release_all()
        self.socket.stop()
        self._close_http()
        if self._placeholder is not None:
            self._placeholder.close()
            self._placeholder = None
        self._port = 0
        with self._cond:
            self._cond.notify_all()

    def __enter__(self) -> FakeSlack:
        """Start the servers."""
        return self.start()

    def __exit__(self, *exc: object) -> None:
        """Stop the servers."""
        self.stop()

    def reset(self) -> None:
        """Forget recorded calls, pending faults/delays, stored messages and socket traffic (servers keep running)."""
        for part in (
            self.log,
            self.faults,
            self.limits,
            self.response_urls,
            self.web,
            self.socket,
            self.surfaces,
            self.people,
        ):
            part.clear()

    # ------------------------------------------------------------------ addresses

    @property
    def port(self) -> int:
        """Port of the HTTP server (Web API and response_urls)."""
        if not self._port:
            raise RuntimeError("FakeSlack is not started")
        return self._port

    @property
    def url(self) -> str:
        """Base HTTP URL, e.g. ``http://127.0.0.1:PORT/``."""
        return f"http://127.0.0.1:{self.port}/"

    @property
    def api_url(self) -> str:
        """Web API base URL ending in ``/api/`` (pass as ``WebClient(base_url=...)``)."""
        return f"{self.url}api/"

    @property
    def ws_url(self) -> str:
        """Socket Mode WebSocket URL (what apps.connections.open hands out, minus the ticket query)."""
        return self.socket.url

    def response_url(self, name: str = "r1") -> str:
        """A response_url whose POSTs are recorded under ``name``."""
        return f"{self.url}response/{name}"

    def web_client(self, token: str = "xoxb-test", **kwargs: Any) -> WebClient:
        """A ``slack_sdk.WebClient`` pointed at this fake."""
        return WebClient(token=token, base_url=self.api_url, **kwargs)

    # ------------------------------------------------------------------ short names for what tests ask most

    def posts(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Params of successful chat.postMessage calls (optionally only to ``channel``)."""
        return self.log.params("chat.postMessage", channel)

    def ephemerals(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Params of successful chat.postEphemeral calls."""
        return self.log.params("chat.postEphemeral", channel)

    def updates(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Params of successful chat.update calls."""
        return self.log.params("chat.update", channel)

    @property
    def socket_connection_count(self) -> int:
        """How many Socket Mode connections were accepted in total (reconnects included)."""
        return self.socket.connection_count

    # ------------------------------------------------------------------ HTTP

    def _handle_http(self, req: _Handler) -> None:
        parts = urlsplit(req.path)
        length = int(req.headers.get("Content-Length") or 0)
        body = req.rfile.read(length) if length > 0 else b""
        headers = {k.lower(): v for k, v in req.headers.items()}
        query = {k: v[0] if len(v) == 1 else v for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        try:
            parsed = _parse_body(body, headers.get("content-type", ""))
        except (ValueError, UnicodeDecodeError):
            parsed = {"_raw": body.decode("utf-8", "replace")}
        call = Call("api", "", parts.path, _decode_json_fields({**query, **parsed}), headers, body, time.time())
        extra: dict[str, str] = {}
        if parts.path.startswith("/api/"):
            call.method = parts.path[5:]
            extra, payload = self._answer_api(call)
            if "_body" in payload:  # fail_next(body=...): e.g. an HTML 500 page instead of JSON
                raw, ctype = str(payload["_body"]).encode("utf-8"), "text/html"
            else:
                raw, ctype = json.dumps(payload).encode("utf-8"), "application/json; charset=utf-8"
        # A file's bytes, POSTed raw to the URL getUploadURLExternal gave
        elif parts.path.startswith("/upload/"):
            call.kind, call.method, call.name = "upload", "upload", parts.path[8:]
            self.log.arrive("upload")
            call.status, text = self.surfaces.upload(str(call.name), body)
            call.ok, call.response = call.status == 200, text
            self.log.record(call)
            raw, ctype = text.encode("utf-8"), "text/plain"
        elif parts.path.startswith("/response/"):
            call.kind, call.method, call.name = "response", "response", parts.path[10:]
            raw, ctype = self._answer_response(call).encode("utf-8"), "text/html"
        else:
            call.status, raw, ctype = 404, b"not found", "text/plain"
        try:
            req.send_response(call.status)
            req.send_header("Content-Type", ctype)
            req.send_header("Content-Length", str(len(raw)))
            for key, value in extra.items():
                req.send_header(key, value)
            req.end_headers()
            req.wfile.write(raw)
        except OSError:
            # The client gave up (e.g. its timeout fired during delay_next); Slack would not notice either
            pass

    def _answer_api(self, call: Call) -> tuple[dict[str, str], dict[str, Any]]:
        auth = call.headers.get("authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else str(call.params.get("token", "") or "")
        call.params.pop("token", None)
        channel = call.params.get("channel")
        channel = channel if isinstance(channel, str) else None
        self.log.arrive(call.method, channel)
        call.delayed = self.faults.wait_if_delayed(call.method, "*", channel=channel)
        extra: dict[str, str] = {}
        payload: dict[str, Any] | None
        with self._cond:
            # Authenticated by the app's client id and secret, not a token
            if call.method == "oauth.v2.access":
                payload = self.oauth.access(call.params, call.headers)
                call.ok, call.error, call.response = payload["ok"], payload.get("error"), payload
                self.log.record(call)
                return extra, payload
            payload = self.web.refuse(call.method, token)
            team = self.web.token_teams.get(token, self.web.team_id)
            if payload is None and (wait := self.limits.check(call.method, team, channel)) is not None:
                call.status, payload = 429, {"ok": False, "error": "ratelimited"}
                extra["Retry-After"] = str(wait)
            elif payload is None and (fault := self.faults.take_fault(call.method, channel)) is not None:
                call.injected = True
                if fault.carried_out:  # Slack did it, then answered with an error all the same
                    self.web.answer(call.method, call.params, token)
                call.status, payload = fault.status, {"ok": False, "error": fault.error}
                if fault.body is not None:
                    payload["_body"] = fault.body
                if fault.retry_after is not None:
                    extra["Retry-After"] = str(fault.retry_after)
            elif payload is None:
                call.status, payload, extra = self.web.answer(call.method, call.params, token)
            call.ok = call.status == 200 and payload.get("ok") is True
            call.error = None if call.ok else str(payload.get("error"))
            call.response = payload
            self.log.record(call)
        return extra, payload

    def _answer_response(self, call: Call) -> str:
        self.log.arrive("response")
        call.delayed = self.faults.wait_if_delayed("response")
        with self._cond:
            fault = self.faults.take_response_fault(str(call.name))
            call.status, text = self.response_urls.answer(str(call.name), fault)
            call.ok, call.injected, call.response = call.status == 200, fault is not None, text
            call.error = None if call.ok else text
            self.log.record(call)
        return text


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # SO_REUSEADDR (the port itself is chosen free by the kernel): the connections it accepts inherit it, so after
    # offline() their TIME_WAIT leftovers do not keep online() from binding the same port again.
    allow_reuse_address = True
    fake: FakeSlack


def _until_bound(bind: Callable[[], object], seconds: float = 10.0) -> None:
    """Bind the fake's port again, waiting for connections the closed server was still answering to end."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            bind()
            return
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request stderr logging."""

    def do_POST(self) -> None:
        """Handle every request through the fake."""
        self.server.fake._handle_http(self)

    do_GET = do_POST


def _decode_json_fields(params: dict[str, Any]) -> dict[str, Any]:
    for key in _JSON_STRING_FIELDS:
        value = params.get(key)
        if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
            with contextlib.suppress(json.JSONDecodeError):
                params[key] = json.loads(value)
    return params


def _parse_body(body: bytes, content_type: str) -> dict[str, Any]:
    ctype = content_type.split(";", 1)[0].strip().lower()
    if not body:
        return {}
    if ctype == "application/json" or (not ctype and body.lstrip()[:1] == b"{"):
        data = json.loads(body.decode("utf-8"))
        return data if isinstance(data, dict) else {"_json": data}
    if ctype == "multipart/form-data":
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
        )
        out: dict[str, Any] = {}
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not name:
                continue
            raw = part.get_payload(decode=True)  # bytes for a leaf part
            payload = raw if isinstance(raw, bytes) else b""
            out[str(name)] = payload if part.get_filename() else payload.decode("utf-8", "replace")
        return out
    pairs = parse_qs(body.decode("utf-8"), keep_blank_values=True)
    return {k: v[0] if len(v) == 1 else v for k, v in pairs.items()}


def serve_fake_slack(**kwargs: Any) -> Iterator[FakeSlack]:
    """Generator for fixtures: ``yield from serve_fake_slack()`` starts a FakeSlack and stops it afterwards."""
    with FakeSlack(**kwargs) as fake:
        yield fake
