"""Serving /icml over HTTP: icml-bot serve --http (1 and 2 gunicorn workers) beside a floor, same index, same run.

Run: python -m bench serve [--seconds 15] [--clients 8] [--rounds 2] [--seeds-only] [--servers workers=1 ...]
The floor is bench/tools/floor_app.py: a minimal Bolt app under gunicorn (one sync worker) answering from a plain FTS5
query on the same 5,863-paper index (seeds merged with ../shared/data/icml2026.jsonl), twice: as Bolt runs it by
default (the request thread polls for the ack every 10 ms) and with process_before_response (the listener runs in the
request thread, as icml-bot's /icml does); targets are judged against both. Also measured: a worker's waitress server
alone in one process, without gunicorn (tests/support/http_server.py, as the tests serve the app). Each server runs in
its own processes on 127.0.0.1 with a local fake Slack (auth.test only); `--clients` clients send signed /icml
commands, each on a new connection, for `--seconds`, in `--rounds` interleaved rounds (medians are printed). CPU per
command is the server's processes' user+system time (master and workers, from /proc) over the commands answered: on a
2-core machine shared with the clients it says how throughput grows with cores better than requests per second do.
Targets (issue 39; issue 12 asked for 0.8x and 1.5x): one worker >= 1.2x the floor's throughput, p99 <= 0.6x the
floor's; 2 workers' CPU per command <= 1.1x one worker's. `--servers` measures only those of the bot's servers (with
both floors), for quicker rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import ICML2026, build_index
from tests.support.robust import BotProcess, bot_env, slash_load

SECRET = "serve-bench-signing-secret"
RATE_TARGET = 1.2  # one worker's commands per second over the floor's, at least
P99_TARGET = 0.6  # one worker's p99 over the floor's, at most
CPU_TARGET = 1.1  # two workers' CPU per command over one worker's, at most
TICK = os.sysconf("SC_CLK_TCK")
WAITRESS = (
    "import sys; from bot.config import Config; from bot import logs; "
    "from bot.serve.runtime import Runtime; from tests.support.http_server import HttpServer; "
    "c = Config.from_env(); logs.setup_logging(c); r = Runtime.start(c); "
    "s = HttpServer(r.app, r.digests.builder.papers, host='127.0.0.1', port=0, signing_secret=c.signing_secret, "
    "state=r.state); "
    "print('serving HTTP on ' + s.url + '/slack/events', file=sys.stderr, flush=True); s.run()"
)


def tree_cpu_seconds(pid: int) -> float:
    """User+system CPU seconds of `pid` and every process below it (gunicorn's workers), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK
        todo += children.get(current, [])
    return total


@dataclass
class Figures:
    """One server's rounds: requests per second, p50, p99 (ms), CPU ms per command, errors."""

    rate: list[float] = field(default_factory=list)
    p50: list[float] = field(default_factory=list)
    p99: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    errors: int = 0

    def median(self, name: str) -> float:
        """The median of one figure over the rounds."""
        values: list[float] = getattr(self, name)
        return statistics.median(values)


def start(kind: str, index_path: Path, state_path: Path, api_url: str) -> tuple[BotProcess, int]:
    """Start one server; its process and port."""
    env = bot_env(api_url, index_path, state_path, SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SECRET)
    if kind.startswith("floor"):
        env["FLOOR_INDEX"] = str(index_path)
        env["FLOOR_INLINE"] = "1" if kind == "floor-inline" else "0"
        args = ["-m", "gunicorn", "--workers", "1", "--bind", "127.0.0.1:0", "bench.tools.floor_app:api"]
        proc = BotProcess(args, env, module=False)
        return proc, int(proc.wait_for(r"Listening at: http://127\.0\.0\.1:(\d+)").group(1))
    if kind == "waitress":
        proc = BotProcess(["-c", WAITRESS], env, module=False)
    else:
        args = ["serve", "--http", "--host", "127.0.0.1", "--port", "0", "--workers", kind.removeprefix("workers=")]
        proc = BotProcess(args, env)
    return proc, int(proc.wait_for(r"serving HTTP on http://127\.0\.0\.1:(\d+)/slack/events").group(1))


def measure(kind: str, index_path: Path, state_path: Path, api_url: str, seconds: float, clients: int) -> Figures:
    """One round against one server."""
    proc, port = start(kind, index_path, state_path, api_url)
    figures = Figures()
    try:
        slash_load(port, SECRET, seconds=1.0, clients=clients)  # warm up every worker's caches
        before = tree_cpu_seconds(proc.pid)
        result = slash_load(port, SECRET, seconds=seconds, clients=clients)
        used = tree_cpu_seconds(proc.pid) - before
    finally:
        proc.terminate(timeout=45)
    served = result.requests - len(result.errors)
    figures.rate.append(served / result.seconds)
    figures.p50.append(statistics.median(result.latencies) * 1000)
    figures.p99.append(result.percentile(99))
    figures.cpu.append(used * 1000 / max(served, 1))
    figures.errors += len(result.errors)
    return figures


def met(ok: bool) -> str:
    """How a target line ends."""
    return "met" if ok else "MISSED"


def run(seconds: float, clients: int, rounds: int, seeds_only: bool, servers: list[str] | None = None) -> int:
    """The whole benchmark; prints the table and the targets, returns the exit status."""
    from tests.support.fake_slack import FakeSlack

    if not seeds_only and not ICML2026.exists():
        print(f"skipped: {ICML2026} is not available (--seeds-only runs it on the 19 bundled abstracts)")
        return 0
    kinds = {
        "floor": "floor: minimal Bolt app, gunicorn 1 worker, plain FTS5",
        "floor-inline": "floor with process_before_response (no ack polling)",
        "waitress": "a worker's waitress server alone, no gunicorn",
        "workers=1": "icml-bot serve --http --workers 1",
        "workers=2": "icml-bot serve --http --workers 2",
    }
    if servers:
        kinds = {kind: label for kind, label in kinds.items() if kind in servers or kind.startswith("floor")}
    results = {kind: Figures() for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        index_path, papers = build_index(Path(tmp), seeds_only)
        print(f"index: {papers:,} papers; {clients} clients x {seconds:.0f} s per server and round, {rounds} rounds")
        for n in range(rounds):
            # Interleaved: drift hits everyone
            order = list(kinds) if n % 2 == 0 else list(reversed(kinds))
            for kind in order:
                got = measure(kind, index_path, Path(tmp) / f"state-{kind}.db", fake.api_url, seconds, clients)
                into = results[kind]
                into.rate += got.rate
                into.p50 += got.p50
                into.p99 += got.p99
                into.cpu += got.cpu
                into.errors += got.errors
                print(
                    f"  round {n + 1} {kind:<12} {got.rate[0]:4.0f}/s p99 {got.p99[0]:4.0f} ms {got.cpu[0]:4.1f} ms CPU"
                )
    print(f"\n{'server':<58}{'req/s':>7}{'p50 ms':>8}{'p99 ms':>8}{'CPU ms/cmd':>11}{'errors':>8}")
    for kind, label in kinds.items():
        f = results[kind]
        print(
            f"{label:<58}{f.median('rate'):>7.0f}{f.median('p50'):>8.0f}{f.median('p99'):>8.0f}"
            f"{f.median('cpu'):>11.1f}{f.errors:>8}"
        )
    one = results["workers=1"]
    print()
    for floor_kind in ("floor", "floor-inline"):
        floor = results[floor_kind]
        rate, p99 = one.median("rate") / floor.median("rate"), one.median("p99") / floor.median("p99")
        print(f"target vs {kinds[floor_kind]}:")
        print(f"  1 worker throughput {rate:.2f}x the floor's (>= {RATE_TARGET}x): {met(rate >= RATE_TARGET)}")
        print(f"  1 worker p99 {p99:.2f}x the floor's (<= {P99_TARGET}x): {met(p99 <= P99_TARGET)}")
    if "workers=2" in results:
        cpu = results["workers=2"].median("cpu") / one.median("cpu")
        said = met(cpu <= CPU_TARGET)
        print(f"target: 2 workers' CPU per command {cpu:.2f}x one worker's (<= {CPU_TARGET}x): {said}")
    errors = sum(f.errors for f in results.values())
    return 1 if errors else 0


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="load per server and round (default 15)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds, medians printed (default 2)")
    parser.add_argument("--seeds-only", action="store_true", help="index only the 19 bundled abstracts")
    parser.add_argument(
        "--servers",
        nargs="+",
        choices=["waitress", "workers=1", "workers=2"],
        help="measure only these beside the floors (default: all; workers=1 is always measured)",
    )
    args = parser.parse_args(argv)
    servers = sorted({"workers=1", *args.servers}) if args.servers else None
    return run(args.seconds, args.clients, args.rounds, args.seeds_only, servers)


if __name__ == "__main__":
    sys.exit(main())
