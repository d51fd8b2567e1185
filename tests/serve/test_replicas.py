"""Two `icml-bot serve --http` replicas on one state database (an SQLite file both can reach, or PostgreSQL), as
behind a load balancer: one digest per channel and date when both schedule, a Slack retry that lands on the other
replica answered once, the scheduling replica killed with the other taking over, and replicas installed by OAuth
starting together on a fresh database."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.digest import due_now
from tests.support.fake_slack import FakeSlack
from tests.support.postgres import write_lock_held
from tests.support.processes import children
from tests.support.robust import BotProcess, bot_env, serve_http
from tests.support.slack_harness import SECRET, SignedClient
from tests.support.slack_install import install
from tests.support.slack_oauth import CLIENT_ID, CLIENT_SECRET
from tests.support.slack_requests import mention_event

CH = "C0REPLICA1"
SCHEDULES = r"this process \((\S+)\) schedules the daily digests"
DEFERS = r"another icml-bot process \(\S+\) schedules the daily digests"
# replicas waiting at once for the migration lock before it is let go (they all meet at the tables)
LINED_UP = 3
LINE_UP_SECONDS = 8  # below the processes' own 10 s lock wait (bot/state/postgres.py)
SERVING = r"serving HTTP on http://127\.0\.0\.1:(\d+)/slack/events"


@contextmanager
def replicas(
    fake: FakeSlack, index_path: Path, state: Path | str, count: int = 2, **env: str
) -> Iterator[list[tuple[BotProcess, int]]]:
    """`count` replicas started one after the other; every one stopped (or killed) at the end."""
    started: list[tuple[BotProcess, int]] = []
    try:
        for _ in range(count):
            started.append(serve_http(fake.api_url, index_path, state, SECRET, **env))
        yield started
    finally:
        for bot, _ in started:
            bot.kill()


def posted_days(fake: FakeSlack, channel: str) -> list[str]:
    """The dates of the digests posted in `channel`, in posting order."""
    return [p["metadata"]["event_payload"]["date"] for p in fake.posts(channel)]


def test_both_replicas_schedule_and_a_due_digest_is_posted_once(
    fake: FakeSlack, slack_index_path: Path, state_target: Path | str
) -> None:
    day = due_now(state_target, slack_index_path, CH)
    with replicas(fake, slack_index_path, state_target) as both:
        first, second = (bot for bot, _ in both)
        first.wait_for(rf"digest for {CH} on {day} posted", timeout=30)
        second.wait_for(DEFERS)
        # The one that defers stops first: stopped second, the scheduler would hand its lease back and the other
        # replica's next tick could take it over before being stopped (the designed hand-over, another log line).
        assert [bot.terminate(timeout=60) for bot in (second, first)] == [0, 0]
    logs = first.log() + second.log()
    assert len(re.findall(SCHEDULES, logs)) == 1
    assert posted_days(fake, CH) == [day]


def test_a_slack_retry_landing_on_the_other_replica_is_answered_once(
    fake: FakeSlack, slack_index_path: Path, state_target: Path | str
) -> None:
    event = mention_event("speculative decoding", channel=CH, ts="1700000000.000100")
    with replicas(fake, slack_index_path, state_target) as both:
        (first, first_port), (second, second_port) = both
        assert SignedClient(first_port).event(event, event_id="EvREPLICA01").status == 200
        assert SignedClient(second_port).event(event, event_id="EvREPLICA01", retry_num=1).status == 200
        assert SignedClient(second_port).event(event, event_id="EvREPLICA01", retry_num=2).status == 200
        fake.wait_for("chat.postMessage", timeout=20)
        # Each finishes its replies first
        assert [bot.terminate(timeout=60) for bot, _ in both] == [0, 0]
    assert [p["thread_ts"] for p in fake.posts(CH)] == ["1700000000.000100"]
    assert "Traceback" not in first.log() + second.log()


def test_the_scheduling_replica_killed_the_other_takes_over_and_posts_once(
    fake: FakeSlack, slack_index_path: Path, state_target: Path | str
) -> None:
    with replicas(fake, slack_index_path, state_target, ICML_DIGEST_TAKEOVER="3s") as both:
        (first, _), (second, port) = both
        owner = first.wait_for(SCHEDULES).group(1)
        second.wait_for(DEFERS)
        # The whole replica, as a lost machine or `docker kill`
        for pid in [first.pid, *children(first.pid)]:
            os.kill(pid, signal.SIGKILL)  # no clean stop: the lease is not handed back, it runs out
        assert first.proc.wait(timeout=10) == -signal.SIGKILL
        # Due while only the killed replica held the lease
        day = due_now(state_target, slack_index_path, CH)
        taker = second.wait_for(SCHEDULES, timeout=30).group(1)
        second.wait_for(rf"digest for {CH} on {day} posted", timeout=30)
        assert SignedClient(port).command("kv cache").status == 200  # it answered all along
        assert second.terminate(timeout=60) == 0
    assert taker != owner
    assert posted_days(fake, CH) == [day]


def test_replicas_installed_by_oauth_starting_together_on_a_fresh_database_all_come_up(
    fake: FakeSlack, slack_index_path: Path, state_target: Path | str
) -> None:
    env = bot_env(
        fake.api_url,
        slack_index_path,
        state_target,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_CLIENT_ID=CLIENT_ID,
        SLACK_CLIENT_SECRET=CLIENT_SECRET,
    )
    started: list[BotProcess] = []
    try:
        with lined_up(state_target) as waiting:
            started.extend(BotProcess(["serve", "--http", "--host", "127.0.0.1", "--port", "0"], env) for _ in range(4))
            deadline = time.monotonic() + LINE_UP_SECONDS
            while waiting() < LINED_UP and time.monotonic() < deadline:
                time.sleep(0.05)
        ports = [int(bot.wait_for(SERVING).group(1)) for bot in started]
        # The install page of one replica, the way back to another: both find the same state and installations.
        install(SignedClient(ports[0]), fake, "T2", back_to=SignedClient(ports[3]))
        install(SignedClient(ports[2]), fake, "T3", back_to=SignedClient(ports[1]))
        assert [bot.terminate(timeout=60) for bot in started] == [0, 0, 0, 0]
    finally:
        for bot in started:
            bot.kill()
    assert "Traceback" not in "".join(bot.log() for bot in started)


@contextmanager
def lined_up(state: Path | str) -> Iterator[Callable[[], int]]:
    """On PostgreSQL, replicas starting now wait behind the write lock and go together; on SQLite, as they come."""
    if isinstance(state, str):
        with write_lock_held(state) as waiting:
            yield waiting
    else:
        yield lambda: LINED_UP
