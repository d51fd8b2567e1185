"""A new index renamed in while the app answers signed requests over HTTP: every answer comes whole from the old
index or the new one, the new one is read without a restart, and /healthz counts its papers."""

from __future__ import annotations

import threading
from pathlib import Path

from bot.papers.publish import publish
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, slack_config, texts
from tests.support.venue_index import NEW_PAPER, build

SWAPS = 6


def answer(http: SlackHttp) -> str:
    """What `/icml zorblatting` shows: `new` (the new paper), `old` (no match) or what went wrong."""
    reply = http.command("zorblatting")
    if reply.status != 200:
        return f"HTTP {reply.status}"
    shown = texts(reply.json())
    if "Zorblatting Transformers" in shown:
        return "new"
    return "old" if "No papers match *zorblatting*" in shown else f"unexpected: {shown[:200]}"


def test_requests_during_swaps_see_one_index_or_the_other(fake: FakeSlack, tmp_path: Path) -> None:
    old, new = build(tmp_path / "old", []), build(tmp_path / "new", [NEW_PAPER])
    live = tmp_path / "live" / "papers.db"
    publish(old, live)
    http = SlackHttp(slack_config(fake, live, tmp_path / "state.db"))
    seen: list[str] = []
    done = threading.Event()

    def hammer() -> None:
        while not done.is_set():
            seen.append(answer(http))

    clients = [threading.Thread(target=hammer) for _ in range(2)]
    try:
        assert answer(http) == "old"
        for client in clients:
            client.start()
        for swap in range(SWAPS):
            publish(new if swap % 2 == 0 else old, live)
            # The next request after the rename reads the new file, whichever server thread takes it.
            assert answer(http) == ("new" if swap % 2 == 0 else "old")
            health = http.request("GET", "/healthz").json()
            assert health["papers"] == (20 if swap % 2 == 0 else 19)
    finally:
        done.set()
        for client in clients:
            client.join(30)
        http.stop()
    assert seen, "the clients sent requests during the swaps"
    assert set(seen) <= {"old", "new"}, sorted(set(seen) - {"old", "new"})
