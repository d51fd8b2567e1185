"""PostgreSQL lost while the bot runs: searches answer from the index, digests wait and post once when it is back."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.digest.decisions import CLAIM_STALE_SECONDS
from bot.digest.model import Digest, Poster
from bot.digest.scheduler import DigestScheduler
from bot.digest.subscriptions import Settings
from bot.slack.digest_commands import UNREACHABLE
from bot.state import is_unreachable
from tests.support.digest import MON, Clock, digest_ids, make_digests
from tests.support.fake_slack import FakeSlack
from tests.support.postgres import PostgresServer
from tests.support.seed_ids import SEED_ORDER
from tests.support.slack_harness import SlackHttp, slack_config, texts
from tests.support.slack_requests import mention_event

SEOUL = ZoneInfo("Asia/Seoul")
C1 = "C0123456789"


@pytest.fixture
def pg_http(fake: FakeSlack, slack_index_path: Path, private_postgres: PostgresServer) -> Iterator[SlackHttp]:
    """The app in HTTP mode with its state on a PostgreSQL server the test can stop."""
    served = SlackHttp(slack_config(fake, slack_index_path, private_postgres.new_database()))
    yield served
    served.stop()


def test_while_postgresql_is_down_searches_answer_and_health_says_why(
    pg_http: SlackHttp, fake: FakeSlack, private_postgres: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    health = pg_http.request("GET", "/healthz")
    assert (health.status, health.json()["state"]) == (200, "ok")
    private_postgres.stop()
    with caplog.at_level(logging.ERROR, logger="bot.serve.gate"):
        health = pg_http.request("GET", "/healthz")
    assert (health.status, health.json()) == (503, {"ok": False, "papers": 20, "index": "ok", "state": "failing"})
    # libpq names the socket: for the log only
    assert str(private_postgres.socket_dir) not in health.body.decode()
    assert "health check failed: {'state': " in caplog.text
    answer = pg_http.command("kv cache")
    assert answer.status == 200
    assert "DefensiveKV" in texts(answer.json())
    with caplog.at_level(logging.WARNING):
        assert pg_http.event(mention_event("speculative decoding"), event_id="EvDown").status == 200
        (reply,) = fake.wait_for("chat.postMessage")
        assert reply.params["thread_ts"]
        settings = pg_http.command(f"digest subscribe {C1}", channel_id=C1).json()
    assert UNREACHABLE in texts(settings)
    assert any("cannot be reached" in r.getMessage() for r in caplog.records)
    assert not any(r.exc_info for r in caplog.records)
    private_postgres.start()
    assert pg_http.request("GET", "/healthz").json()["state"] == "ok"
    assert pg_http.event(mention_event("speculative decoding"), event_id="EvUp").status == 200
    fake.wait_for("chat.postMessage", count=2)
    assert pg_http.event(mention_event("speculative decoding"), event_id="EvUp", retry_num=1).status == 200
    pg_http.drain()
    assert len(fake.posts()) == 2  # the retry after the server came back was answered once


def test_scheduled_digests_wait_for_postgresql_and_post_once(
    seed_index_path: Path, private_postgres: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(datetime(2026, 3, 9, 8, 0, tzinfo=SEOUL))
    with FakeSlack(clock=clock.timestamp) as slack:
        digests = make_digests(slack, seed_index_path, private_postgres.new_database())
        digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
        sched = DigestScheduler(digests, clock=clock, owner="pg-outage")
        try:
            assert sched.take_lease(clock()) is True
            private_postgres.stop()
            clock.set(datetime(2026, 3, 9, 9, 0, tzinfo=SEOUL))
            with caplog.at_level(logging.WARNING):
                sched.tick()  # the lease cannot be renewed: nothing is posted, one line says why
                sched.fire(C1)  # the cron job fires into the outage: logged, nothing posted
            assert slack.posts(C1) == []
            assert any("cannot be reached" in r.getMessage() for r in caplog.records)
            private_postgres.start()
            clock.set(datetime(2026, 3, 9, 9, 1, tzinfo=SEOUL))
            sched.tick()  # the next check: the digest missed at 09:00 is posted now
            sched.tick()
            sched.fire(C1)
            assert len(slack.posts(C1)) == 1
            assert digest_ids(slack.posts(C1)[0]) == SEED_ORDER[:3]
        finally:
            sched.shutdown()


def test_postgresql_lost_while_a_digest_is_in_flight_leaves_it_posted_once(
    seed_index_path: Path, private_postgres: PostgresServer
) -> None:
    clock = Clock(datetime(2026, 3, 9, 9, 0, tzinfo=SEOUL))
    with FakeSlack(clock=clock.timestamp) as slack:
        url = private_postgres.new_database()
        digests = make_digests(slack, seed_index_path, url)
        digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
        gate = slack.hold_next("chat.postMessage")
        raised: list[BaseException] = []

        def post() -> None:
            try:
                digests.post_digest(C1, MON, clock())
            except BaseException as exc:  # asserted below
                raised.append(exc)

        poster = threading.Thread(target=post)
        poster.start()
        slack.wait_arrived("chat.postMessage")  # claimed in PostgreSQL, the post is at Slack
        private_postgres.stop()  # ...and the database goes away before the ts is recorded
        gate.set()
        poster.join(60)
        assert len(slack.posts(C1)) == 1
        assert len(raised) == 1  # recording the ts failed: the database is gone
        assert is_unreachable(raised[0])
        private_postgres.start()
        # Another process: for all it knows, the post goes on
        other = make_digests(slack, seed_index_path, url)
        # The claim holds
        assert other.post_digest(C1, MON, clock.advance(seconds=30)).status == "busy"
        # Its own process knows that attempt is over: it settles it at its next check, not 10 minutes later.
        # The history shows it: recorded, not posted again
        [outcome] = digests.resolve_pending(clock())
        assert (outcome.status, outcome.recovered, outcome.ts) == ("posted", True, slack.history(C1)[0]["ts"])
        assert other.post_digest(C1, MON, clock()).status == "already"
        assert len(slack.posts(C1)) == 1


class Gone(BaseException):
    """The process is killed (nothing after it runs)."""


def test_a_claim_left_by_a_process_that_was_killed_is_settled_after_it_goes_stale(
    seed_index_path: Path, private_postgres: PostgresServer
) -> None:
    clock = Clock(datetime(2026, 3, 9, 9, 0, tzinfo=SEOUL))
    with FakeSlack(clock=clock.timestamp) as slack:
        url = private_postgres.new_database()
        killed = make_digests(slack, seed_index_path, url)
        killed.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
        dead = threading.Event()
        assert killed.poster is not None
        real: Poster = killed.poster

        class PostThenDie:
            def post(self, digest: Digest) -> str:
                real.post(digest)
                dead.wait(60)  # the process is gone: nothing after the post runs
                raise Gone

            def find(self, channel: str, day: date, since: float, team: str = "") -> str | None:
                return real.find(channel, day, since, team)

        def post() -> None:
            with contextlib.suppress(Gone):
                killed.post_digest(C1, MON, clock())

        killed.poster = PostThenDie()
        threading.Thread(target=post, daemon=True).start()
        slack.wait_for("chat.postMessage")  # claimed and posted, never recorded
        other = make_digests(slack, seed_index_path, url)  # another replica
        try:
            # It may still be posting
            assert other.post_digest(C1, MON, clock.advance(seconds=30)).status == "busy"
            clock.advance(seconds=CLAIM_STALE_SECONDS)
            [outcome] = other.resolve_pending(clock())
            assert (outcome.status, outcome.recovered) == ("posted", True)
            assert len(slack.posts(C1)) == 1
        finally:
            dead.set()
