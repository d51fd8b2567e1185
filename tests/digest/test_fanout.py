"""A morning fan-out in small (bench/speed/fanout.py runs it at 1,000 workspaces on 3 replicas): many installed
workspaces, several channels each, all due at 09:00, posted through each workspace's own token to a fake Slack that
enforces Slack's rate limits, while Slack answers a burst of posts with 5xx (half of them after posting anyway).
Each channel gets its digest once: nothing lost, nothing twice."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot import wiring
from bot.digest import schedules
from bot.digest.channels import ChannelDigests
from bot.digest.scheduler import DigestScheduler
from bot.digest.subscriptions import Settings
from bot.state import State
from tests.support.digest import Clock, config
from tests.support.fake_slack import FakeSlack
from tests.support.slack_install import write_installations
from tests.support.slack_oauth import CLIENT_ID, CLIENT_SECRET

WORKSPACES, CHANNELS = 20, 3


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 9, 8, 0, tzinfo=UTC))


def digests_in_channels(slack: FakeSlack, channels: list[tuple[str, str]], day: str) -> Counter[tuple[str, str]]:
    """(workspace, channel) → how many of its digests for `day` the channel holds (what people see, not what the bot
    thinks it sent: a post answered with a 5xx may be there all the same)."""
    found: Counter[tuple[str, str]] = Counter()
    for _, channel in channels:
        for message in slack.history(channel):
            meta = message.get("metadata") or {}
            payload = meta.get("event_payload") or {}
            if meta.get("event_type") == "icml_digest" and payload.get("date") == day:
                found[(payload.get("team", ""), channel)] += 1
    return found


def test_a_morning_fan_out_posts_every_workspace_s_digests_once_through_a_burst_of_5xx(
    slack: FakeSlack, seed_index_path: Path, state_target: Path | str, clock: Clock
) -> None:
    settings = config(
        seed_index_path, state_target, client_id=CLIENT_ID, client_secret=CLIENT_SECRET, api_url=slack.api_url
    )
    state = State(state_target)
    teams = [f"T0FAN{n:04d}" for n in range(WORKSPACES)]
    write_installations(settings, {team: slack.oauth.installed(team) for team in teams})
    digests = ChannelDigests.of(
        state,
        wiring.papers(settings),
        wiring.poster(settings, state),  # each workspace's own token, from the installation store
        config=settings,
        next_run=schedules.next_run,
        settle=0.0,
    )
    clock.set(datetime(2026, 3, 9, 8, 0, tzinfo=UTC))
    channels = [(team, f"C0FAN{n:03d}{c}") for n, team in enumerate(teams) for c in "ABC"[:CHANNELS]]
    for team, channel in channels:
        digests.subscriptions.subscribe(
            channel, clock(), Settings(at=time(9, 0), tz=ZoneInfo("UTC"), days="mon-sun"), team=team
        )
    slack.limits.enable()  # Slack's published limits (tests/support/slack_limits.py)
    slack.fail_next("chat.postMessage", "internal_error", status=500, times=5, carried_out=True)
    slack.fail_next("chat.postMessage", "service_unavailable", status=503, times=5)
    sched = DigestScheduler(digests, clock=clock, owner="fan-out")
    try:
        clock.set(datetime(2026, 3, 9, 9, 0, 30, tzinfo=UTC))
        for _ in range(5):  # the 09:00 catch-up, then checks a few minutes apart for what Slack answered with a 5xx
            sched.tick()
            if sum(digests_in_channels(slack, channels, "2026-03-09").values()) >= len(channels):
                break
            clock.advance(minutes=5)
        sched.tick()  # one more check once everything is there: nothing posted twice
    finally:
        sched.shutdown()
    found = digests_in_channels(slack, channels, "2026-03-09")
    assert [key for key in channels if found[key] == 0] == []  # nothing lost
    assert {key: n for key, n in found.items() if n > 1} == {}  # nothing twice
    assert sum(c.status >= 500 for c in slack.calls("chat.postMessage")) == 10  # the burst did happen
    assert {c.token for c in slack.calls("chat.postMessage")} == {slack.oauth.token_of(t) for t in teams}
    runs = state.digests.runs(statuses=(), limit=1000)
    assert Counter(r.status.value for r in runs) == {"posted": len(channels)}
    assert clock() - datetime(2026, 3, 9, 9, 0, tzinfo=UTC) < timedelta(hours=1)
