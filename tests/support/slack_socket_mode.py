"""Slack's Socket Mode: a local WebSocket server that says hello, sends envelopes and records the app's acks.

FakeSlack starts one next to its HTTP server; ``apps.connections.open`` hands out its URL. ``close_socket_mode``
closes a Bolt/slack_sdk client fast at the end of a test.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

if TYPE_CHECKING:
    from tests.support.fake_slack import FakeSlack

__all__ = ["SocketMode", "close_socket_mode"]


class SocketMode:
    """The WebSocket side of the fake: connections, the envelopes sent to them and the messages they sent back."""

    def __init__(self, cond: threading.Condition, app_id: str = "A1") -> None:
        self._cond = cond
        self.app_id = app_id
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._connections: list[ServerConnection] = []
        self._total = 0
        self._received: list[dict[str, Any]] = []
        self._sent: list[dict[str, Any]] = []

    def clear(self) -> None:
        """Forget the traffic (connections stay open and counted)."""
        with self._cond:
            self._received.clear()
            self._sent.clear()

    # ------------------------------------------------------------------ server

    def start(self) -> None:
        """Listen on 127.0.0.1 (a free port) in a background thread."""
        self._server = serve(
            self._handle, "127.0.0.1", 0, compression=None, close_timeout=1, server_header="fake-slack", logger=None
        )
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-slack-ws", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Close every connection, stop the server and join its thread."""
        if self._server is not None:
            self._server.shutdown()
            if self._thread is not None:
                self._thread.join(timeout=5)
            self._server = None

    @property
    def url(self) -> str:
        """The WebSocket URL (what apps.connections.open hands out, minus the ticket query)."""
        if self._server is None:
            raise RuntimeError("FakeSlack is not started")
        return f"ws://127.0.0.1:{self._server.socket.getsockname()[1]}/link"

    def _handle(self, conn: ServerConnection) -> None:
        if not conn.request or not conn.request.path.startswith("/link"):
            conn.close(1008, "unknown path")
            return
        with self._cond:
            num = len(self._connections) + 1
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
            self._connections.append(conn)
            self._total += 1
            self._cond.notify_all()
        try:
            for raw in conn:
                try:
                    message = json.loads(raw)
                except (TypeError, ValueError):
                    message = {"_raw": raw}
                with self._cond:
                    self._received.append(message if isinstance(message, dict) else {"_json": message})
                    self._cond.notify_all()
        except ConnectionClosed:
            pass
        finally:
            with self._cond:
                if conn in self._connections:
                    self._connections.remove(conn)
                self._cond.notify_all()

    # ------------------------------------------------------------------ what tests ask

    @property
    def connection_count(self) -> int:
        """How many connections were accepted in total (reconnects included)."""
        with self._cond:
            return self._total

    def connected(self, timeout: float = 5.0, count: int = 1) -> bool:
        """Wait until a client is connected and at least ``count`` connections were accepted in total."""
        return self._wait(lambda: bool(self._connections) and self._total >= count, timeout)

    def closed(self, timeout: float = 5.0) -> bool:
        """Wait until no client is connected any more (the server noticed every close)."""
        return self._wait(lambda: not self._connections, timeout)

    def send(
        self,
        envelope_type: str,
        payload: dict[str, Any],
        retry_attempt: int | None = None,
        retry_reason: str | None = None,
        *,
        envelope_id: str | None = None,
        accepts_response_payload: bool | None = None,
        timeout: float = 5.0,
        to: int = -1,
    ) -> str:
        """Send an envelope to a connected client (`to`: its index among the open connections, oldest first; the
        newest by default) and return its envelope_id.

        ``retry_attempt``/``retry_reason`` default to 0/"" for events_api and are omitted for other types unless
        given (as Slack does); ``accepts_response_payload`` defaults to True for slash_commands and interactive.
        """
        conn = self._current(timeout, to)
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
        self._send_raw(conn, envelope)
        return envelope_id

    def ack(self, envelope_id: str, timeout: float = 5.0) -> dict[str, Any]:
        """Wait for the client's ack of ``envelope_id`` and return it (``payload`` key only if the app sent one)."""
        acks: list[dict[str, Any]] = []

        def acked() -> bool:
            acks[:] = [m for m in self._received if m.get("envelope_id") == envelope_id]
            return bool(acks)

        if not self._wait(acked, timeout):
            raise AssertionError(f"no ack for envelope {envelope_id} within {timeout}s; received: {self.received()}")
        return acks[0]

    def received(self) -> list[dict[str, Any]]:
        """Every message the clients sent (acks), oldest first."""
        with self._cond:
            return list(self._received)

    def sent(self) -> list[dict[str, Any]]:
        """Every envelope/control message the fake sent (hello messages excluded)."""
        with self._cond:
            return list(self._sent)

    def disconnect(self, reason: str = "refresh_requested", timeout: float = 5.0) -> None:
        """Send Slack's ``{"type": "disconnect"}`` message, asking the client to reconnect to a new URL."""
        conn = self._current(timeout)
        self._send_raw(conn, {"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-fake-1"}})

    def drop(self, graceful: bool = True, timeout: float = 5.0) -> None:
        """Close the newest connection from the server side (close frame 1001, or an abrupt TCP reset)."""
        conn = self._current(timeout)
        if graceful:
            conn.close(1001, "going away")
        else:
            with contextlib.suppress(OSError):
                conn.socket.shutdown(socket.SHUT_RDWR)
            conn.close_socket()

    def close_all(self, reason: str) -> None:
        """Close every open connection from the server side (close frame 1001)."""
        with self._cond:
            connections = list(self._connections)
        for conn in connections:
            conn.close(1001, reason)

    def _wait(self, done: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def open_count(self) -> int:
        """How many clients are connected now."""
        with self._cond:
            return len(self._connections)

    def wait_open(self, count: int, timeout: float = 30.0) -> bool:
        """Wait until at least `count` clients are connected at once."""
        return self._wait(lambda: len(self._connections) >= count, timeout)

    def _current(self, timeout: float, index: int = -1) -> ServerConnection:
        if not self.connected(timeout):
            raise AssertionError(f"no Socket Mode client connected within {timeout}s")
        with self._cond:
            return self._connections[index]

    def _send_raw(self, conn: ServerConnection, message: dict[str, Any]) -> None:
        try:
            conn.send(json.dumps(message))
        except ConnectionClosed as e:
            raise AssertionError(f"Socket Mode client disconnected before the message was sent: {e}") from e
        with self._cond:
            self._sent.append(message)


def close_socket_mode(handler: Any, fake: FakeSlack | None = None) -> None:
    """Close a Bolt/slack_sdk Socket Mode handler (or client) fast, without it reconnecting.

    The built-in client's close() otherwise blocks up to 3 s (its socket receive timeout) plus up to 1 s (its
    message-queue poll); closing the connection from the fake's side first and waking the queue avoids both.
    """
    client = getattr(handler, "client", handler)
    client.auto_reconnect_enabled = False
    if fake is not None:
        fake.socket.close_all("test finished")
    queue = getattr(client, "message_queue", None)
    if queue is not None:
        client.closed = True  # stop the message processor loop ...
        queue.put(None)  # ... and wake it from its 1 s queue.get() (None messages are skipped)
    handler.close()
