"""The /icml round trip in HTTP mode (signed request in, ack with the results out), beside the search alone.

Run: python -m bench slack [--clients 8] [--requests 2000]   (needs ../shared/data/icml2026.jsonl)
Builds the 5,863-paper index (seeds merged with the ICML 2026 list), runs `icml-bot serve --http` (waitress) in
its own process on 127.0.0.1 with a local fake Slack for auth.test, and sends signed slash commands from
concurrent clients, each on a fresh TCP connection as Slack's are. Target: round-trip p99 under 100 ms.
"""

from __future__ import annotations

import argparse
import http.client
import os
import queue
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.common import ICML2026, ROOT

QUERIES = [
    "kv cache",
    "kv cahce",
    "speculative decoding",
    "diffusion models",
    "mixture of experts",
    "MoE",
    "RAG",
    "retrieval augmented generation",
    "reinforcement learning from human feedback",
    "graph neural networks",
    "in-context learning",
    "TokSuite",
    "DefensiveKV",
    "vision transformer",
    "federated learning privacy",
    "causal inference",
    "protein structure",
    "time series forecasting",
    "LLM agents tool use",
    "quantization",
    "low rank adaptation",
    "contrastive learning",
    "out of distribution detection",
    "chain of thought reasoning",
    "sparse attention long context",
    "differential privacy",
    "bayesian optimization",
    "neural operators pde",
    "world models",
    "jailbreak attacks",
    "model merging",
    "scaling laws",
    "optimal transport",
    "GRPO",
    "test time compute",
    "multimodal large language models",
    "robustness certified",
    "offline RL",
    "tokenizer",
    "speculatve decodng",
]
SECRET = "bench-signing-secret"


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of values, in the values' unit."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def row(name: str, values: list[float], note: str = "") -> str:
    ms = [v * 1000 for v in values]
    return f"{name:<34}{len(ms):>7}{statistics.median(ms):>10.2f}{percentile(ms, 99):>10.2f}{max(ms):>10.2f}  {note}"


class Server:
    """`icml-bot serve --http` in its own process (as deployed), with a fake Slack answering auth.test."""

    def __init__(self, index_path: Path, state_path: Path, api_url: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_") and not k.lower().endswith("proxy")}
        env.update(
            PYTHONPATH=str(ROOT),
            ICML_BOT_DB=str(index_path),
            ICML_BOT_STATE=str(state_path),
            SLACK_BOT_TOKEN="xoxb-test",
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=api_url,
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--http", "--host", "127.0.0.1", "--port", "0"],
            cwd=ROOT,
            env=env,
            text=True,
            stderr=subprocess.PIPE,
        )
        self.busy = 0
        ports: queue.Queue[int] = queue.Queue()

        def read() -> None:
            assert self.proc.stderr is not None  # started with stderr=PIPE
            for line in self.proc.stderr:
                match = re.search(r"serving HTTP on http://127\.0\.0\.1:(\d+)/", line)
                if match:
                    ports.put(int(match.group(1)))
                self.busy += "Task queue depth" in line

        threading.Thread(target=read, daemon=True).start()
        self.port = ports.get(timeout=120)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


def build_index(folder: Path) -> Path:
    from bot.papers import index

    path = folder / "papers.db"
    started = time.perf_counter()
    db = index.connect(path)
    index.load(db, [ROOT / "seeds"])
    report = index.load(db, [ICML2026])
    db.conn.close()
    print(f"index: {report.papers:,} papers built in {time.perf_counter() - started:.1f} s")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=2000, help="round trips in all (default 2000)")
    args = parser.parse_args()
    if not ICML2026.exists():
        print(f"skipped: {ICML2026} is not available (the benchmark needs the 5,863-paper ICML 2026 list)")
        return 0

    from bot.search.reader import Papers
    from bot.slack import commands
    from bot.slack.services import Services
    from tests.support.fake_slack import FakeSlack
    from tests.support.slack_requests import form_body, sign, slash_form

    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        index_path = build_index(Path(tmp))

        # The search alone and the whole reply (search + blocks), in this process, sequentially.
        papers = Papers(index_path)
        for q in QUERIES:
            papers.search(q)
        search_times, reply_times = [], []
        for _ in range(args.requests):
            q = rng.choice(QUERIES)
            started = time.perf_counter()
            papers.search(q, limit=5)
            search_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            commands.ack_payload(Services(papers=papers), q)
            reply_times.append(time.perf_counter() - started)

        server = Server(index_path, Path(tmp) / "state.db", fake.api_url)
        bodies = [form_body(slash_form(q)) for q in QUERIES]

        def one(body: bytes) -> float:
            headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
            started = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("POST", "/slack/events", body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status != 200:
                raise RuntimeError(f"HTTP {resp.status}")
            return time.perf_counter() - started

        for body in bodies:  # warm up: every query once
            one(body)
        round_trips: list[float] = []
        lock = threading.Lock()
        per_client = args.requests // args.clients

        def client(seed: int) -> None:
            local_rng = random.Random(seed)
            mine = [one(local_rng.choice(bodies)) for _ in range(per_client)]
            with lock:
                round_trips.extend(mine)

        started = time.perf_counter()
        threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - started
        server.stop()

    print(f"\n{'':<34}{'n':>7}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    print(row("search alone", search_times, "bot.search.search, limit 5, one thread"))
    print(row("reply (search + blocks)", reply_times, "what /icml acks with, one thread"))
    print(
        row(
            f"/icml round trip, {args.clients} clients",
            round_trips,
            f"signed HTTP in, ack out; {len(round_trips) / wall:,.0f} req/s",
        )
    )
    if server.busy:
        print(f"(waitress logged a queued request {server.busy} times: all worker threads were busy)")
    p99 = percentile(round_trips, 99) * 1000
    print(
        f"\ntarget: round-trip p99 < 100 ms: {'met' if p99 < 100 else 'MISSED'} ({p99:.1f} ms); "
        f"round-trip p50 is {statistics.median(round_trips) / statistics.median(search_times):.1f}x the search"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
