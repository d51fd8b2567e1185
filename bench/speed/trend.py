"""`/icml trend <topic>` at ~110,000 papers in four venues: the ack and the chart uploaded, beside `/icml <topic>`.

The ack holds the numbers, then the chart is drawn and uploaded; through `icml-bot serve --http` and a local fake
Slack, in the same run as the plain search.

Run: python -m bench trend [--scale 6] [--rounds 3]   (needs ../shared/data)

The index is bench/speed/search.py's cached large index: every ../shared/data list (ICML 2024, ICML 2026 with its
workshops, ICLR 2024, ICLR 2026) repeated `--scale` times (6: ~110,000 papers), four venues. The bot runs in its own
process as deployed (bench/speed/slack.py's Server), its Web API the fake Slack of tests/support, which records the
upload. Per topic and round, interleaved: `/icml <topic>` (the baseline: one search, acked with results), then
`/icml trend <topic>`: the time to its ack (one search per venue, the numbers) and to the fake's
files.completeUploadExternal (drawn and uploaded). Before them each topic is searched once and each venue once
(the first searches of a process read what search needs, and the first search of a venue its papers: trend or
not, reported on their own line); the first trend after that imports matplotlib, also reported on its own line.
Target: drawn and uploaded within 2 s of the command.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import SHARED_DATA
from bench.speed.search import large_index
from bench.speed.slack import SECRET, Server

TOPICS = ["kv cache", "diffusion models", "reinforcement learning", "graph neural networks", "speculative decoding"]
TARGET_SECONDS = 2.0  # the command to the chart in the channel
ACK_SECONDS = 3.0  # Slack's acknowledgement deadline


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=6, help="copies of the shared lists (6: ~110,000 papers)")
    parser.add_argument("--rounds", type=int, default=3, help="times each topic runs")
    args = parser.parse_args()
    if not (SHARED_DATA / "icml2026.jsonl").exists():
        print(f"skipped: needs {SHARED_DATA}")
        return 0

    from bot.papers import index
    from tests.support.fake_slack import FakeSlack
    from tests.support.slack_requests import form_body, sign, slash_form

    path = large_index(args.scale)
    db = index.connect(path, readonly=True)
    papers = db.execute("SELECT count(*) FROM papers").fetchone()[0]
    venues = db.execute("SELECT venue, count(*) FROM papers GROUP BY 1 ORDER BY 1").fetchall()
    db.conn.close()
    print(f"index: {papers:,} papers; " + ", ".join(f"{v} {n:,}" for v, n in venues))

    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        server = Server(path, Path(tmp) / "state.db", fake.api_url)

        def command(text: str) -> tuple[float, dict[str, object]]:
            """Seconds to the ack of a signed `/icml <text>`, and the ack's body."""
            body = form_body(slash_form(text, response_url=fake.response_url("bench")))
            headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
            started = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("POST", "/slack/events", body=body, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            conn.close()
            if resp.status != 200:
                raise RuntimeError(f"HTTP {resp.status}: {raw[:200]!r}")
            return time.perf_counter() - started, json.loads(raw)

        def trend(topic: str) -> tuple[float, float]:
            """Seconds to the ack of `/icml trend <topic>` and to the chart's upload completing at the fake."""
            uploads = len(fake.calls("files.completeUploadExternal"))
            sent = time.time()
            ack, _ = command(f"trend {topic}")
            [*_, done] = fake.wait_for("files.completeUploadExternal", count=uploads + 1, ok=True, timeout=120)
            return ack, done.time - sent

        try:
            # Searched once, as in any bot that has served a while (the first searches of a process load the
            # meaning vectors and the pages they read, trend or not)
            for topic in TOPICS:
                command(topic)
            # Each venue's papers
            first_scoped = [command(f"{TOPICS[0]} venue:{v}")[0] for v, _ in venues if v]
            cold_ack, cold_total = trend(TOPICS[0])
            search_acks: list[float] = []
            trend_acks: list[float] = []
            totals: list[float] = []
            for _ in range(args.rounds):
                for topic in TOPICS:
                    search_acks.append(command(topic)[0])
                    ack, total = trend(topic)
                    trend_acks.append(ack)
                    totals.append(total)
            [shared, *_] = fake.shared_files()
        finally:
            server.stop()

    def ms(values: list[float]) -> str:
        return f"p50 {statistics.median(values) * 1000:7.0f} ms, max {max(values) * 1000:7.0f} ms"

    print(f"{len(TOPICS)} topics x {args.rounds} rounds, interleaved")
    print(f"  /icml <topic> (baseline: one search)      ack        {ms(search_acks)}")
    print(f"  /icml trend <topic>: the numbers          ack        {ms(trend_acks)}")
    print(f"  /icml trend <topic>: chart uploaded       from send  {ms(totals)}")
    cold = f"ack {cold_ack * 1000:.0f} ms, uploaded {cold_total * 1000:.0f} ms"
    scoped = ", ".join(f"{t * 1000:.0f}" for t in first_scoped)
    print(f"  first search of each venue in the process (/icml <topic> venue:<v>, trend or not): {scoped} ms")
    print(f"  first trend of the process (imports matplotlib): {cold}")
    print(f"  chart: {shared.filename}, {len(shared.content or b''):,} bytes")
    ratio = statistics.median(trend_acks) / statistics.median(search_acks)
    print(f"  trend ack / search ack, p50: {ratio:.1f}x (one search per venue)")
    met = max(totals) < TARGET_SECONDS and max(trend_acks) < ACK_SECONDS
    print(
        f"target: chart uploaded within {TARGET_SECONDS:.0f} s, ack within {ACK_SECONDS:.0f} s (every warm run): "
        + ("ok" if met else "MISSED")
        + f"; first run: {'ok' if cold_total < TARGET_SECONDS else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
