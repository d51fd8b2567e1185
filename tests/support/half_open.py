"""Clients that never finish a request (slowloris): shared by the serving tests and bench/abuse/serving.py."""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tests.support.slack_requests import form_body, sign, slash_form

# What each held connection sends before it goes quiet: half a request line, half the headers, or whole headers
# announcing a longer body than the few bytes that follow.
UNFINISHED = (
    b"GET /heal",
    b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nX-Slack-Signature: v0=",
    b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: 10000\r\n\r\ncommand=%2Ficml&text=kv",
)


@contextmanager
def half_open(port: int, count: int) -> Iterator[list[socket.socket]]:
    """`count` connections to 127.0.0.1:`port`, each sending one of UNFINISHED and nothing more until closed."""
    held: list[socket.socket] = []
    try:
        for n in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            held.append(sock)
            sock.sendall(UNFINISHED[n % len(UNFINISHED)])
        yield held
    finally:
        for sock in held:
            sock.close()


def closed_by_server(sock: socket.socket, deadline: float) -> bool:
    """Whether the server closes `sock` (end of file or reset) before time.monotonic() reaches `deadline`."""
    sock.settimeout(max(deadline - time.monotonic(), 0.01))
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def answer_time(port: int, method: str, path: str, body: bytes, headers: dict[str, str], timeout: float) -> float:
    """Seconds until 127.0.0.1:`port` answered one request with 200 on a new connection; inf on anything else."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        resp.read()
        ok = resp.status == 200
    except (OSError, http.client.HTTPException):
        ok = False
    finally:
        conn.close()
    return time.perf_counter() - started if ok else float("inf")


def health_time(port: int, timeout: float) -> float:
    """answer_time of GET /healthz."""
    return answer_time(port, "GET", "/healthz", b"", {}, timeout)


def command_time(port: int, secret: str, timeout: float, text: str = "kv cache") -> float:
    """answer_time of a signed `/icml <text>` slash command."""
    body = form_body(slash_form(text))
    headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(secret, body)}
    return answer_time(port, "POST", "/slack/events", body, headers, timeout)


PROBES: dict[str, Callable[[int, str, float], float]] = {
    "/healthz": lambda port, secret, timeout: health_time(port, timeout),
    "signed /icml": command_time,
}
"""The requests whose answer times show a stall, by the name the test and the bench print."""
