"""A Save-click flood while Slack answers views.publish with 429, beside the same flood with Slack answering normally.

Run: python -m bench clicks   (about 20 s; the seed index, no data download)
Serves the app in HTTP mode (waitress on 127.0.0.1, as the tests do) against the local fake Slack, sends 60
signed Save clicks from one user (10 in flight at once) and, meanwhile, a mention from another workspace. Slack
shows "not responding" for a click not acked within 3 s.
"""

from __future__ import annotations

import logging
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests.support.fake_slack import FakeSlack
from tests.support.slack_clicks import save_clicker
from tests.support.slack_harness import (
    ACK_DEADLINE,
    SlackHttp,
    build_slack_index,
    slack_config,
)
from tests.support.slack_requests import mention_event

CLICKS = 60  # Save clicks from one user
IN_FLIGHT = 10  # clicks sent at once
RETRY_AFTER = 2  # seconds Slack's 429 asks to wait
# Their results carry 14 Save buttons
QUERIES = ("attention", "language models", "reinforcement learning")
PUBLISHED_WITHIN = 15.0  # seconds to wait for the Home view once the 429s stop


@dataclass
class Flood:
    """What one flood measured."""

    acked: int  # clicks answered 200 within ACK_DEADLINE
    slowest: float  # seconds
    mention: float  # seconds from the other workspace's mention to its reply
    home_publishes: int  # views.publish calls for the clicking user (accepted or refused)


def flood(index: Path, folder: Path, limited: bool) -> Flood:
    """60 Save clicks and another workspace's mention, with views.publish answering 429 throughout or not."""
    with FakeSlack() as fake:
        app = SlackHttp(slack_config(fake, index, folder / f"state-{limited}.db"))
        try:
            click = save_clicker(app, fake, [app.command(q).json() for q in QUERIES])
            if limited:
                fake.fail_next("views.publish", "ratelimited", retry_after=RETRY_AFTER, times=10_000)
            with ThreadPoolExecutor(IN_FLIGHT) as pool:
                clicks = pool.map(click, range(CLICKS))
                fake.wait_for("views.publish", timeout=30)  # the flood has reached the Home tab
                started = time.perf_counter()
                app.event(mention_event("kv cache", channel="C2", user="U7"), team_id="T2")
                fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params["channel"] == "C2", timeout=60)
                mention = time.perf_counter() - started
                acks = list(clicks)
            fake.faults.clear()
            fake.wait_for(
                lambda c: c.method == "views.publish" and c.params["user_id"] == "U1", ok=True, timeout=PUBLISHED_WITHIN
            )
            app.drain()
            publishes = [c for c in fake.calls("views.publish") if c.params.get("user_id") == "U1"]
        finally:
            app.stop()
    acked = sum(1 for status, took in acks if status == 200 and took < ACK_DEADLINE)
    return Flood(acked, max(took for _, took in acks), mention, len(publishes))


def figures() -> list[str]:
    """The flood under 429s beside the same flood with Slack answering normally, in one run."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        index = build_slack_index(folder)
        calm = flood(index, folder, limited=False)
        hit = flood(index, folder, limited=True)
    return [
        f"{CLICKS} Save clicks while views.publish answers 429 (Retry-After {RETRY_AFTER} s): {hit.acked}/{CLICKS} "
        f"acked within {ACK_DEADLINE:.0f} s, slowest {hit.slowest * 1000:.0f} ms "
        f"(views.publish answering: {calm.acked}/{CLICKS}, slowest {calm.slowest * 1000:.0f} ms)",
        f"another workspace's mention meanwhile answered in {hit.mention * 1000:.0f} ms "
        f"(views.publish answering: {calm.mention * 1000:.0f} ms)",
        f"the clicker's Home tab: {hit.home_publishes} views.publish calls, refused ones included "
        f"(views.publish answering: {calm.home_publishes})",
    ]


if __name__ == "__main__":
    # The refused publishes and waitress's queue notes are expected here
    logging.basicConfig(level=logging.ERROR)
    print("\n".join(figures()))
