"""Half-open connections against `icml-bot serve --http` (issue 32, point 2): answer times with 50 held, and none.

Run: python -m bench serving
Builds the 5,863-paper index (the seeds merged with ../shared/data/icml2026.jsonl; the 19 seeds alone when that file
is absent), starts `icml-bot serve --http` as users run it (default settings: one worker) on 127.0.0.1 with a local
fake Slack, and times GET /healthz and a signed /icml command, each on a new connection, first with no other client,
then while 50 connections hold a request they never finish (half a request line, half the headers, or a body
shorter than its Content-Length: tests/support/half_open.py). Also says whether gunicorn had to replace the worker.
"""

from __future__ import annotations

import math
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import ICML2026, build_index
from tests.support.fake_slack import FakeSlack
from tests.support.half_open import PROBES, closed_by_server, half_open
from tests.support.processes import children
from tests.support.robust import QUERIES, serve_http, slash_load

SECRET = "abuse-serving-signing-secret"
HELD = 50  # the count of half-open connections
ROUNDS = 20  # answers timed per request kind and condition
TIMEOUT = 10.0  # seconds a timed request may wait (a stalled server answered after 30 s)


def _summary(seconds: list[float]) -> str:
    answered = sorted(s for s in seconds if math.isfinite(s))
    if not answered:
        return f"none of {len(seconds)} answered within {TIMEOUT:.0f} s"
    text = f"p50 {statistics.median(answered) * 1000:.0f} ms, max {answered[-1] * 1000:.0f} ms"
    missing = len(seconds) - len(answered)
    return text + (f", {missing} of {len(seconds)} unanswered within {TIMEOUT:.0f} s" if missing else "")


def figures() -> list[str]:
    """Answer times of /healthz and a signed /icml with HELD half-open connections held, beside none held."""
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        index_path, papers = build_index(Path(tmp), seeds_only=not ICML2026.exists())
        bot, port = serve_http(fake.api_url, index_path, Path(tmp) / "state.db", SECRET)
        try:
            bot.wait_for(r"serving HTTP on")
            workers = children(bot.pid)
            slash_load(port, SECRET, seconds=0.1, clients=len(QUERIES))  # warm up: every query once
            times: dict[tuple[str, int], list[float]] = {}
            for held in (0, HELD):
                with half_open(port, held) as sockets:
                    opened = time.monotonic()
                    for name, probe in PROBES.items():
                        times[name, held] = [probe(port, SECRET, TIMEOUT) for _ in range(ROUNDS)]
                    probed = time.monotonic() - opened
                    closed = sum(closed_by_server(sock, opened + 3 * TIMEOUT) for sock in sockets)
                    closed_after = time.monotonic() - opened
            replaced = children(bot.pid) != workers
            status = bot.terminate(timeout=60)
        finally:
            bot.kill()
    lines = [f"serving with {HELD} half-open connections held (icml-bot serve --http, defaults; {papers:,} papers):"]
    for name in PROBES:
        lines.append(f"  {name:<13} answer time: {_summary(times[name, HELD])} (none held: {_summary(times[name, 0])})")
    lines.append(
        f"  held connections: the {len(PROBES) * ROUNDS} requests above were timed within {probed:.1f} s of their "
        f"opening; {closed} of {HELD} then closed by the server after {closed_after:.1f} s"
    )
    timed_out = "WORKER TIMEOUT" in bot.log()
    lines.append(
        f"  worker killed or replaced: {'yes' if replaced or timed_out else 'no'}; exit status {status} after SIGTERM"
    )
    return lines


if __name__ == "__main__":
    print("\n".join(figures()))
