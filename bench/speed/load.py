"""Load: 50 concurrent clients send signed /icml commands to a real `icml-bot serve --http` for 30 s.

Run: python -m bench load [--seconds 30] [--clients 50] [--seeds-only]
Builds the 5,863-paper index (the seeds merged with ../shared/data/icml2026.jsonl; skipped with a message when that
file is absent, unless --seeds-only), starts `icml-bot serve --http` in its own process on 127.0.0.1 with a local
fake Slack (auth.test only), and keeps `--clients` connections busy for `--seconds`: each client sends a command,
waits for the ack, and sends the next, each on a new TCP connection as Slack's are. Every 10th ack per client is
also checked against Block Kit's limits. Prints the ack latency p50/p99/max, errors, acks slower than Slack's 3 s,
and the bot process's peak memory (VmHWM from /proc). Exit status 1 if any request failed or was slower than 3 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ICML2026, build_index

SECRET = "load-bench-signing-secret"


def run(seconds: float, clients: int, seeds_only: bool = False) -> int:
    """The whole benchmark; prints the figures and returns the exit status."""
    from tests.support.fake_slack import FakeSlack
    from tests.support.robust import QUERIES, serve_http, slash_load

    if not seeds_only and not ICML2026.exists():
        print(
            f"skipped: {ICML2026} is not available (the load bench needs the 5,863-paper ICML 2026 list; "
            "--seeds-only runs it on the 19 bundled abstracts)"
        )
        return 0
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        started = time.perf_counter()
        index_path, papers = build_index(Path(tmp), seeds_only)
        print(f"index: {papers:,} papers built in {time.perf_counter() - started:.1f} s")
        bot, port = serve_http(fake.api_url, index_path, Path(tmp) / "state.db", SECRET)
        try:
            idle_mb = bot.peak_memory_mb()
            slash_load(port, SECRET, seconds=0.1, clients=len(QUERIES))  # warm up: every query once
            result = slash_load(port, SECRET, seconds=seconds, clients=clients, queries=QUERIES)
            peak_mb = bot.peak_memory_mb()
            status = bot.terminate(timeout=30)
        finally:
            bot.kill()
    print(
        f"\nload: {clients} clients x {seconds:.0f} s of signed /icml commands against {papers:,} papers "
        "(icml-bot serve --http: gunicorn, one worker)"
    )
    rate = result.requests / result.seconds
    print(f"  requests served     {result.requests - len(result.errors):>8,}  ({rate:,.0f}/s)")
    print(f"  errors              {len(result.errors):>8,}" + (f"  first: {result.errors[0]}" if result.errors else ""))
    print(f"  acks over 3 s       {result.slow:>8,}")
    p50 = sorted(result.latencies)[len(result.latencies) // 2] * 1000 if result.latencies else 0.0
    print(
        f"  ack latency         p50 {p50:.0f} ms, p99 {result.percentile(99):.0f} ms, "
        f"max {max(result.latencies, default=0) * 1000:.0f} ms"
    )
    print(f"  bot peak memory     {peak_mb:.0f} MiB VmHWM ({idle_mb:.0f} MiB after start)")
    print(f"  shutdown            exit status {status} after SIGTERM")
    ok = not result.errors and not result.slow and status == 0
    print(f"\ntarget: zero errors and every ack inside 3 s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the clients send (default 30)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--seeds-only", action="store_true", help="index only the 19 bundled abstracts (CI)")
    args = parser.parse_args(argv)
    return run(args.seconds, args.clients, args.seeds_only)


if __name__ == "__main__":
    sys.exit(main())
