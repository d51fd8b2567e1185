"""The state database's per-request costs on PostgreSQL, beside SQLite (the default) measured in the same run.

Run: python -m bench state [--ops N] [--threads T]

Starts a throwaway PostgreSQL (tests/support/postgres.py: Debian's server in a temp folder, unix socket, fsync off
like the tests; a production server with fsync on pays its commit flush on top) and times, on each backend, the
state calls a request or a digest makes: the event-redelivery check (`first_time`, one per Slack event), a Save
(`saves.save`, a write transaction), a digest claim (`digests.claim` inside `immediate()`, the exactly-once
step) and reading a user's saves (`saves.saved_ids`, one per search answer). `--threads` runs the redelivery check
from T threads at once (waitress's request threads), on one State, as the bot does. Prints p50/p99 per call and
calls per second; SQLite is the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bot.state import State
from bot.state.digests import RunRow, RunStatus
from bot.team import saves
from tests.support.postgres import PostgresServer


def timed(ops: int, call: Callable[[int], object]) -> list[float]:
    """Seconds per call, for `ops` calls of call(i)."""
    out = []
    for i in range(ops):
        started = time.perf_counter()
        call(i)
        out.append(time.perf_counter() - started)
    return out


def threaded(state: State, ops: int, threads: int, prefix: str) -> float:
    """Calls per second of first_time from `threads` threads sharing one State."""
    per = ops // threads

    def work(t: int) -> None:
        for i in range(per):
            state.events.first_time(f"{prefix}-{t}-{i}")

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return per * threads / (time.perf_counter() - started)


def claim(state: State, i: int) -> None:
    """One digest claim, as ChannelDigests.post_digest makes it: read the row, insert it, in one write transaction."""
    with state.immediate():
        state.digests.run(f"C{i:010d}", "2026-03-09")
        state.digests.claim(RunRow("", f"C{i:010d}", "2026-03-09", RunStatus.CLAIMED, 1.0, 1.0, papers=[]))


def measure(state: State, ops: int, threads: int) -> dict[str, tuple[float, float, float]]:
    """name → (p50 ms, p99 ms, calls/s) for each state call."""
    results: dict[str, tuple[float, float, float]] = {}
    for i in range(200):  # the user's saves, so saved_ids reads a real list
        saves.save(state, "T1", "U1", f"p{i:04d}", 1.0 + i)
    calls: dict[str, Callable[[int], object]] = {
        "redelivery check (first_time)": lambda i: state.events.first_time(f"Ev{i}"),
        "save (write transaction)": lambda i: saves.save(state, "T1", f"U{i % 50}", f"q{i}", 2.0),
        "digest claim (immediate)": lambda i: claim(state, i),
        "saved ids of a user (read)": lambda i: saves.saved_ids(state, "T1", "U1"),
    }
    for name, call in calls.items():
        call(10**9)  # warm: connection opened, statements prepared by the server's cache
        got = sorted(timed(ops, call))
        results[name] = (got[len(got) // 2] * 1000, got[int(len(got) * 0.99)] * 1000, ops / sum(got))
    rate = threaded(state, ops, threads, "thr")
    results[f"redelivery check, {threads} threads"] = (float("nan"), float("nan"), rate)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=2000, help="calls per measurement (default 2000)")
    parser.add_argument("--threads", type=int, default=8, help="threads for the concurrent check (default 8)")
    args = parser.parse_args()
    bin_dir = PostgresServer.find()
    if bin_dir is None:
        print("PostgreSQL is not installed (initdb/pg_ctl): apt-get install postgresql", file=sys.stderr)
        return 2
    server = PostgresServer(bin_dir)
    try:
        server.start()
        with tempfile.TemporaryDirectory() as tmp:
            backends: dict[str, Path | str] = {
                "SQLite (baseline)": Path(tmp) / "state.db",
                "PostgreSQL": server.new_database(),
            }
            table: dict[str, dict[str, tuple[float, float, float]]] = {}
            for label, target in backends.items():
                state = State(target)
                table[label] = measure(state, args.ops, args.threads)
                state.close()
    finally:
        server.destroy()
    print(f"state calls, {args.ops} each (p50 ms / p99 ms / calls per s); SQLite is the baseline\n")
    names = list(next(iter(table.values())))
    width = max(len(n) for n in names)
    print(f"{'':{width}}  " + "  ".join(f"{label:>28}" for label in table))
    for name in names:
        cells = []
        for label in table:
            p50, p99, rate = table[label][name]
            # NaN: rate only
            cell = f"{rate:,.0f}/s" if p50 != p50 else f"{p50:.3f} / {p99:.3f} / {rate:,.0f}/s"
            cells.append(f"{cell:>28}")
        print(f"{name:{width}}  " + "  ".join(cells))
    ratio = statistics.mean(
        table["PostgreSQL"][n][0] / table["SQLite (baseline)"][n][0] for n in names if table["PostgreSQL"][n][0] > 0
    )
    print(f"\nPostgreSQL p50 is {ratio:.1f}x SQLite's on average (a unix socket here; add the network round trip)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
