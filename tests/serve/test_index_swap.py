"""A new index while the app answers signed requests over HTTP, renamed in or loaded by a scheduled refresh: every
answer comes whole from the old index or the new one, the new one is read without a restart."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.papers import fetching as run
from bot.papers.fetch.http import JsonClient, RetryPolicy
from bot.papers.publish import publish
from bot.papers.venues import parse_venue
from bot.serve.refresh import Refresher
from tests.support.conference_fakes import FakeSite, make_conference, serve
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


def test_a_scheduled_refresh_while_answering_is_seen_whole(fake: FakeSlack, tmp_path: Path) -> None:
    with serve(FakeSite(make_conference(), page_size=10)) as site:
        settings = run.Settings(
            cache_dir=tmp_path / "cache",
            site_url=site.url,
            client=JsonClient(timeout=10, retry=RetryPolicy(sleep=lambda _: None)),
        )
        path = tmp_path / "papers.db"
        assert run.fetch_venues(path, [parse_venue("icml2026")], settings).index is not None
        http = SlackHttp(slack_config(fake, path, tmp_path / "state.db"))
        query = '"Generated Paper 34"'  # the paper the site lists from now on

        def shown() -> str:
            reply = http.command(query)
            text = texts(reply.json()) if reply.status == 200 else f"HTTP {reply.status}"
            return "new" if "Generated Paper 34:" in text else "old" if "No papers match" in text else text[:200]

        seen: list[str] = []
        done = threading.Event()

        def hammer() -> None:
            while not done.is_set():
                seen.append(shown())

        client = threading.Thread(target=hammer)
        try:
            assert shown() == "old"
            client.start()
            site.conference = make_conference(posters=31)
            refresher = Refresher(path, 6 * 3600, settings, clock=lambda: datetime.now(UTC) + timedelta(hours=7))
            outcome = refresher.tick()
            assert outcome is not None
            assert outcome.ok, outcome.line
            assert shown() == "new"
        finally:
            done.set()
            if client.is_alive():
                client.join(30)
            http.stop()
        assert seen
        assert set(seen) <= {"old", "new"}, sorted(set(seen) - {"old", "new"})
