"""`icml-bot serve --http --workers N`: gunicorn's worker processes answer Slack, and what must happen once (a
redelivered event, a day's digest, the scheduling) happens once across them, through the shared state database."""

from __future__ import annotations

import http.client
import math
import re
import threading
import time
from pathlib import Path

import pytest

from bot.serve.http_workers import CLIENT_IDLE_SECONDS
from tests.support.digest import due_now
from tests.support.fake_slack import FakeSlack
from tests.support.half_open import PROBES, closed_by_server, half_open
from tests.support.processes import children
from tests.support.robust import BotProcess, serve_http
from tests.support.slack_harness import ACK_DEADLINE, SECRET, Reply, SignedClient, texts
from tests.support.slack_requests import mention_event

CH = "C0WORKERS1"
HALF_OPEN = 50  # connections held open by clients that never finish their request (issue 32)


def wait_ready_lines(bot: BotProcess, count: int) -> None:
    """Wait until `count` workers have booted (the first logs where it serves, each other one that it is ready)."""
    bot.wait_for(r"serving HTTP on")
    for n in range(1, count):
        bot.wait_for(r"worker \d+ ready", nth=n)


def test_two_workers_answer_and_stop_cleanly_on_sigterm(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    bot, port = serve_http(fake.api_url, slack_index_path, tmp_path / "state.db", SECRET, args=["--workers", "2"])
    try:
        wait_ready_lines(bot, 2)
        assert len(children(bot.pid)) == 2  # the master and two worker processes
        client = SignedClient(port)
        replies = [client.command("kv cache") for _ in range(6)]
        assert {r.status for r in replies} == {200}
        assert all(r.json()["response_type"] == "ephemeral" for r in replies)
        assert all("kv cache" in texts(r.json()).lower() for r in replies)
        health = client.request("GET", "/healthz")
        assert health.status == 200
        assert health.json()["ok"] is True
        assert bot.terminate(timeout=60) == 0
    finally:
        bot.kill()
    log = bot.log()
    assert "Traceback" not in log
    assert "with 2 workers" in log
    assert len(re.findall(r"worker \d+ stopped", log)) == 2
    assert log.rstrip().endswith("bot.serve.run: stopped")


def test_a_redelivered_mention_is_answered_once_whichever_worker_gets_it(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    bot, port = serve_http(fake.api_url, slack_index_path, tmp_path / "state.db", SECRET, args=["--workers", "2"])
    event = mention_event("speculative decoding", channel=CH, ts="1700000000.000100")
    replies: list[Reply] = []
    lock = threading.Lock()
    start = threading.Barrier(12)

    def deliver(attempt: int) -> None:
        start.wait()
        reply = SignedClient(port).event(event, event_id="EvWORKERS01", retry_num=attempt or None)
        with lock:
            replies.append(reply)

    try:
        wait_ready_lines(bot, 2)
        # Both workers get some
        threads = [threading.Thread(target=deliver, args=(n,)) for n in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        # Every delivery acked, or Slack keeps retrying
        assert [r.status for r in replies] == [200] * 12
        fake.wait_for("chat.postMessage", timeout=20)
        assert bot.terminate(timeout=60) == 0  # a worker stopping finishes its replies first
    finally:
        bot.kill()
    assert len(fake.posts(CH)) == 1
    assert fake.posts(CH)[0]["thread_ts"] == "1700000000.000100"


def test_a_due_digest_is_posted_once_by_one_of_the_workers(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    state_path = tmp_path / "state.db"
    day = due_now(state_path, slack_index_path, CH)
    bot, _ = serve_http(fake.api_url, slack_index_path, state_path, SECRET, args=["--workers", "3"])
    try:
        wait_ready_lines(bot, 3)
        bot.wait_for(rf"digest for {CH} on {day} posted", timeout=30)
        assert bot.terminate(timeout=60) == 0
    finally:
        bot.kill()
    log = bot.log()
    assert len(re.findall(r"this process \(\S+\) schedules the daily digests", log)) == 1
    assert len(re.findall(r"another icml-bot process \(\S+\) schedules the daily digests", log)) == 2
    assert [p["metadata"]["event_payload"]["date"] for p in fake.posts(CH)] == [day]


@pytest.mark.ack_deadline
def test_fifty_half_open_connections_neither_stall_the_default_server_nor_get_its_worker_killed(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    # The default: one worker
    bot, port = serve_http(fake.api_url, slack_index_path, tmp_path / "state.db", SECRET)
    try:
        wait_ready_lines(bot, 1)
        [worker] = children(bot.pid)
        with half_open(port, HALF_OPEN) as held:
            times = {name: [probe(port, SECRET, ACK_DEADLINE) for _ in range(3)] for name, probe in PROBES.items()}
            answered = {name: sum(map(math.isfinite, seconds)) for name, seconds in times.items()}
            # Within Slack's 3 s (it took 30 s, and a worker)
            assert answered == {name: 3 for name in PROBES}, times
            reply = SignedClient(port).command("kv cache")
            # HTTP/1.1: open after the answer
            kept_alive = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            kept_alive.request("GET", "/healthz")
            assert kept_alive.getresponse().read()
            # None of them sends anything more: the server closes each once it has been silent that long.
            closes_by = time.monotonic() + CLIENT_IDLE_SECONDS + 5
            closed = sum(closed_by_server(sock, closes_by) for sock in [*held, kept_alive.sock])
        assert reply.json()["response_type"] == "ephemeral"
        assert "kv cache" in texts(reply.json()).lower()
        assert closed == HALF_OPEN + 1
        # The same worker: none was killed for a client that stalled
        assert children(bot.pid) == [worker]
        assert bot.terminate(timeout=60) == 0
    finally:
        bot.kill()
    log = bot.log()
    assert "WORKER TIMEOUT" not in log
    assert "Traceback" not in log
    assert log.rstrip().endswith("bot.serve.run: stopped")
