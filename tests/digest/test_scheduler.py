"""Digest scheduling: cron times across daylight saving, catch-up within the grace window, one scheduler per state
database, and a cron job that fires and posts through the real WebClient to the fake Slack."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from queue import Queue
from zoneinfo import ZoneInfo

import pytest
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent

from bot.digest import scheduler
from bot.digest.channels import ChannelDigests
from bot.digest.model import Subscription
from bot.digest.scheduler import DigestScheduler
from bot.digest.schedules import last_run, next_run
from bot.digest.subscriptions import Settings
from tests.support.digest import Clock, digest_ids, make_digests
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import SEED_ORDER
from tests.support.state_sql import state_sql

C1, C2 = "C0SCHED001", "C0SCHED002"
NY, BERLIN, SEOUL = ZoneInfo("America/New_York"), ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Seoul")


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 9, 8, 0, tzinfo=SEOUL).astimezone(UTC))


@pytest.fixture
def digests(slack: FakeSlack, seed_index_path: Path, state_target: Path | str) -> ChannelDigests:
    return make_digests(slack, seed_index_path, state_target)


@pytest.fixture
def sched(digests: ChannelDigests, clock: Clock) -> Iterator[DigestScheduler]:
    s = DigestScheduler(digests, clock=clock, owner="test-owner")
    yield s
    s.shutdown()


def sub(tz: ZoneInfo, days: str = "mon-fri", at: time = time(9, 0)) -> Subscription:
    return Subscription(C1, at=at, tz=tz, days=days)


def utc(year: int, month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


# --------------------------------------------------------------------------- cron times and daylight saving


@pytest.mark.parametrize(
    ("tz", "days", "before", "expected"),
    [
        # New York springs forward on Sun 2026-03-08: Fri 09:00 EST = 14:00 UTC, Mon 09:00 EDT = 13:00 UTC
        (NY, "mon-fri", utc(2026, 3, 6, 12, 0), [utc(2026, 3, 6, 14), utc(2026, 3, 9, 13), utc(2026, 3, 10, 13)]),
        # ...and falls back on Sun 2026-11-01: Fri 09:00 EDT = 13:00 UTC, Mon 09:00 EST = 14:00 UTC
        (NY, "mon-fri", utc(2026, 10, 30, 12, 0), [utc(2026, 10, 30, 13), utc(2026, 11, 2, 14), utc(2026, 11, 3, 14)]),
        # Berlin every day across Sun 2026-03-29 (CET → CEST) and Sun 2026-10-25 (CEST → CET)
        (BERLIN, "mon-sun", utc(2026, 3, 28, 0, 0), [utc(2026, 3, 28, 8), utc(2026, 3, 29, 7), utc(2026, 3, 30, 7)]),
        (
            BERLIN,
            "mon-sun",
            utc(2026, 10, 24, 0, 0),
            [utc(2026, 10, 24, 7), utc(2026, 10, 25, 8), utc(2026, 10, 26, 8)],
        ),
    ],
)
def test_next_runs_stay_at_local_nine_across_daylight_saving(
    tz: ZoneInfo, days: str, before: datetime, expected: list[datetime]
) -> None:
    s = sub(tz, days)
    runs, after = [], before
    for _ in expected:
        at = next_run(s, after)
        assert at is not None
        runs.append(at)
        after = at + timedelta(seconds=1)
    assert [r.astimezone(UTC) for r in runs] == expected
    assert [(r.astimezone(tz).hour, r.astimezone(tz).minute) for r in runs] == [(9, 0)] * len(expected)
    # The offset changed in between, local time did not
    assert len({r.utcoffset() for r in runs}) == 2


def test_day_of_week_names_mean_what_they_say() -> None:
    s = sub(SEOUL, "mon,wed,fri")
    at, days = utc(2026, 3, 9, 0, 0), []  # Monday 09:00 KST = 00:00 UTC
    for _ in range(4):
        nxt = next_run(s, at)
        assert nxt is not None
        days.append(nxt.astimezone(SEOUL).strftime("%a %d"))
        at = nxt + timedelta(seconds=1)
    assert days == ["Mon 09", "Wed 11", "Fri 13", "Mon 16"]


def test_last_run_is_the_latest_slot_not_after_now() -> None:
    s = sub(NY)
    assert last_run(s, utc(2026, 3, 9, 13, 0)) == datetime(2026, 3, 9, 9, 0, tzinfo=NY)
    # Weekend in between
    assert last_run(s, utc(2026, 3, 9, 12, 59)) == datetime(2026, 3, 6, 9, 0, tzinfo=NY)


# --------------------------------------------------------------------------- catch-up and the grace window


def test_a_missed_run_within_the_grace_window_is_posted_once(
    digests: ChannelDigests, sched: DigestScheduler, slack: FakeSlack, clock: Clock
) -> None:
    digests.subscriptions.subscribe(
        C1, clock(), Settings(tz=SEOUL)
    )  # 08:00 KST; the bot then is down from 08:55 to 11:00
    clock.set(datetime(2026, 3, 9, 11, 0, tzinfo=SEOUL))
    sched.tick()
    assert len(slack.posts(C1)) == 1
    assert digest_ids(slack.posts(C1)[0]) == SEED_ORDER[:3]
    assert "Mon 9 Mar 2026" in slack.posts(C1)[0]["blocks"][0]["text"]["text"]
    sched.tick()
    sched.fire(C1)  # and the cron job too: still one
    assert len(slack.posts(C1)) == 1


def test_a_run_missed_beyond_the_grace_window_is_skipped_and_recorded(
    digests: ChannelDigests, sched: DigestScheduler, slack: FakeSlack, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
    clock.set(datetime(2026, 3, 9, 15, 30, tzinfo=SEOUL))  # 6 h 30 m late; grace is 6 h
    with caplog.at_level(logging.WARNING, logger="bot.digest"):
        sched.tick()
    assert slack.posts() == []
    row = digests.state.digests.run(C1, "2026-03-09")
    assert row is not None
    assert row.status == "skipped"
    assert row.error is not None
    assert "came back 6h 30m later, beyond ICML_DIGEST_GRACE (6h)" in row.error
    assert any("skipped the digest for C0SCHED001 on 2026-03-09" in r.getMessage() for r in caplog.records)
    # the next morning goes on normally, with the papers the skipped day would have had
    clock.set(datetime(2026, 3, 10, 9, 0, tzinfo=SEOUL))
    sched.tick()
    assert digest_ids(slack.posts(C1)[0]) == SEED_ORDER[:3]
    # `/icml digest now` can still post a skipped day by hand
    assert digests.post_digest(C1, date(2026, 3, 9), clock(), manual=True).status == "posted"


def test_a_tick_asks_the_state_the_same_few_questions_however_many_channels_have_had_their_digest(
    slack: FakeSlack, seed_index_path: Path, tmp_path: Path, clock: Clock
) -> None:
    """Every process ticks every 30 s over every subscription: with 10,000 channels, queries per channel (lease,
    subscription, run) kept a replica busy all day. One read of the recent runs says which channels have nothing due."""
    digests = make_digests(slack, seed_index_path, tmp_path / "state.db")
    sched = DigestScheduler(digests, clock=clock, owner="one")
    statements: list[str] = []

    def statements_of_a_tick(channels: int) -> int:
        made = clock.set(datetime(2026, 3, 9, 7, 0, tzinfo=SEOUL))
        for n in range(channels):
            digests.subscriptions.subscribe(f"C0MANY{n:04d}", made, Settings(at=time(8), tz=SEOUL))
        clock.set(datetime(2026, 3, 9, 8, 1, tzinfo=SEOUL))
        slack.reset()
        sched.tick()  # posts every digest due at 08:00 that is not in its channel yet
        clock.set(datetime(2026, 3, 9, 8, 5, tzinfo=SEOUL))
        statements.clear()
        state_sql(digests.state).conn.set_trace_callback(statements.append)
        try:
            sched.tick()  # nothing left to do
        finally:
            state_sql(digests.state).conn.set_trace_callback(None)
        return len(statements)

    few = statements_of_a_tick(5)
    assert len(slack.posts()) == 5
    assert statements_of_a_tick(40) == few  # the same 5 channels, and 35 more
    assert len(slack.posts()) == 35  # (the first 5 had theirs)
    assert few < 20, statements
    sched.shutdown()


def test_one_digest_slack_is_slow_to_answer_does_not_hold_up_the_others_of_a_catch_up(
    digests: ChannelDigests, sched: DigestScheduler, slack: FakeSlack, clock: Clock
) -> None:
    """After a take-over the rest of a morning's fan-out goes out through the catch-up: a post Slack holds (or
    answers with a 5xx, which costs a look at the history) must not keep every other channel waiting behind it."""
    channels = [f"C0WAIT{n:04d}" for n in range(4)]
    for channel in channels:
        digests.subscriptions.subscribe(channel, clock(), Settings(at=time(8, 30), tz=SEOUL))
    clock.set(datetime(2026, 3, 9, 8, 31, tzinfo=SEOUL))
    held = slack.hold_next("chat.postMessage", channel=channels[0])
    ticking = threading.Thread(target=sched.tick)
    ticking.start()
    try:
        slack.wait_arrived("chat.postMessage", channel=channels[0])
        others = slack.wait_for(lambda c: c.method == "chat.postMessage" and c.ok, count=3, timeout=20)
        # while the first is still at Slack
        assert {c.params["channel"] for c in others} == set(channels[1:])
    finally:
        held.set()
        ticking.join(timeout=30)
    assert sorted(p["channel"] for p in slack.posts()) == channels


def test_a_long_outage_posts_one_digest_not_a_backlog(
    slack: FakeSlack, seed_index_path: Path, state_target: Path | str, clock: Clock
) -> None:
    digests = make_digests(slack, seed_index_path, state_target, digest_grace=30 * 3600)
    # Monday 08:00; down until Wednesday 10:00
    digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
    sched = DigestScheduler(digests, clock=clock, owner="one")
    clock.set(datetime(2026, 3, 11, 10, 0, tzinfo=SEOUL))
    sched.tick()
    [post] = slack.posts(C1)
    assert "Wed 11 Mar 2026" in post["blocks"][0]["text"]["text"]
    assert digest_ids(post) == SEED_ORDER[:3]
    assert [(r.day, r.status) for r in digests.state.digests.runs(C1)] == [
        ("2026-03-11", "posted"),
        ("2026-03-10", "skipped"),
        ("2026-03-09", "skipped"),
    ]
    sched.shutdown()


def test_a_time_that_happens_twice_when_clocks_go_back_posts_once(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    clock.set(datetime(2026, 10, 31, 12, 0, tzinfo=NY))
    digests.subscriptions.subscribe(C1, clock(), Settings(at=time(1, 30), tz=NY, days="mon-sun"))
    sched = DigestScheduler(digests, clock=clock, owner="one")
    first = clock.set(datetime(2026, 11, 1, 5, 31, tzinfo=UTC))  # 01:31 EDT
    # 01:31 EST, an hour later: 01:30 came again
    second = clock.set(datetime(2026, 11, 1, 6, 31, tzinfo=UTC))
    sub = digests.subscriptions.subscription(C1)
    assert sub is not None
    runs = [last_run(sub, t) for t in (first, second)]
    assert [run.utcoffset() if run else None for run in runs] == [
        timedelta(hours=-4),
        timedelta(hours=-5),
    ]
    clock.set(first)
    fired = sched.fire(C1)
    assert fired is not None
    assert fired.status == "posted"
    clock.set(second)
    assert sched.fire(C1) is None
    assert len(slack.posts(C1)) == 1
    sched.shutdown()


def test_no_catch_up_for_slots_before_the_subscription(
    digests: ChannelDigests, sched: DigestScheduler, slack: FakeSlack, clock: Clock
) -> None:
    clock.set(datetime(2026, 3, 9, 10, 0, tzinfo=SEOUL))
    digests.subscriptions.subscribe(
        C1, clock(), Settings(tz=SEOUL)
    )  # subscribed at 10:00: today's 09:00 was never owed
    sched.tick()
    assert slack.posts() == []
    assert digests.state.digests.runs(C1) == []


def test_one_channel_failing_does_not_stop_another(
    digests: ChannelDigests, sched: DigestScheduler, slack: FakeSlack, clock: Clock
) -> None:
    for channel in (C1, C2):
        digests.subscriptions.subscribe(channel, clock(), Settings(tz=SEOUL))
    # Due digests go out in parallel
    slack.fail_next("chat.postMessage", "channel_not_found", channel=C1)
    clock.set(datetime(2026, 3, 9, 9, 0, 5, tzinfo=SEOUL))
    sched.tick()
    assert [p["channel"] for p in slack.posts()] == [C2]
    status = digests.builder.status(C1, clock())
    assert status.error is not None
    assert status.error[0] == "channel_not_found"
    assert digests.builder.status(C2, clock()).error is None
    sched.tick()  # a permanent error is not retried every tick
    assert len(slack.calls("chat.postMessage")) == 2


# --------------------------------------------------------------------------- one scheduler per state database


def test_a_second_process_schedules_nothing_until_the_lease_expires(
    digests: ChannelDigests,
    slack: FakeSlack,
    seed_index_path: Path,
    state_target: Path | str,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
    first = DigestScheduler(digests, clock=clock, owner="first")
    second = DigestScheduler(make_digests(slack, seed_index_path, state_target), clock=clock, owner="second")
    with caplog.at_level(logging.INFO, logger="bot.digest.scheduler"):
        assert first.take_lease(clock()) is True
        assert second.take_lease(clock()) is False
    assert list(first.jobs()) == [C1]
    assert second.jobs() == {}
    assert any("another icml-bot process (first) schedules the daily digests" in r.getMessage() for r in caplog.records)
    clock.set(datetime(2026, 3, 9, 9, 0, tzinfo=SEOUL))
    first.take_lease(clock())  # its tick keeps renewing the lease
    second.tick()
    assert slack.posts() == []  # the standby does not post
    first.tick()
    assert len(slack.posts(C1)) == 1
    # the first process dies without letting go: after the lease runs out the second takes over
    clock.advance(seconds=scheduler.LEASE_TTL - 1)
    assert second.take_lease(clock()) is False
    clock.advance(seconds=2)
    assert second.take_lease(clock()) is True
    assert list(second.jobs()) == [C1]
    assert first.take_lease(clock()) is False
    assert first.jobs() == {}
    second.shutdown()  # a clean stop hands the lease back at once
    assert first.take_lease(clock()) is True
    first.shutdown()


def test_subscriptions_from_slack_update_the_jobs_without_a_restart(
    digests: ChannelDigests,
    sched: DigestScheduler,
    slack: FakeSlack,
    seed_index_path: Path,
    state_target: Path | str,
    clock: Clock,
) -> None:
    sched.take_lease(clock())
    assert sched.jobs() == {}
    digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
    sched.sync()  # what /icml digest subscribe does in this process
    assert list(sched.jobs()) == [C1]
    job = sched.scheduler.get_job("digest:" + C1)
    assert str(job.trigger) == "cron[day_of_week='mon-fri', hour='9', minute='0']"
    # another process (the one that got the slash command) changes and adds subscriptions: the tick picks them up
    other = make_digests(slack, seed_index_path, state_target)
    other.subscriptions.subscribe(C1, clock(), Settings(at=time(7, 30), tz=BERLIN))
    other.subscriptions.subscribe(C2, clock(), Settings(tz=NY, days="mon-sun"))
    sched.tick()
    assert sorted(sched.jobs()) == [C1, C2]
    assert "hour='7', minute='30'" in str(sched.scheduler.get_job("digest:" + C1).trigger)
    assert str(sched.scheduler.get_job("digest:" + C1).trigger.timezone) == "Europe/Berlin"
    other.subscriptions.unsubscribe(C2, clock())
    sched.tick()
    assert list(sched.jobs()) == [C1]


# --------------------------------------------------------------------------- end to end


def test_the_cron_job_fires_and_posts_through_the_web_client(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))  # 08:00 KST: nothing due yet
    sched = DigestScheduler(digests, clock=clock, owner="e2e", tick_seconds=3600)
    done: dict[str, Queue[JobExecutionEvent]] = {"digest-tick": Queue(), "digest:" + C1: Queue()}
    sched.scheduler.add_listener(lambda event: done[event.job_id].put(event), EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    sched.start()
    try:
        # The start-up catch-up ran: nothing due
        assert done["digest-tick"].get(timeout=10).exception is None
        job = sched.scheduler.get_job("digest:" + C1)
        assert job is not None
        assert job.next_run_time is not None
        assert job.next_run_time.astimezone(SEOUL).strftime("%H:%M") == "09:00"
        clock.set(datetime(2026, 3, 9, 9, 0, 0, tzinfo=SEOUL))  # the instant the job is for
        # Make APScheduler fire it now, in its own thread
        job.modify(next_run_time=datetime.now(UTC))
        event = done["digest:" + C1].get(timeout=10)
        assert event.exception is None
        assert event.retval.status == "posted"
    finally:
        sched.shutdown()
    [call] = slack.calls("chat.postMessage")
    assert call.ok
    assert call.params["channel"] == C1
    assert call.token == "xoxb-test"
    assert call.params["metadata"] == {
        "event_type": "icml_digest",
        "event_payload": {"channel": C1, "date": "2026-03-09", "round": 1, "papers": SEED_ORDER[:3]},
    }
    assert call.params["blocks"][0]["text"]["text"] == "ICML 2026 digest · Mon 9 Mar 2026"
    row = digests.state.digests.run(C1, "2026-03-09")
    assert row is not None
    assert row.status == "posted"
    assert row.ts == slack.history(C1)[0]["ts"]


def test_stopping_while_the_first_tick_runs_never_deadlocks(digests: ChannelDigests, clock: Clock) -> None:
    # `Runtime.start` then `stop` at once used to hang for good: APScheduler's shutdown(wait=True) holds its job
    # store's lock while it waits for running jobs, and the first tick, syncing the cron jobs, asked for that lock.
    digests.subscriptions.subscribe(C1, clock(), Settings(tz=SEOUL))
    caller = threading.current_thread()

    def tick_clock() -> datetime:
        """The tick's first look at the clock waits until the shutdown holds APScheduler's job store lock."""
        if threading.current_thread() is not caller and not held.is_set():
            ticking.set()
            lock = sched.scheduler._jobstores_lock
            while not held.is_set():
                if lock.acquire(blocking=False):  # free (or ours): shutdown has not taken it yet
                    lock.release()
                    held.wait(0.001)
                else:
                    held.set()
        return clock()

    held, ticking = threading.Event(), threading.Event()
    sched = DigestScheduler(digests, clock=tick_clock, owner="quick-stop", tick_seconds=3600)
    sched.start()
    # stop only once the first tick runs (a stop before it would not meet it; under load that was a coin toss)
    assert ticking.wait(60), "the first tick never ran"
    stopped: Queue[bool] = Queue()
    stopper = threading.Thread(target=lambda: stopped.put(sched.shutdown(timeout=30)), daemon=True)
    stopper.start()
    stopper.join(60)  # (a bound for a hang, not a timing: it returns as soon as the tick has ended)
    assert not stopper.is_alive(), "shutdown deadlocked against the first tick"
    assert held.is_set()  # the tick did run into the shutdown
    assert stopped.get_nowait() is True
    assert not digests.state.leases.holder(scheduler.LEASE)  # and the lease was handed back
