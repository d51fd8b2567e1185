"""A link unfurl's time (`link_shared` in, ack, `chat.unfurl` out) beside the /icml answer's round trip.

Signed `link_shared` in, its ack, then `chat.unfurl` at Slack; beside it, a signed command in and the ack with the
results out, interleaved in one run on one served app.

Run: python -m bench unfurl [--rounds 300]   (with ../shared/data: the 5,863 ICML 2026 papers; else the seeds
and two linked papers). Serves the app in HTTP mode (waitress on 127.0.0.1, as the tests do) against the local fake
Slack. Each message links to two indexed papers (an OpenReview forum link and a conference-site page, or a pdf link)
and one unknown paper; a third of the papers were saved and listed first, so cards carry team memory. Slack wants
the ack within 3 s; the unfurl itself follows the ack.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from bot.papers import index
from tests.support.fake_slack import FakeSlack
from tests.support.paths import ICML2026, SEEDS
from tests.support.slack_harness import ACK_DEADLINE, SlackHttp, slack_config
from tests.support.slack_requests import event_body
from tests.support.slack_unfurls import UNKNOWN, build_linked_index, link_shared

QUERIES = ("kv cache", "speculative decoding", "diffusion models", "MoE", "graph neural networks", "grokking")
SAVED_SHARE = 3  # one paper in this many is saved and listed before the run


def build(folder: Path) -> Path:
    """The ICML 2026 list with the seeds when ../shared/data is there; else the seeds and two linked papers."""
    if not ICML2026.exists():
        return build_linked_index(folder)
    path = folder / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS, ICML2026])
    db.conn.close()
    return path


def linked(path: Path, n: int) -> list[tuple[str, str]]:
    """Up to n papers as (id, a link to it): an OpenReview forum or pdf link by source id, or its site page."""
    db = index.connect(path, readonly=True)
    rows = db.execute(
        "SELECT id, source_id, site_url FROM papers WHERE source_id IS NOT NULL OR site_url IS NOT NULL"
    ).fetchall()
    db.conn.close()
    out = []
    for pid, source_id, site_url in rows:
        kind = random.choice(("forum", "pdf", "site"))
        if site_url and (kind == "site" or not source_id):
            out.append((pid, site_url))
        elif source_id:
            out.append((pid, f"https://openreview.net/{kind if kind != 'site' else 'forum'}?id={source_id}"))
    random.shuffle(out)
    return out[:n]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank), in the values' unit."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def line(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"{name:<44} p50 {statistics.median(ms):7.1f} ms   p99 {percentile(ms, 99):7.1f} ms   "
        f"max {max(ms):7.1f} ms   over 3 s: {sum(v > ACK_DEADLINE for v in values)}"
    )


def run(rounds: int) -> list[str]:
    """Interleaved /icml answers and unfurls on one app; the figures as lines."""
    random.seed(7)
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        folder = Path(tmp)
        path = build(folder)
        papers = linked(path, 2 * rounds)
        db = index.connect(path, readonly=True)
        count = db.execute("SELECT count(*) FROM papers").fetchone()[0]
        db.conn.close()
        app = SlackHttp(slack_config(fake, path, folder / "state.db"))
        try:
            for pid, _ in papers[::SAVED_SHARE]:  # memory on a third of the cards
                app.command(f"list add {pid}", channel_id="C0NLPREAD01")
            app.command("kv cache")  # warm: the first search loads what ranking reads
            answers, acks, unfurls = [], [], []
            for n in range(rounds):
                started = time.perf_counter()
                reply = app.command(QUERIES[n % len(QUERIES)])
                answers.append(time.perf_counter() - started)
                assert reply.status == 200, reply.body[:200]
                assert reply.json()["blocks"], reply.body[:200]
                links = [papers[2 * n][1], papers[(2 * n + 1) % len(papers)][1], UNKNOWN]
                random.shuffle(links)
                event = link_shared(links, channel="C0GENERAL01", ts=f"{1773014400 + n}.000100")
                body = json.dumps(event_body({**event, "team": "T1"}, team_id="T1")).encode()
                wall, started = time.time(), time.perf_counter()
                assert app.post(body, "application/json").status == 200
                acks.append(time.perf_counter() - started)
                call = fake.wait_for("chat.unfurl", count=n + 1, ok=True, timeout=30)[n]
                unfurls.append(call.time - wall)
                assert 1 <= len(call.params["unfurls"]) <= 2
            app.drain()
            with_memory = sum("'s list" in json.dumps(c.params) for c in fake.calls("chat.unfurl"))
        finally:
            app.stop()
    return [
        f"{count:,} papers, {rounds} rounds, HTTP mode on 127.0.0.1, the fake Slack; {with_memory} cards had memory",
        line("/icml <words>: request to ack with results", answers),
        line("link_shared: request to ack", acks),
        line("link_shared: request to chat.unfurl at Slack", unfurls),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    for text in run(parser.parse_args().rounds):
        print(text)


if __name__ == "__main__":
    main()
