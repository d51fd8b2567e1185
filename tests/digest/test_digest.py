"""The daily digest: which papers a channel gets on a date, rounds, and exactly one digest per channel and date.

Every test passes the date and time in and posts through the real WebClient to the fake Slack Web API.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from pathlib import Path
from queue import Queue
from zoneinfo import ZoneInfo

import pytest

from bot.config import ConfigError
from bot.digest.channels import ChannelDigests
from bot.digest.decisions import CLAIM_STALE_SECONDS
from bot.digest.model import Digest, Poster, validate_channel
from bot.digest.select import spread
from bot.digest.subscriptions import Settings
from bot.state import State
from tests.support.digest import MON, Clock, digest_ids, make_digests
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import DEFENSIVE_KV, SEED_ORDER, VEGAS

C1, C2 = "C0DIGEST01", "C0DIGEST02"
NINE_KST = datetime(2026, 3, 9, 9, 0, tzinfo=ZoneInfo("Asia/Seoul"))


@pytest.fixture
def clock() -> Clock:
    return Clock(NINE_KST.astimezone(UTC))


@pytest.fixture
def state_path(state_target: Path | str) -> Path | str:
    return state_target


@pytest.fixture
def digests(slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock) -> ChannelDigests:
    d = make_digests(slack, seed_index_path, state_path)
    d.subscriptions.subscribe(C1, clock(), Settings(tz=ZoneInfo("Asia/Seoul")), user="U1")
    return d


class Crash(BaseException):
    """The process dies (raised from inside the poster: nothing after it runs)."""


class CrashAfterPost:
    """A poster that posts for real and then 'dies' before the ts can be recorded."""

    def __init__(self, real: Poster) -> None:
        self.real = real

    def post(self, digest: Digest) -> str:
        self.real.post(digest)
        raise Crash

    def find(self, channel: str, day: date, since: float, team: str = "") -> str | None:
        return self.real.find(channel, day, since, team)


class CrashBeforePost(CrashAfterPost):
    def post(self, digest: Digest) -> str:
        raise Crash


def posting(digests: ChannelDigests) -> Poster:
    """The poster the digests were built with (make_digests gives them one when there is a fake Slack)."""
    assert digests.poster is not None
    return digests.poster


# --------------------------------------------------------------------------- configuration


def test_channel_ids_are_validated_with_a_one_line_error() -> None:
    assert validate_channel(" C0123456789 ") == "C0123456789"
    assert validate_channel("G01ABCDEF") == "G01ABCDEF"
    for bad in ("#general", "general", "c0123456789", "C12", "U0123456789", ""):
        with pytest.raises(ConfigError) as err:
            validate_channel(bad)
        message = str(err.value)
        assert message.startswith(f"ICML_DIGEST_CHANNEL={bad!r} is not a channel id")
        assert "\n" not in message


def test_config_channel_becomes_a_subscription_and_slack_changes_win(
    slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    d = make_digests(
        slack,
        seed_index_path,
        state_path,
        digest_channel=C1,
        digest_tz=ZoneInfo("Asia/Seoul"),
        digest_time=time(8, 30),
        digest_days=frozenset({0, 2, 4}),
        digest_size=2,
    )
    sub = d.subscriptions.ensure_config_subscription(clock())
    assert sub is not None
    assert (sub.source, sub.at, sub.tz.key, sub.days, sub.size) == (
        "config",
        time(8, 30),
        "Asia/Seoul",
        "mon,wed,fri",
        2,
    )
    # Changed from Slack
    d.subscriptions.subscribe(C1, clock(), Settings(topics="kv cache"), user="U1")
    again = make_digests(
        slack, seed_index_path, state_path, digest_channel=C1
    ).subscriptions.ensure_config_subscription(clock())
    assert again is not None
    assert (again.source, again.topics, again.at) == ("slack", "kv cache", time(8, 30))
    d.subscriptions.unsubscribe(C1, clock())
    assert (
        make_digests(slack, seed_index_path, state_path, digest_channel=C1).subscriptions.ensure_config_subscription(
            clock()
        )
        is None
    )  # an unsubscribe from Slack survives restarts
    with pytest.raises(ConfigError, match="ICML_DIGEST_CHANNEL='#papers' is not a channel id"):
        make_digests(
            slack, seed_index_path, state_path, digest_channel="#papers"
        ).subscriptions.ensure_config_subscription(clock())


def test_moving_the_config_channel_stops_the_old_one(
    slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    make_digests(slack, seed_index_path, state_path, digest_channel=C1).subscriptions.ensure_config_subscription(
        clock()
    )
    d = make_digests(slack, seed_index_path, state_path, digest_channel=C2)
    d.subscriptions.ensure_config_subscription(clock())
    assert [s.channel for s in d.subscriptions.active()] == [C2]


# --------------------------------------------------------------------------- selection and rounds


def test_seven_days_show_all_19_papers_once_before_any_repeats(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    shown: list[str] = []
    for n in range(7):
        day = MON + timedelta(days=n)
        outcome = digests.post_digest(C1, day, clock.set(datetime.combine(day, time(9), ZoneInfo("Asia/Seoul"))))
        assert outcome.status == "posted", outcome.describe()
        shown += digest_ids(slack.posts(C1)[-1])
    # 3+3+3+3+3+3+1: every paper once, in order, the last digest ends the round
    assert shown == SEED_ORDER
    last = slack.posts(C1)[-1]
    assert "That's all 19 papers" in str(last["blocks"])
    assert "round 2" in str(last["blocks"])
    assert last["blocks"][-1]["elements"][0]["text"] == "Paper 19 of 19 · next digest Mon 09:00 KST"
    eighth = digests.post_digest(C1, MON + timedelta(days=7), clock.advance(days=1))
    assert eighth.digest is not None
    assert eighth.digest.paper_ids == SEED_ORDER[:3]
    assert eighth.digest.round == 2
    assert "Papers 1-3 of 19 (round 2)" in slack.posts(C1)[-1]["blocks"][-1]["elements"][0]["text"]


def test_footer_counts_and_names_the_next_digest_in_the_channel_zone(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    digests.post_digest(C1, MON, clock())
    digests.post_digest(C1, MON + timedelta(days=1), clock.advance(days=1))
    assert slack.posts(C1)[0]["blocks"][-1]["elements"][0]["text"] == "Papers 1-3 of 19 · next digest Tue 09:00 KST"
    assert slack.posts(C1)[1]["blocks"][-1]["elements"][0]["text"] == "Papers 4-6 of 19 · next digest Wed 09:00 KST"
    friday = digests.builder.plan(C1, MON + timedelta(days=4))
    assert friday.next_at is not None
    assert friday.next_at.strftime("%a %d %H:%M %Z") == "Mon 16 09:00 KST"


def test_a_restart_between_dates_repeats_nothing(
    slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    shown: list[str] = []
    for n in range(4):
        d = make_digests(slack, seed_index_path, state_path)  # a new process every morning
        if n == 0:
            d.subscriptions.subscribe(C1, clock(), Settings(tz=ZoneInfo("Asia/Seoul")))
        day = MON + timedelta(days=n)
        assert (
            d.post_digest(C1, day, clock.set(datetime.combine(day, time(9), ZoneInfo("Asia/Seoul")))).status == "posted"
        )
        shown += digest_ids(slack.posts(C1)[-1])
        d.state.close()
    assert shown == SEED_ORDER[:12]


def test_topics_go_first_through_the_search_module(digests: ChannelDigests, slack: FakeSlack, clock: Clock) -> None:
    digests.subscriptions.subscribe(C1, clock(), Settings(topics="kv cache"))
    outcome = digests.post_digest(C1, MON, clock())
    assert outcome.digest is not None
    picked = outcome.digest.paper_ids
    # DefensiveKV and Vegas: the two KV cache papers
    assert set(picked[:2]) == {DEFENSIVE_KV, VEGAS}
    assert outcome.digest.topic_ids >= {DEFENSIVE_KV, VEGAS}
    post = slack.posts(C1)[0]
    assert "Papers on *kv cache* first" in str(post["blocks"])
    # the topic papers came first, the round still covers every paper exactly once
    for n in range(1, 7):
        digests.post_digest(C1, MON + timedelta(days=n), clock.advance(days=1))
    everything = [i for p in slack.posts(C1) for i in digest_ids(p)]
    assert sorted(everything) == sorted(SEED_ORDER)


def test_spread_puts_orals_and_spotlights_first_and_alternates_areas() -> None:
    rows = [
        {"id": "p1", "seq": 1, "status": "Poster", "area": "A"},
        {"id": "p2", "seq": 2, "status": "Poster", "area": "A"},
        {"id": "p3", "seq": 3, "status": "Poster", "area": "B"},
        {"id": "s1", "seq": 4, "status": "Spotlight", "area": "A"},
        {"id": "o1", "seq": 5, "status": "Oral", "area": "B"},
        {"id": "o2", "seq": 6, "status": "oral", "area": "B"},
        {"id": "x1", "seq": 7, "status": None, "area": None},
    ]
    assert spread(rows) == ["o1", "o2", "s1", "p1", "p3", "x1", "p2"]


def test_preview_plan_does_not_use_up_papers(digests: ChannelDigests, slack: FakeSlack, clock: Clock) -> None:
    assert digests.builder.plan(C1, MON).paper_ids == SEED_ORDER[:3]
    assert digests.builder.plan(C1, MON).paper_ids == SEED_ORDER[:3]
    assert slack.posts() == []
    digests.post_digest(C1, MON, clock())
    assert digests.builder.plan(C1, MON + timedelta(days=1)).paper_ids == SEED_ORDER[3:6]


# --------------------------------------------------------------------------- exactly once


def test_two_runs_on_one_date_post_once(digests: ChannelDigests, slack: FakeSlack, clock: Clock) -> None:
    first = digests.post_digest(C1, MON, clock())
    # e.g. /icml digest now by hand
    second = digests.post_digest(C1, MON, clock.advance(hours=3), manual=True)
    assert (first.status, second.status) == ("posted", "already")
    assert second.ts == first.ts
    assert len(slack.posts(C1)) == 1


def race(slack: FakeSlack, *runs: Callable[[], str]) -> list[str]:
    """Start `runs` together while Slack holds the first post: (the others' outcomes, then the poster's)."""
    slack_answers = slack.hold_next("chat.postMessage")
    results: Queue[str] = Queue()
    threads = [threading.Thread(target=lambda run=run: results.put(run())) for run in runs]
    for t in threads:
        t.start()
    # One of them claimed the date and its post is in flight...
    slack.wait_arrived("chat.postMessage")
    outcomes = [results.get(timeout=10) for _ in runs[1:]]  # ...while the others come and go
    slack_answers.set()
    outcomes.append(results.get(timeout=10))
    for t in threads:
        t.join(timeout=10)
    return outcomes


def test_two_threads_at_once_post_once(digests: ChannelDigests, slack: FakeSlack, clock: Clock) -> None:
    post = partial(digests.post_digest, C1, MON, clock())
    assert race(slack, lambda: post().status, lambda: post().status) == ["busy", "posted"]
    assert len(slack.posts(C1)) == 1


def test_two_processes_on_one_state_database_post_once(
    digests: ChannelDigests, slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    # Its own State: like a second bot process
    other = make_digests(slack, seed_index_path, state_path)
    outcomes = race(
        slack,
        lambda: digests.post_digest(C1, MON, clock()).status,
        lambda: other.post_digest(C1, MON, clock()).status,
    )
    assert outcomes == ["busy", "posted"]
    assert len(slack.posts(C1)) == 1
    assert other.post_digest(C1, MON, clock()).status == "already"


def test_choosing_a_digest_from_the_index_leaves_the_state_free_for_other_writers(
    digests: ChannelDigests,
    slack: FakeSlack,
    seed_index_path: Path,
    state_path: Path | str,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading the index's order (the costly part of choosing, repeated for every digest of a fan-out) happens before
    the state's write lock is taken: a subscribe from Slack in another process does not wait behind it."""
    reading, go = threading.Event(), threading.Event()
    real = digests.builder.paper_order

    def large_index(topics: str = "") -> tuple[list[str], dict[str, list[str]]]:
        if not reading.is_set():  # the first read of the index takes as long as the test says
            reading.set()
            go.wait(10)
        return real(topics)

    monkeypatch.setattr(digests.builder, "paper_order", large_index)
    outcome: Queue[str] = Queue()
    poster = threading.Thread(target=lambda: outcome.put(digests.post_digest(C1, MON, clock()).status))
    poster.start()
    other = make_digests(slack, seed_index_path, state_path)  # another process
    try:
        assert reading.wait(10)
        with other.state.waiting_at_most(2):
            other.subscriptions.subscribe(
                C2, clock(), user="U2"
            )  # takes the write lock while the digest reads the index
    finally:
        go.set()
        poster.join(timeout=10)
    assert outcome.get(timeout=10) == "posted"
    assert other.subscriptions.subscription(C2) is not None
    assert len(slack.posts(C1)) == 1


def test_crash_between_post_and_ts_gives_exactly_one_digest_after_restart(
    digests: ChannelDigests, slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    digests.poster = CrashAfterPost(posting(digests))
    with pytest.raises(Crash):
        digests.post_digest(C1, MON, clock())
    assert len(slack.posts(C1)) == 1
    row = digests.state.digests.run(C1, MON.isoformat())
    assert row is not None
    assert row.status == "claimed"
    assert row.ts is None
    # Restart within seconds: the claim may belong to a live process, so it is left alone for now.
    restarted = make_digests(slack, seed_index_path, state_path)
    assert restarted.post_digest(C1, MON, clock.advance(seconds=30)).status == "busy"
    # Once the claim is stale, the channel history shows the digest is there: record it, post nothing.
    clock.advance(seconds=CLAIM_STALE_SECONDS)
    [outcome] = restarted.resolve_pending(clock())
    assert (outcome.status, outcome.recovered, outcome.ts) == ("posted", True, slack.history(C1)[0]["ts"])
    assert len(slack.posts(C1)) == 1
    assert restarted.post_digest(C1, MON, clock()).status == "already"
    # ...and its papers count as shown: the next day continues the round
    next_day = restarted.post_digest(C1, MON + timedelta(days=1), clock.advance(days=1)).digest
    assert next_day is not None
    assert next_day.paper_ids == SEED_ORDER[3:6]


def test_crash_before_the_post_posts_once_after_restart(
    digests: ChannelDigests, slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    digests.poster = CrashBeforePost(posting(digests))
    with pytest.raises(Crash):
        digests.post_digest(C1, MON, clock())
    assert slack.posts() == []
    restarted = make_digests(slack, seed_index_path, state_path)
    [outcome] = restarted.resolve_pending(clock.advance(seconds=CLAIM_STALE_SECONDS + 1))
    assert outcome.status == "posted"
    assert not outcome.recovered
    assert len(slack.posts(C1)) == 1
    assert digest_ids(slack.posts(C1)[0]) == SEED_ORDER[:3]
    history = [c.method for c in slack.calls() if c.method in ("conversations.history", "chat.postMessage")]
    assert history == ["conversations.history", "chat.postMessage"]  # looked before posting


def test_an_interrupted_digest_found_too_late_is_not_posted_a_day_late(
    digests: ChannelDigests, slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    digests.poster = CrashBeforePost(posting(digests))
    with pytest.raises(Crash):
        digests.post_digest(C1, MON, clock())
    restarted = make_digests(slack, seed_index_path, state_path)
    [outcome] = restarted.resolve_pending(clock.advance(hours=20))
    assert outcome.status == "skipped"
    assert slack.posts() == []
    # Nothing lost
    assert restarted.builder.plan(C1, MON + timedelta(days=1)).paper_ids == SEED_ORDER[:3]


# --------------------------------------------------------------------------- Slack errors


def test_429_then_success_posts_exactly_one_message(digests: ChannelDigests, slack: FakeSlack, clock: Clock) -> None:
    slack.fail_next("chat.postMessage", "ratelimited", retry_after=0)
    assert digests.post_digest(C1, MON, clock()).status == "posted"
    calls = slack.calls("chat.postMessage")
    assert [(c.status, c.ok) for c in calls] == [(429, False), (200, True)]
    assert len(slack.posts(C1)) == 1


def test_timeout_is_resolved_through_the_history_not_a_blind_retry(
    slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    d = make_digests(slack, seed_index_path, state_path, timeout=1)
    d.subscriptions.subscribe(C1, clock())

    # Slack takes the message but answers after the client gave up; "settling" waits until it has stored it.
    def settle(seconds: float) -> None:
        slack.wait_for(lambda c: c.method == "chat.postMessage" and c.ok, timeout=5)

    d.sleep = settle
    slack.delay_next("chat.postMessage", 1.5)
    outcome = d.post_digest(C1, MON, clock())
    assert (outcome.status, outcome.recovered) == ("posted", True)
    assert len(slack.history(C1)) == 1
    assert outcome.ts == slack.history(C1)[0]["ts"]
    assert d.post_digest(C1, MON, clock(), manual=True).status == "already"


def test_server_error_checks_history_then_posts_once(digests: ChannelDigests, slack: FakeSlack, clock: Clock) -> None:
    slack.fail_next("chat.postMessage", "internal_error", status=500)
    outcome = digests.post_digest(C1, MON, clock())
    assert outcome.status == "posted"
    assert not outcome.recovered
    methods = [c.method for c in slack.calls() if c.method in ("conversations.history", "chat.postMessage")]
    assert methods == ["chat.postMessage", "conversations.history", "chat.postMessage"]
    assert len(slack.posts(C1)) == 1


def test_unreadable_history_posts_nothing_more_and_says_so(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    slack.fail_next("chat.postMessage", "internal_error", status=500)
    slack.fail_next("conversations.history", "missing_scope")
    outcome = digests.post_digest(C1, MON, clock())
    assert outcome.status == "uncertain"
    assert "missing_scope" in (outcome.error or "")
    assert slack.posts() == []
    status = digests.builder.status(C1, clock())
    assert status.error is not None
    assert "missing_scope" in status.error[0]
    assert [r.status for r in status.pending] == ["uncertain"]
    # later, with the history readable again: not there, so it is posted (once)
    [later] = digests.resolve_pending(clock.advance(minutes=10))
    assert later.status == "posted"
    assert len(slack.posts(C1)) == 1


def test_channel_not_found_is_recorded_shown_and_retried_by_hand(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    slack.fail_next("chat.postMessage", "channel_not_found")
    outcome = digests.post_digest(C1, MON, clock())
    assert (outcome.status, outcome.error) == ("failed", "channel_not_found")
    # not retried automatically
    assert digests.post_digest(C1, MON, clock.advance(hours=1)).acted is False
    status = digests.builder.status(C1, clock())
    assert status.error is not None
    assert status.error[0] == "channel_not_found"
    # After someone fixed it
    assert digests.post_digest(C1, MON, clock(), manual=True).status == "posted"
    assert len(slack.posts(C1)) == 1
    assert digests.builder.status(C1, clock()).error is None


def test_a_rate_limit_that_persists_is_retried_later_with_backoff(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    # The client tries 1 + 3 times
    slack.fail_next("chat.postMessage", "ratelimited", retry_after=0, times=4)
    assert digests.post_digest(C1, MON, clock()).status == "failed"
    assert digests.post_digest(C1, MON, clock.advance(seconds=30)).acted is False  # backing off
    assert digests.post_digest(C1, MON, clock.advance(minutes=5)).status == "posted"
    assert len(slack.posts(C1)) == 1


# --------------------------------------------------------------------------- subscriptions survive


def test_subscriptions_survive_restarts_and_reindexing(
    slack: FakeSlack, seed_index_path: Path, state_path: Path | str, clock: Clock
) -> None:
    d = make_digests(slack, seed_index_path, state_path)
    d.subscriptions.subscribe(
        C1, clock(), Settings(topics="moe", at=time(7, 45), tz=ZoneInfo("Europe/Berlin"), days="mon,wed"), user="U1"
    )
    d.state.close()
    again = make_digests(slack, seed_index_path, state_path).subscriptions.subscription(C1)
    assert again is not None
    assert (again.topics, again.at, again.tz.key, again.days, again.created_by) == (
        "moe",
        time(7, 45),
        "Europe/Berlin",
        "mon,wed",
        "U1",
    )
    # Lives in the state db, not the index
    assert State(state_path).digests.subscription(C1) is not None
