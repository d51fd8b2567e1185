"""`/icml plan`, `plan channel`, `remind`, a venue-day digest and the Home tab at ~110,000 papers, beside `/icml`.

Interleaved in one run on one served app (HTTP mode, waitress on 127.0.0.1, the fake Slack of tests/support); the
Home tab is timed with today's plan on it.

Run: python -m bench plan [--rounds 100] [--scale 6]   (needs ../shared/data)

The index is bench/speed/search.py's cached large index (any one already built in its cache is used as it is: the
build takes minutes), copied, and ICML 2026's first SESSION_PAPERS papers given sessions in Seoul (the shared lists
carry only session names): four poster sessions and four oral blocks over two days, rooms and poster numbers, and
one paper in ten left without a time. One person saved SAVED papers; a channel of MEMBERS people, each with
MEMBER_SAVES saves, has LISTED papers on its reading list. Each command's time is request to ack (users.info and
conversations.members included: the fake answers on 127.0.0.1). The channel's digest has topics and `today on`, and
the served app's digest clock (which the Home tab reads too) is set to a conference day, as tests/slack/
test_conference_today.py sets it: `/icml digest preview` then shows "Today at ICML 2026", timed request to ack; the
Home tab (app_home_opened) shows "Today at ICML 2026" above the saved papers, timed request to its views.publish at
the fake Slack (the view is built and sent after the ack). Target: within 1 s.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bench.common import SHARED_DATA
from bench.speed.search import CACHE, large_index
from tests.slack.test_home import home_opened
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, slack_config, texts

SESSION_PAPERS = 4000
SAVED, MEMBERS, MEMBER_SAVES, LISTED = 40, 60, 25, 30
CHANNEL = "C0PLANBENCH"
TARGET_SECONDS = 1.0
TOPICS = "kv cache"  # the channel digest's topics
# Wed; Tue 14 in New York, also a day
CONFERENCE_DAY = datetime(2026, 7, 15, 7, 0, tzinfo=ZoneInfo("Asia/Seoul"))
QUERIES = ("kv cache", "speculative decoding", "diffusion models", "MoE", "graph neural networks", "grokking")
SESSIONS = [
    ("Poster Session 1", "Poster", "2026-07-14T11:00:00+09:00", "2026-07-14T12:30:00+09:00", "Hall B"),
    ("Poster Session 2", "Poster", "2026-07-14T16:30:00+09:00", "2026-07-14T18:00:00+09:00", "Hall B"),
    ("Poster Session 3", "Poster", "2026-07-15T11:00:00+09:00", "2026-07-15T12:30:00+09:00", "Hall C"),
    ("Poster Session 4", "Poster", "2026-07-15T16:30:00+09:00", "2026-07-15T18:00:00+09:00", "Hall C"),
    ("Oral 1A", "Oral", "2026-07-14T10:00:00+09:00", "2026-07-14T11:00:00+09:00", "Hall A"),
    ("Oral 2A", "Oral", "2026-07-14T15:00:00+09:00", "2026-07-14T16:00:00+09:00", "Hall A"),
    ("Oral 3A", "Oral", "2026-07-15T11:00:00+09:00", "2026-07-15T12:00:00+09:00", "Hall A"),
    ("Oral 4A", "Oral", "2026-07-15T15:00:00+09:00", "2026-07-15T16:00:00+09:00", "Hall A"),
]


def scheduled_copy(source: Path, target: Path) -> list[str]:
    """A copy of the large index whose first SESSION_PAPERS ICML 2026 papers have sessions; their ids."""
    shutil.copy(source, target)
    conn = sqlite3.connect(target)
    ids = [
        r[0]
        for r in conn.execute("SELECT id FROM papers WHERE venue = 'icml2026' ORDER BY rowid LIMIT ?", [SESSION_PAPERS])
    ]
    with conn:
        for n, pid in enumerate(ids):
            name, kind, start, end, room = SESSIONS[n % 4]
            slots = [{"name": name, "kind": kind, "start": start, "end": end, "room": room, "url": None}]
            if n % 10 == 9:
                slots = [{**slots[0], "start": None, "end": None}]
            if n % 25 == 0:
                oral = SESSIONS[4 + n // 25 % 4]
                slots.append(dict(zip(("name", "kind", "start", "end", "room"), oral, strict=True)) | {"url": None})
            conn.execute(
                "UPDATE papers SET schedule = ?, room = ?, poster_position = ? WHERE id = ?",
                [json.dumps(slots), room, f"#{100 + n}", pid],
            )
    conn.close()
    return ids


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank), in the values' unit."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def line(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"{name:<50} p50 {statistics.median(ms):7.1f} ms   p99 {percentile(ms, 99):7.1f} ms   "
        f"max {max(ms):7.1f} ms   over {TARGET_SECONDS:.0f} s: {sum(v > TARGET_SECONDS for v in values)}"
    )


def timed_preview(app: SlackHttp) -> float:
    """Seconds from `/icml digest preview` to its ack, which must show the channel's day at the venue."""
    started = time.perf_counter()
    reply = app.command("digest preview", user_id="U9999", channel_id=CHANNEL)
    took = time.perf_counter() - started
    assert reply.status == 200, reply.body[:200]
    assert "Today at ICML 2026" in texts(reply.json()), reply.body[:500]
    return took


def timed_home(app: SlackHttp, fake: FakeSlack) -> float:
    """Seconds from app_home_opened to the views.publish of a Home view holding today's plan."""
    before = len(fake.calls("views.publish"))
    started = time.perf_counter()
    reply = app.event(home_opened("U9999"))
    assert reply.status == 200, reply.body[:200]
    [*_, call] = fake.wait_for("views.publish", count=before + 1, timeout=30)
    took = time.perf_counter() - started
    assert "Today at ICML 2026" in texts(call.params["view"]), texts(call.params["view"])[:500]
    return took


def run(rounds: int, scale: int) -> list[str]:
    """Interleaved /icml <words>, /icml plan, /icml plan channel, /icml remind, /icml digest preview (today at the
    venue) and the Home tab on one app; the figures."""
    random.seed(11)
    cached = sorted(CACHE.glob("large-*.db"))
    source = cached[0] if cached else large_index(scale)
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        folder = Path(tmp)
        path = folder / "papers.db"
        ids = scheduled_copy(source, path)
        count = sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute("SELECT count(*) FROM papers").fetchone()[0]
        app = SlackHttp(slack_config(fake, path, folder / "state.db"))
        members = [f"U{n:04d}" for n in range(MEMBERS)]
        fake.people.set_members(CHANNEL, members)
        for user in [*members, "U9999"]:
            fake.people.set_user(user, tz="America/New_York")
        try:
            now = time.time()
            for pid in random.sample(ids, SAVED):
                app.state.saves.add("T1", "U9999", pid, now)
            for user in members:
                for pid in random.sample(ids[:600], MEMBER_SAVES):  # a team's saves overlap
                    app.state.saves.add("T1", user, pid, now)
            for pid in random.sample(ids, LISTED):
                app.state.lists.add("T1", CHANNEL, members[0], pid, now)
            moment = CONFERENCE_DAY.astimezone(UTC)
            # The digests' clock, which the Home tab reads too
            app.parts.digests.clock = lambda: moment
            said = texts(app.command(f"digest subscribe {TOPICS} at 08:00 Asia/Seoul", channel_id=CHANNEL).json())
            assert "Subscribed this channel" in said, said
            assert "today at the venue" in texts(app.command("digest today on", channel_id=CHANNEL).json())
            for query in QUERIES:  # warm: the first searches load what ranking reads
                app.command(query)
            timings: dict[str, list[float]] = {k: [] for k in ("words", "plan", "channel", "remind", "preview", "home")}
            for n in range(rounds):
                for key, text in (
                    ("words", QUERIES[n % len(QUERIES)]),
                    ("plan", "plan"),
                    ("channel", "plan channel"),
                    ("remind", "remind 15"),
                ):
                    started = time.perf_counter()
                    reply = app.command(text, user_id="U9999", channel_id=CHANNEL)
                    timings[key].append(time.perf_counter() - started)
                    assert reply.status == 200, reply.body[:200]
                    assert reply.json()["blocks"], reply.body[:200]
                timings["preview"].append(timed_preview(app))
                timings["home"].append(timed_home(app, fake))
            preview = texts(app.command("digest preview", user_id="U9999", channel_id=CHANNEL).json())
            # The team's saves, as well as the day's orals
            assert "saved by" in preview, preview[:500]
            shown = json.dumps(app.command("plan channel", user_id="U9999", channel_id=CHANNEL).json())
            assert "of you saved" in shown, shown[:500]
        finally:
            app.stop()
    return [
        f"{count:,} papers ({SESSION_PAPERS:,} with sessions), {rounds} rounds, HTTP mode on 127.0.0.1, the fake Slack",
        line("/icml <words> (baseline): request to ack", timings["words"]),
        line(f"/icml plan ({SAVED} saved papers)", timings["plan"]),
        line(f"/icml plan channel ({MEMBERS} members, {LISTED} listed)", timings["channel"]),
        line("/icml remind 15", timings["remind"]),
        line("/icml digest preview (today at the venue)", timings["preview"]),
        line("Home tab (today's plan): request to views.publish", timings["home"]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--scale", type=int, default=6, help="copies of the shared lists when building (6: ~110,000)")
    args = parser.parse_args()
    if not SHARED_DATA.exists():
        sys.exit(f"{SHARED_DATA} is not available: the bench needs ../shared/data")
    for text in run(args.rounds, args.scale):
        print(text)


if __name__ == "__main__":
    main()
