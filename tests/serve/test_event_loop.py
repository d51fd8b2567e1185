"""The event loop of an `icml-bot serve --http` worker (bot/serve/http_workers.py) waits while a thread answers: it
turns for what arrives, not over and over while the answering thread sends."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Callable, Iterable
from typing import Any

from waitress import wasyncore

from bot.serve.http_workers import LOOP_SECONDS, waitress_server

# Sent by the answering thread for a while (below waitress's 16 MB high-water mark)
ANSWER_BYTES = 8 << 20
REQUESTS = 5


def big_answer(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """A WSGI app answering every request with ANSWER_BYTES in one piece, as Bolt hands over its body."""
    body = b"x" * ANSWER_BYTES
    start_response("200 OK", [("Content-Type", "application/octet-stream"), ("Content-Length", str(len(body)))])
    return [body]


def test_the_loop_does_not_spin_while_a_thread_sends_its_answer() -> None:
    connections: dict[int, Any] = {}
    server = waitress_server(big_answer, connections)
    turns = 0
    stop = threading.Event()

    def loop() -> None:  # as Worker.run turns it
        nonlocal turns
        while not stop.is_set():
            wasyncore.loop(timeout=LOOP_SECONDS, map=connections, use_poll=True, count=1)
            turns += 1

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        for _ in range(REQUESTS):
            conn = http.client.HTTPConnection("127.0.0.1", int(server.effective_port), timeout=10)
            conn.request("GET", "/")
            response = conn.getresponse()
            assert (response.status, len(response.read())) == (200, ANSWER_BYTES)
            conn.close()
    finally:
        stop.set()
        server.trigger.pull_trigger()
        thread.join(timeout=5)
        server.task_dispatcher.shutdown(timeout=1)
        wasyncore.close_all(connections)
    # A turn each for: accepting, reading the request, the thread's end, the client's close, and a few more besides
    # (before: one turn per poll() that found the connection writable while its thread was sending, thousands).
    assert turns < 10 * REQUESTS, turns
