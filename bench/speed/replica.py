"""Replicas under load: 50 clients x 30 s against two `icml-bot serve --http` replicas on one PostgreSQL, beside one.

Run: python -m bench replica [--seconds 30] [--clients 50] [--replicas 2] [--sqlite] [--seeds-only]
Builds the 5,863-paper index (seeds merged with ../shared/data/icml2026.jsonl), starts a throwaway PostgreSQL
(tests/support/postgres.py; `--sqlite` shares one SQLite file instead) and a local fake Slack, subscribes a channel
whose digest is due, and starts the replicas on 127.0.0.1, each with its own port, as behind a load balancer. Client
n sends to replica n mod R: signed /icml commands, and every 10th request an @-mention that Slack then delivers
again (X-Slack-Retry-Num: 1) to the next replica, as if the first ack had been lost. Both deliveries must be acked
inside 3 s. After the load, every replica is stopped with SIGTERM (replies in flight finish) and the fake Slack is
asked how often each mention was answered and the digest posted: exactly once each.
The baseline is one replica, same index, same load, same run. Exit status 1 on any error, slow ack or double post.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import ICML2026, build_index
from tests.support.digest import due_now
from tests.support.fake_slack import FakeSlack
from tests.support.robust import QUERIES, BotProcess, serve_http
from tests.support.slack_requests import event_body, form_body, mention_event, sign, slash_form

SECRET = "replica-bench-signing-secret"
DIGEST_CHANNEL = "C0BENCHDIG"
MENTION_CHANNEL = "C0BENCHMEN"
MENTION_EVERY = 10
ACK_LIMIT = 3.0


@dataclass
class Run:
    """What one load run saw: ack latencies (s), errors, mentions sent (their thread ts)."""

    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        """The q-th percentile ack latency in ms (nearest rank)."""
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))] if ordered else 0.0


def send(port: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> tuple[int, float]:
    """One signed POST /slack/events on a new connection: its status and how long the ack took."""
    headers = {"Content-Type": content_type, **sign(SECRET, body), **(extra or {})}
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/slack/events", body=body, headers=headers)
        resp = conn.getresponse()
        resp.read()
        return resp.status, time.perf_counter() - started
    finally:
        conn.close()


def load(ports: list[int], seconds: float, clients: int) -> Run:
    """`clients` threads, client n on replica n mod len(ports), until `seconds` have passed."""
    run = Run()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(n: int) -> None:
        sent = 0
        while time.monotonic() < deadline:
            port = ports[n % len(ports)]
            calls: list[tuple[int, bytes, str, dict[str, str] | None]] = []
            if sent % MENTION_EVERY == MENTION_EVERY - 1:
                ts = f"{1700000000 + n}.{sent:06d}"
                body = json.dumps(
                    event_body(mention_event(QUERIES[sent % 17], channel=MENTION_CHANNEL, ts=ts))
                ).encode()
                retry = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
                again = ports[(n + 1) % len(ports)]
                calls = [
                    (port, body, "application/json", None),
                    (again, body, "application/json", retry),
                ]
                with lock:
                    run.mentions.append(ts)
            else:
                body = form_body(slash_form(QUERIES[(n + sent) % len(QUERIES)], user_id=f"U{n:04d}"))
                calls = [(port, body, "application/x-www-form-urlencoded", None)]
            for target, raw, kind, extra in calls:
                try:
                    status, took = send(target, raw, kind, extra)
                    error = "" if status == 200 else f"HTTP {status}"
                except (OSError, http.client.HTTPException) as exc:
                    took, error = 10.0, f"{type(exc).__name__}: {exc}"
                with lock:
                    run.latencies.append(took)
                    if error:
                        run.errors.append(error)
            sent += 1

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 60)
    run.seconds = time.monotonic() - started
    return run


def one_setup(
    fake: FakeSlack, index_path: Path, state: Path | str, replicas: int, seconds: float, clients: int
) -> tuple[Run, list[str], int, list[int]]:
    """Start `replicas` replicas on `state`, load them, stop them; the run, mentions answered twice, digests, exits."""
    fake.reset()
    day = due_now(state, index_path, DIGEST_CHANNEL)
    bots: list[tuple[BotProcess, int]] = []
    try:
        for _ in range(replicas):
            bots.append(serve_http(fake.api_url, index_path, state, SECRET))
        bots[0][0].wait_for(rf"digest for {DIGEST_CHANNEL} on {day} posted|schedules the daily digests")
        run = load([port for _, port in bots], seconds, clients)
        statuses = [bot.terminate(timeout=60) for bot, _ in bots]  # replies in flight finish first
    finally:
        for bot, _ in bots:
            bot.kill()
    answered: dict[str, int] = {}
    for post in fake.posts(MENTION_CHANNEL):
        answered[post.get("thread_ts", "")] = answered.get(post.get("thread_ts", ""), 0) + 1
    problems = [ts for ts in run.mentions if answered.get(ts, 0) != 1]
    digests = sum(p["metadata"]["event_payload"]["date"] == day for p in fake.posts(DIGEST_CHANNEL))
    return run, problems, digests, statuses


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the baseline and the replicas, print both, and judge."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="load per setup (default 30)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--replicas", type=int, default=2, help="replicas beside the one-replica baseline (default 2)")
    parser.add_argument("--sqlite", action="store_true", help="share one SQLite file instead of PostgreSQL")
    parser.add_argument("--seeds-only", action="store_true", help="index only the 19 bundled abstracts")
    args = parser.parse_args(argv)
    if not args.seeds_only and not ICML2026.exists():
        print(f"skipped: {ICML2026} is not available (--seeds-only runs it on the 19 bundled abstracts)")
        return 0
    from tests.support.postgres import PostgresServer

    server: PostgresServer | None = None
    if not args.sqlite:
        bin_dir = PostgresServer.find()
        if bin_dir is None:
            print("skipped: PostgreSQL is not installed (apt-get install postgresql), or run with --sqlite")
            return 0
        server = PostgresServer(bin_dir)
        server.start()
    failed = False
    try:
        with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
            index_path, papers = build_index(Path(tmp), args.seeds_only)
            where = "one SQLite file" if server is None else "one PostgreSQL"
            print(f"index: {papers:,} papers; state: {where}; {args.clients} clients x {args.seconds:.0f} s per setup")
            print(
                f"\n{'setup':<22}{'req/s':>7}{'p50 ms':>8}{'p99 ms':>8}{'max ms':>8}{'errors':>8}{'>3 s':>6}"
                f"{'mentions':>10}{'not once':>10}{'digests':>9}"
            )
            for count in (1, args.replicas):
                state: Path | str = Path(tmp) / f"state-{count}.db" if server is None else server.new_database()
                run, problems, digests, statuses = one_setup(fake, index_path, state, count, args.seconds, args.clients)
                slow = sum(t > ACK_LIMIT for t in run.latencies)
                print(
                    f"{f'{count} replica' + ('s' if count > 1 else ''):<22}"
                    f"{len(run.latencies) / run.seconds:>7.0f}{statistics.median(run.latencies) * 1000:>8.0f}"
                    f"{run.percentile(99):>8.0f}{max(run.latencies) * 1000:>8.0f}{len(run.errors):>8}{slow:>6}"
                    f"{len(run.mentions):>10}{len(problems):>10}{digests:>9}"
                    + (f"  first error: {run.errors[0]}" if run.errors else "")
                    + (f"  exit statuses {statuses}" if any(statuses) else "")
                )
                failed = failed or bool(run.errors or slow or problems or digests != 1 or any(statuses))
    finally:
        if server is not None:
            server.destroy()
    print(
        "\ntarget: no errors, no ack over 3 s, every mention answered once, one digest: "
        + ("MISSED" if failed else "met")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
