"""A local, in-process fake of Slack for tests: Web API, response_url and Socket Mode.

Start it with ``with FakeSlack() as fake:`` (or the ``fake_slack`` fixture / ``serve_fake_slack()``), point the
app at it with ``WebClient(token="xoxb-test", base_url=fake.api_url)`` and assert on what it recorded
(``fake.posts()``, ``fake.responses()``, ``fake.calls(...)``). Everything binds to 127.0.0.1 on free ports.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import hashlib
import hmac
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from slack_sdk import WebClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

__all__ = [
    "Call",
    "FakeSlack",
    "block_action_payload",
    "close_socket_mode",
    "event_body",
    "fake_slack",
    "form_body",
    "interactive_body",
    "mention_event",
    "serve_fake_slack",
    "sign",
    "slash_form",
]

DEFAULT_TOKENS = frozenset({"xoxb-test", "xapp-test"})
DEFAULT_SCOPES = "commands,chat:write,chat:write.public,app_mentions:read,channels:history,groups:history"
# Unroutable local default for helpers used without a fake: a POST there fails fast instead of reaching slack.com.
UNSET_RESPONSE_URL = "http://127.0.0.1:9/response/unset"

# Fields Slack accepts as JSON-encoded strings inside form bodies (slack_sdk sends them that way for form methods).
_JSON_STRING_FIELDS = ("blocks", "attachments", "metadata", "unfurls", "view", "user_auth_blocks")
_TEXT_FIELDS = ("text", "blocks", "attachments")


@dataclass
class Call:
    """One request the fake received (Web API call or response_url POST)."""

    kind: str  # "api" or "response"
    method: str  # Web API method ("chat.postMessage") or "response" for response_url POSTs
    path: str
    params: dict[str, Any]
    headers: dict[str, str]
    body: bytes
    time: float
    status: int = 200
    ok: bool = True
    error: str | None = None
    name: str | None = None  # response_url name
    injected: bool = False  # True when the answer came from fail_next()/fail_response()
    delayed: float = 0.0  # seconds the fake waited before answering (delay_next())
    response: Any = None  # what the fake answered (dict for the Web API, str for response_url)

    @property
    def token(self) -> str | None:
        """The bearer token the call was made with, if any."""
        auth = self.headers.get("authorization", "")
        return auth[7:].strip() if auth.lower().startswith("bearer ") else None

    def summary(self) -> str:
        """A short one-line description for assertion messages."""
        keys = {k: self.params[k] for k in ("channel", "text", "thread_ts", "ts") if k in self.params}
        label = f"{self.method}:{self.name}" if self.name else self.method
        return f"{label} status={self.status} ok={self.ok} error={self.error} {keys}"


@dataclass
class _Fault:
    error: str
    status: int
    retry_after: int | None
    body: str | None
    times: int


@dataclass
class _Delay:
    seconds: float
    times: int


@dataclass
class _SocketState:
    connections: list[ServerConnection] = field(default_factory=list)
    total: int = 0
    received: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False
    fake: FakeSlack


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request stderr logging."""

    def do_POST(self) -> None:
        """Handle every request through the fake."""
        self.server.fake._handle_http(self)

    do_GET = do_POST


def _now_ts(micros: int) -> str:
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


def _ts_key(ts: Any) -> Decimal:
    try:
        return Decimal(str(ts))
    except (InvalidOperation, ValueError):
        return Decimal(0)


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() in ("1", "true")


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
            payload = part.get_payload(decode=True) or b""
            out[str(name)] = payload if part.get_filename() else payload.decode("utf-8", "replace")
        return out
    pairs = parse_qs(body.decode("utf-8"), keep_blank_values=True)
    return {k: v[0] if len(v) == 1 else v for k, v in pairs.items()}


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
        self.tokens = set(DEFAULT_TOKENS if tokens is None else tokens)
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.team_id = team_id
        self.team_domain = team_domain
        self.app_id = app_id
        self.bot_name = bot_name
        self.scopes = scopes
        self.response_url_max_uses = response_url_max_uses
        self._clock = clock
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._http: _HTTPServer | None = None
        self._http_thread: threading.Thread | None = None
        self._ws: Server | None = None
        self._ws_thread: threading.Thread | None = None
        self._init_state()

    def _init_state(self) -> None:
        self._calls: list[Call] = []
        self._faults: dict[str, list[_Fault]] = {}
        self._delays: dict[str, list[_Delay]] = {}
        self._response_faults: dict[str | None, list[_Fault]] = {}
        self._response_uses: dict[str, int] = {}
        self._messages: dict[str, list[dict[str, Any]]] = {}
        self._channels: dict[str, dict[str, Any]] = {}
        self._last_ts = 0
        self._socket = _SocketState()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeSlack:
        """Bind the HTTP and WebSocket servers on 127.0.0.1 (free ports) and serve them in background threads."""
        if self._http is not None:
            return self
        self._stopping.clear()
        self._http = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._http.fake = self
        self._http_thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-slack-http", daemon=True
        )
        self._http_thread.start()
        self._ws = serve(
            self._ws_handler,
            "127.0.0.1",
            0,
            compression=None,
            close_timeout=1,
            server_header="fake-slack",
            logger=None,
        )
        self._ws_thread = threading.Thread(target=self._ws.serve_forever, name="fake-slack-ws", daemon=True)
        self._ws_thread.start()
        return self

    def stop(self) -> None:
        """Close client connections, stop both servers and join their threads."""
        self._stopping.set()
        if self._ws is not None:
            self._ws.shutdown()
            if self._ws_thread is not None:
                self._ws_thread.join(timeout=5)
            self._ws = None
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            if self._http_thread is not None:
                self._http_thread.join(timeout=5)
            self._http = None
        with self._cond:
            self._cond.notify_all()

    def __enter__(self) -> FakeSlack:
        """Start the servers."""
        return self.start()

    def __exit__(self, *exc: object) -> None:
        """Stop the servers."""
        self.stop()

    # ------------------------------------------------------------------ addresses

    @property
    def port(self) -> int:
        """Port of the HTTP server (Web API and response_urls)."""
        if self._http is None:
            raise RuntimeError("FakeSlack is not started")
        return int(self._http.server_address[1])

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
        if self._ws is None:
            raise RuntimeError("FakeSlack is not started")
        return f"ws://127.0.0.1:{self._ws.socket.getsockname()[1]}/link"

    def response_url(self, name: str = "r1") -> str:
        """A response_url whose POSTs are recorded under ``name``."""
        return f"{self.url}response/{name}"

    def web_client(self, token: str = "xoxb-test", **kwargs: Any) -> WebClient:
        """A ``slack_sdk.WebClient`` pointed at this fake."""
        return WebClient(token=token, base_url=self.api_url, **kwargs)

    # ------------------------------------------------------------------ test setup

    def set_thread(self, channel: str, ts: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Preload a thread (parent first) returned by conversations.replies; missing ts/thread_ts are filled in."""
        stored = []
        with self._cond:
            for i, message in enumerate(messages):
                msg = {"type": "message", **message}
                if "ts" not in msg:
                    msg["ts"] = ts if i == 0 else self._next_ts()
                msg.setdefault("thread_ts", ts)
                if msg["ts"] == ts:
                    msg.setdefault("reply_count", len(messages) - 1)
                stored.append(msg)
                self._store_message(channel, msg)
        return stored

    def add_message(self, channel: str, message: dict[str, Any]) -> dict[str, Any]:
        """Preload one channel message (seen by conversations.history); returns it with its ts."""
        with self._cond:
            msg = {"type": "message", **message}
            msg.setdefault("ts", self._next_ts())
            self._store_message(channel, msg)
        return msg

    def set_channel(self, channel: str, **info: Any) -> None:
        """Override fields conversations.info returns for ``channel`` (e.g. ``is_member=False``)."""
        with self._cond:
            self._channels.setdefault(channel, {}).update(info)

    def history(self, channel: str) -> list[dict[str, Any]]:
        """All stored messages of a channel (posts, preloads, thread replies), oldest first."""
        with self._cond:
            return sorted((dict(m) for m in self._messages.get(channel, [])), key=lambda m: _ts_key(m["ts"]))

    # ------------------------------------------------------------------ fault injection

    def fail_next(
        self,
        method: str,
        error: str = "ratelimited",
        status: int | None = None,
        retry_after: int | None = None,
        times: int = 1,
        body: str | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` ("*" = any) fail.

        ``ratelimited`` defaults to HTTP 429 with ``Retry-After: 1``; other errors default to HTTP 200 with
        ``{"ok": false, "error": error}``; pass ``status=500`` for a server error; ``body`` replaces the JSON body.
        """
        if status is None:
            status = 429 if error == "ratelimited" else 200
        if status == 429 and retry_after is None:
            retry_after = 1
        with self._cond:
            self._faults.setdefault(method, []).append(_Fault(error, status, retry_after, body, times))

    def delay_next(self, method: str, seconds: float, times: int = 1) -> None:
        """Make the next ``times`` calls of ``method`` ("*" = any, "response" = response_urls) answer late."""
        with self._cond:
            self._delays.setdefault(method, []).append(_Delay(seconds, times))

    def fail_response(
        self, name: str | None = None, status: int = 404, body: str = "expired_url", times: int = 1
    ) -> None:
        """Make the next ``times`` POSTs to response_url ``name`` (None = any) fail with ``status``/``body``."""
        with self._cond:
            self._response_faults.setdefault(name, []).append(_Fault(body, status, None, body, times))

    @staticmethod
    def _take(table: dict[Any, list[Any]], *keys: Any) -> Any:
        for key in keys:
            queue = table.get(key)
            if queue:
                item = queue[0]
                item.times -= 1
                if item.times <= 0:
                    queue.pop(0)
                return item
        return None

    # ------------------------------------------------------------------ recording API

    def calls(self, method: str | None = None) -> list[Call]:
        """Recorded calls (all, or only ``method``; "response" = response_url POSTs), oldest first."""
        with self._cond:
            return [c for c in self._calls if method is None or c.method == method]

    def posts(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Params of successful chat.postMessage calls (optionally only to ``channel``)."""
        return [
            c.params
            for c in self.calls("chat.postMessage")
            if c.ok and (channel is None or c.params.get("channel") == channel)
        ]

    def ephemerals(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Params of successful chat.postEphemeral calls."""
        return [
            c.params
            for c in self.calls("chat.postEphemeral")
            if c.ok and (channel is None or c.params.get("channel") == channel)
        ]

    def updates(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Params of successful chat.update calls."""
        return [
            c.params
            for c in self.calls("chat.update")
            if c.ok and (channel is None or c.params.get("channel") == channel)
        ]

    def responses(self, name: str | None = None) -> list[dict[str, Any]]:
        """JSON bodies of successful response_url POSTs (optionally only for ``name``)."""
        return [c.params for c in self.calls("response") if c.ok and (name is None or c.name == name)]

    def wait_for(
        self,
        predicate_or_method: str | Callable[[Call], bool],
        count: int = 1,
        timeout: float = 5.0,
        ok: bool | None = None,
    ) -> list[Call]:
        """Block until ``count`` recorded calls match (method name or predicate; ``ok`` filters); return them.

        Raises AssertionError listing everything received when ``timeout`` expires.
        """
        if isinstance(predicate_or_method, str):
            wanted = predicate_or_method

            def matches(call: Call) -> bool:
                return call.method == wanted

            label = wanted
        else:
            matches = predicate_or_method
            label = getattr(predicate_or_method, "__name__", "predicate")
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [c for c in self._calls if matches(c) and (ok is None or c.ok == ok)]
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    got = "\n  ".join(c.summary() for c in self._calls) or "(nothing)"
                    raise AssertionError(
                        f"timed out after {timeout}s waiting for {count} x {label} (ok={ok}), "
                        f"matched {len(found)}; received:\n  {got}"
                    )
                self._cond.wait(remaining)

    def reset(self) -> None:
        """Forget recorded calls, pending faults/delays, stored messages and socket traffic (servers keep running)."""
        with self._cond:
            connections = self._socket.connections
            total = self._socket.total
            self._init_state()
            self._socket.connections = connections
            self._socket.total = total

    # ------------------------------------------------------------------ HTTP handling

    def _next_ts(self) -> str:
        micros = max(int(self._clock() * 1_000_000), self._last_ts + 100)
        self._last_ts = micros
        return _now_ts(micros)

    def _store_message(self, channel: str, msg: dict[str, Any]) -> None:
        msgs = self._messages.setdefault(channel, [])
        msgs[:] = [m for m in msgs if m.get("ts") != msg["ts"]]
        msgs.append(msg)

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
        params = _decode_json_fields({**query, **parsed})
        if parts.path.startswith("/api/"):
            status, payload, extra = self._handle_api(parts.path[5:], parts.path, params, headers, body)
            if "_body" in payload:  # fail_next(body=...): e.g. an HTML 500 page instead of JSON
                raw, ctype = str(payload["_body"]).encode("utf-8"), "text/html"
            else:
                raw, ctype = json.dumps(payload).encode("utf-8"), "application/json; charset=utf-8"
        elif parts.path.startswith("/response/"):
            status, text = self._handle_response(parts.path[10:], parts.path, params, headers, body)
            raw, ctype, extra = text.encode("utf-8"), "text/html", {}
        else:
            status, raw, ctype, extra = 404, b"not found", "text/plain", {}
        try:
            req.send_response(status)
            req.send_header("Content-Type", ctype)
            req.send_header("Content-Length", str(len(raw)))
            for key, value in extra.items():
                req.send_header(key, value)
            req.end_headers()
            req.wfile.write(raw)
        except OSError:
            pass  # the client gave up (e.g. its timeout fired during delay_next); Slack would not notice either

    @staticmethod
    def _token_allowed(method: str, token: str) -> bool:
        # App-level tokens (xapp-) open Socket Mode connections; bot tokens cannot, and xapp- cannot post.
        if method == "apps.connections.open":
            return token.startswith("xapp-")
        return not token.startswith("xapp-") or method.startswith("apps.") or method == "auth.test"

    def _handle_api(
        self, method: str, path: str, params: dict[str, Any], headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        received = time.time()
        auth = headers.get("authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else str(params.pop("token", "") or "")
        params.pop("token", None)
        with self._cond:
            delay = self._take(self._delays, method, "*")
        delayed = 0.0
        if delay is not None:
            delayed = delay.seconds
            self._stopping.wait(delay.seconds)
        extra: dict[str, str] = {}
        injected = False
        with self._cond:
            if not token or token not in self.tokens:
                status, payload = 200, {"ok": False, "error": "invalid_auth"}
            elif not self._token_allowed(method, token):
                status, payload = 200, {"ok": False, "error": "not_allowed_token_type"}
            elif (fault := self._take(self._faults, method, "*")) is not None:
                injected = True
                status = fault.status
                payload = {"ok": False, "error": fault.error}
                if fault.body is not None:
                    payload["_body"] = fault.body
                if fault.retry_after is not None:
                    extra["Retry-After"] = str(fault.retry_after)
            else:
                status, payload, extra = self._dispatch(method, params, token)
            ok = status == 200 and payload.get("ok") is True
            call = Call(
                kind="api",
                method=method,
                path=path,
                params=params,
                headers=headers,
                body=body,
                time=received,
                status=status,
                ok=ok,
                error=None if ok else str(payload.get("error")),
                injected=injected,
                delayed=delayed,
                response=payload,
            )
            self._calls.append(call)
            self._cond.notify_all()
        return status, payload, extra

    def _handle_response(
        self, name: str, path: str, params: dict[str, Any], headers: dict[str, str], body: bytes
    ) -> tuple[int, str]:
        received = time.time()
        with self._cond:
            delay = self._take(self._delays, "response")
        delayed = 0.0
        if delay is not None:
            delayed = delay.seconds
            self._stopping.wait(delay.seconds)
        with self._cond:
            fault = self._take(self._response_faults, name, None)
            uses = self._response_uses.get(name, 0)
            if fault is not None:
                status, text = fault.status, fault.body or fault.error
            elif self.response_url_max_uses is not None and uses >= self.response_url_max_uses:
                # Slack allows 5 uses per response_url (within 30 min); the exact error body is not verified.
                status, text = 404, "used_url"
            else:
                self._response_uses[name] = uses + 1
                status, text = 200, "ok"
            call = Call(
                kind="response",
                method="response",
                path=path,
                params=params,
                headers=headers,
                body=body,
                time=received,
                status=status,
                ok=status == 200,
                error=None if status == 200 else text,
                name=name,
                injected=fault is not None,
                delayed=delayed,
                response=text,
            )
            self._calls.append(call)
            self._cond.notify_all()
        return status, text

    def _bot_message(self, params: dict[str, Any], ts: str) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": "message",
            "subtype": "bot_message" if params.get("username") else None,
            "text": params.get("text", ""),
            "user": self.bot_user_id,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "team": self.team_id,
            "ts": ts,
        }
        for key in ("blocks", "attachments", "thread_ts", "metadata"):
            if params.get(key) not in (None, ""):
                msg[key] = params[key]
        if _truthy(params.get("reply_broadcast")):
            msg["reply_broadcast"] = True
        return {k: v for k, v in msg.items() if v is not None}

    def _dispatch(self, method: str, params: dict[str, Any], token: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        channel = str(params.get("channel") or "")
        if method == "auth.test":
            payload: dict[str, Any] = {
                "ok": True,
                "url": f"https://{self.team_domain}.slack.com/",
                "team": "ICML Test",
                "user": self.bot_name,
                "team_id": self.team_id,
                "user_id": self.bot_user_id,
                "bot_id": self.bot_id,
                "is_enterprise_install": False,
            }
            return 200, payload, {"x-oauth-scopes": self.scopes, "x-accepted-oauth-scopes": ""}
        if method == "apps.connections.open":
            ticket = uuid.uuid4()
            return 200, {"ok": True, "url": f"{self.ws_url}/?ticket={ticket}&app_id={self.app_id}"}, {}
        if method == "chat.postMessage":
            if not channel:
                return 200, {"ok": False, "error": "channel_not_found"}, {}
            if not any(params.get(k) for k in _TEXT_FIELDS):
                return 200, {"ok": False, "error": "no_text"}, {}
            ts = self._next_ts()
            msg = self._bot_message(params, ts)
            self._store_message(channel, msg)
            return 200, {"ok": True, "channel": channel, "ts": ts, "message": dict(msg)}, {}
        if method == "chat.postEphemeral":
            if not channel:
                return 200, {"ok": False, "error": "channel_not_found"}, {}
            if not params.get("user"):
                return 200, {"ok": False, "error": "user_not_in_channel"}, {}
            if not any(params.get(k) for k in _TEXT_FIELDS):
                return 200, {"ok": False, "error": "no_text"}, {}
            return 200, {"ok": True, "message_ts": self._next_ts()}, {}
        if method == "chat.update":
            if not channel:
                return 200, {"ok": False, "error": "channel_not_found"}, {}
            ts = str(params.get("ts") or "")
            if not ts:
                return 200, {"ok": False, "error": "message_not_found"}, {}
            msg = next((m for m in self._messages.get(channel, []) if m.get("ts") == ts), None)
            if msg is None:
                msg = self._bot_message(params, ts)
            else:
                for key in ("text", "blocks", "attachments", "metadata"):
                    if key in params:
                        msg[key] = params[key]
                msg["edited"] = {"user": self.bot_user_id, "ts": self._next_ts()}
            text = params.get("text", msg.get("text", ""))
            return 200, {"ok": True, "channel": channel, "ts": ts, "text": text, "message": dict(msg)}, {}
        if method == "chat.delete":
            ts = str(params.get("ts") or "")
            msgs = self._messages.get(channel, [])
            if not any(m.get("ts") == ts for m in msgs):
                return 200, {"ok": False, "error": "message_not_found"}, {}
            msgs[:] = [m for m in msgs if m.get("ts") != ts]
            return 200, {"ok": True, "channel": channel, "ts": ts}, {}
        if method == "conversations.history":
            return 200, self._history(channel, params), {}
        if method == "conversations.replies":
            return 200, self._replies(channel, params), {}
        if method == "conversations.info":
            info = {
                "id": channel,
                "name": channel.lower(),
                "is_channel": True,
                "is_group": False,
                "is_im": False,
                "is_mpim": False,
                "is_private": False,
                "is_archived": False,
                "is_general": False,
                "is_member": True,
                "created": 1600000000,
                "creator": "U0",
                "context_team_id": self.team_id,
            }
            info.update(self._channels.get(channel, {}))
            return 200, {"ok": True, "channel": info}, {}
        return 200, {"ok": True}, {}

    @staticmethod
    def _window(params: dict[str, Any]) -> tuple[Decimal, Decimal, bool, int]:
        oldest = _ts_key(params.get("oldest") or 0)
        latest = _ts_key(params.get("latest")) if params.get("latest") else Decimal("Infinity")
        inclusive = _truthy(params.get("inclusive"))
        limit = int(params.get("limit") or 100)
        return oldest, latest, inclusive, max(limit, 1)

    def _history(self, channel: str, params: dict[str, Any]) -> dict[str, Any]:
        oldest, latest, inclusive, limit = self._window(params)
        msgs = []
        for m in self._messages.get(channel, []):
            is_reply = m.get("thread_ts") not in (None, m.get("ts"))
            if is_reply and not m.get("reply_broadcast"):
                continue  # thread replies only show up in conversations.replies
            key = _ts_key(m["ts"])
            if (oldest < key < latest) or (inclusive and key in (oldest, latest)):
                msgs.append(dict(m))
        msgs.sort(key=lambda m: _ts_key(m["ts"]), reverse=True)
        return {
            "ok": True,
            "messages": msgs[:limit],
            "has_more": len(msgs) > limit,
            "pin_count": 0,
            "channel_actions_ts": None,
            "channel_actions_count": 0,
            "response_metadata": {"next_cursor": ""},
        }

    def _replies(self, channel: str, params: dict[str, Any]) -> dict[str, Any]:
        ts = str(params.get("ts") or "")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        msgs = [dict(m) for m in self._messages.get(channel, []) if m.get("ts") == ts or m.get("thread_ts") == ts]
        if not msgs:
            return {"ok": False, "error": "thread_not_found"}
        msgs.sort(key=lambda m: _ts_key(m["ts"]))
        _, _, _, limit = self._window(params)
        return {
            "ok": True,
            "messages": msgs[:limit],
            "has_more": len(msgs) > limit,
            "response_metadata": {"next_cursor": ""},
        }

    # ------------------------------------------------------------------ Socket Mode

    def _ws_handler(self, conn: ServerConnection) -> None:
        if not conn.request or not conn.request.path.startswith("/link"):
            conn.close(1008, "unknown path")
            return
        with self._cond:
            num = len(self._socket.connections) + 1
        hello = {
            "type": "hello",
            "num_connections": num,
            "debug_info": {"host": "applink-fake-1", "build_number": 1, "approximate_connection_time": 18060},
            "connection_info": {"app_id": self.app_id},
        }
        try:
            conn.send(json.dumps(hello))
        except ConnectionClosed:
            return
        with self._cond:
            self._socket.connections.append(conn)
            self._socket.total += 1
            self._cond.notify_all()
        try:
            for raw in conn:
                try:
                    message = json.loads(raw)
                except (TypeError, ValueError):
                    message = {"_raw": raw}
                with self._cond:
                    self._socket.received.append(message if isinstance(message, dict) else {"_json": message})
                    self._cond.notify_all()
        except ConnectionClosed:
            pass
        finally:
            with self._cond:
                if conn in self._socket.connections:
                    self._socket.connections.remove(conn)
                self._cond.notify_all()

    @property
    def socket_connection_count(self) -> int:
        """How many Socket Mode connections were accepted in total (reconnects included)."""
        with self._cond:
            return self._socket.total

    def socket_connected(self, timeout: float = 5.0, count: int = 1) -> bool:
        """Wait until a client is connected and at least ``count`` connections were accepted in total."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (self._socket.connections and self._socket.total >= count):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def _current_connection(self, timeout: float) -> ServerConnection:
        if not self.socket_connected(timeout):
            raise AssertionError(f"no Socket Mode client connected within {timeout}s")
        with self._cond:
            return self._socket.connections[-1]

    def socket_send(
        self,
        envelope_type: str,
        payload: dict[str, Any],
        retry_attempt: int | None = None,
        retry_reason: str | None = None,
        *,
        envelope_id: str | None = None,
        accepts_response_payload: bool | None = None,
        timeout: float = 5.0,
    ) -> str:
        """Send an envelope to the newest connected client and return its envelope_id.

        ``retry_attempt``/``retry_reason`` default to 0/"" for events_api and are omitted for other types unless
        given (as Slack does); ``accepts_response_payload`` defaults to True for slash_commands and interactive.
        """
        conn = self._current_connection(timeout)
        envelope_id = envelope_id or str(uuid.uuid4())
        if accepts_response_payload is None:
            accepts_response_payload = envelope_type in ("slash_commands", "interactive")
        envelope: dict[str, Any] = {
            "envelope_id": envelope_id,
            "type": envelope_type,
            "payload": payload,
            "accepts_response_payload": accepts_response_payload,
        }
        if envelope_type == "events_api" or retry_attempt is not None or retry_reason is not None:
            envelope["retry_attempt"] = retry_attempt or 0
            envelope["retry_reason"] = retry_reason or ""
        self._socket_send_raw(conn, envelope)
        return envelope_id

    def _socket_send_raw(self, conn: ServerConnection, message: dict[str, Any]) -> None:
        try:
            conn.send(json.dumps(message))
        except ConnectionClosed as e:
            raise AssertionError(f"Socket Mode client disconnected before the message was sent: {e}") from e
        with self._cond:
            self._socket.sent.append(message)

    def socket_ack(self, envelope_id: str, timeout: float = 5.0) -> dict[str, Any]:
        """Wait for the client's ack of ``envelope_id`` and return it (``payload`` key only if the app sent one)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for message in self._socket.received:
                    if message.get("envelope_id") == envelope_id:
                        return message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"no ack for envelope {envelope_id} within {timeout}s; received: {self._socket.received}"
                    )
                self._cond.wait(remaining)

    def socket_received(self) -> list[dict[str, Any]]:
        """Every message the clients sent over Socket Mode (acks), oldest first."""
        with self._cond:
            return list(self._socket.received)

    def socket_sent(self) -> list[dict[str, Any]]:
        """Every envelope/control message the fake sent (hello messages excluded)."""
        with self._cond:
            return list(self._socket.sent)

    def socket_disconnect(self, reason: str = "refresh_requested", timeout: float = 5.0) -> None:
        """Send Slack's ``{"type": "disconnect"}`` message, asking the client to reconnect to a new URL."""
        conn = self._current_connection(timeout)
        self._socket_send_raw(conn, {"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-fake-1"}})

    def socket_drop(self, graceful: bool = True, timeout: float = 5.0) -> None:
        """Close the newest connection from the server side (close frame 1001, or an abrupt TCP reset)."""
        conn = self._current_connection(timeout)
        if graceful:
            conn.close(1001, "going away")
        else:
            with contextlib.suppress(OSError):
                conn.socket.shutdown(socket.SHUT_RDWR)
            conn.close_socket()


# ---------------------------------------------------------------------- pytest helpers


def close_socket_mode(handler: Any, fake: FakeSlack | None = None) -> None:
    """Close a Bolt/slack_sdk Socket Mode handler (or client) fast, without it reconnecting.

    The built-in client's close() otherwise blocks up to 3 s (its socket receive timeout) plus up to 1 s (its
    message-queue poll); closing the connection from the fake's side first and waking the queue avoids both.
    """
    client = getattr(handler, "client", handler)
    client.auto_reconnect_enabled = False
    if fake is not None:
        with fake._cond:
            connections = list(fake._socket.connections)
        for conn in connections:
            conn.close(1001, "test finished")
    queue = getattr(client, "message_queue", None)
    if queue is not None:
        client.closed = True  # stop the message processor loop ...
        queue.put(None)  # ... and wake it from its 1 s queue.get() (None messages are skipped)
    handler.close()


def serve_fake_slack(**kwargs: Any) -> Iterator[FakeSlack]:
    """Generator for fixtures: ``yield from serve_fake_slack()`` starts a FakeSlack and stops it afterwards."""
    with FakeSlack(**kwargs) as fake:
        yield fake


@pytest.fixture(name="fake_slack")
def fake_slack() -> Iterator[FakeSlack]:
    """Pytest fixture (import it into a test module or conftest) yielding a started FakeSlack."""
    yield from serve_fake_slack()


# ---------------------------------------------------------------------- request helpers


def sign(secret: str, body: bytes | str, timestamp: int | None = None) -> dict[str, str]:
    """Slack request-signing headers for ``body`` (HMAC-SHA256 of ``v0:{ts}:{body}``)."""
    ts = str(int(time.time()) if timestamp is None else int(timestamp))
    raw = body.encode("utf-8") if isinstance(body, str) else body
    digest = hmac.new(secret.encode("utf-8"), b"v0:" + ts.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return {"X-Slack-Signature": f"v0={digest}", "X-Slack-Request-Timestamp": ts}


def form_body(fields: dict[str, Any]) -> bytes:
    """URL-encode a form (slash command) as Slack sends it."""
    return urlencode(fields).encode("utf-8")


def interactive_body(payload: dict[str, Any]) -> bytes:
    """HTTP body of an interactive request: ``payload=<url-encoded JSON>``."""
    return urlencode({"payload": json.dumps(payload)}).encode("utf-8")


def _trigger_id() -> str:
    n = uuid.uuid4().int
    return f"{n % 10**11}.{n % 10**9}.{uuid.uuid4().hex}"


def slash_form(
    text: str,
    command: str = "/icml",
    user_id: str = "U1",
    channel_id: str = "C1",
    response_url: str = UNSET_RESPONSE_URL,
    **extra: str,
) -> dict[str, str]:
    """The fields Slack sends for a slash command (HTTP form body or Socket Mode payload); ``extra`` overrides."""
    fields = {
        "token": "verification-token",
        "team_id": "T1",
        "team_domain": "icml-test",
        "channel_id": channel_id,
        "channel_name": "general" if channel_id == "C1" else channel_id.lower(),
        "user_id": user_id,
        "user_name": f"user-{user_id.lower()}",
        "command": command,
        "text": text,
        "api_app_id": "A1",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": _trigger_id(),
    }
    fields.update(extra)
    return fields


def mention_event(
    text: str,
    user: str = "U1",
    channel: str = "C1",
    ts: str | None = None,
    thread_ts: str | None = None,
    bot_user_id: str = "UBOT",
) -> dict[str, Any]:
    """An ``app_mention`` event; ``text`` gets ``<@bot_user_id>`` prepended unless it already mentions the bot."""
    ts = ts or f"{time.time():.6f}"
    if f"<@{bot_user_id}>" not in text:
        text = f"<@{bot_user_id}> {text}"
    event: dict[str, Any] = {
        "client_msg_id": str(uuid.uuid4()),
        "type": "app_mention",
        "text": text,
        "user": user,
        "ts": ts,
        "team": "T1",
        "channel": channel,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def event_body(
    event: dict[str, Any],
    event_id: str | None = None,
    team_id: str = "T1",
    api_app_id: str = "A1",
    bot_user_id: str = "UBOT",
) -> dict[str, Any]:
    """The ``event_callback`` envelope Slack sends (HTTP body or Socket Mode events_api payload)."""
    event_ts = event.get("event_ts") or event.get("ts")
    event_time = int(float(event_ts)) if event_ts else int(time.time())
    return {
        "token": "verification-token",
        "team_id": team_id,
        "context_team_id": team_id,
        "context_enterprise_id": None,
        "api_app_id": api_app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or "Ev" + uuid.uuid4().hex[:10].upper(),
        "event_time": event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": "4-" + uuid.uuid4().hex,
    }


def block_action_payload(
    action_id: str,
    value: str,
    user_id: str = "U1",
    channel_id: str = "C1",
    response_url: str = UNSET_RESPONSE_URL,
    message: dict[str, Any] | None = None,
    block_id: str = "actions",
    team_id: str = "T1",
) -> dict[str, Any]:
    """A realistic ``block_actions`` payload for a button click on ``message`` (a bot message by default)."""
    if message is None:
        message = {
            "type": "message",
            "subtype": "bot_message",
            "text": "ICML results",
            "user": "UBOT",
            "bot_id": "BBOT",
            "app_id": "A1",
            "ts": "1700000000.000100",
            "team": team_id,
            "blocks": [],
        }
    return {
        "type": "block_actions",
        "user": {
            "id": user_id,
            "username": f"user-{user_id.lower()}",
            "name": f"user-{user_id.lower()}",
            "team_id": team_id,
        },
        "api_app_id": "A1",
        "token": "verification-token",
        "container": {
            "type": "message",
            "message_ts": message.get("ts", ""),
            "channel_id": channel_id,
            "is_ephemeral": False,
        },
        "trigger_id": _trigger_id(),
        "team": {"id": team_id, "domain": "icml-test"},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel_id, "name": "general" if channel_id == "C1" else channel_id.lower()},
        "message": message,
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [
            {
                "action_id": action_id,
                "block_id": block_id,
                "text": {"type": "plain_text", "text": "Button", "emoji": True},
                "value": value,
                "type": "button",
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }
