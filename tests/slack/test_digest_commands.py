"""`/icml digest subscribe|unsubscribe|status|preview|now`, through the /icml table and end to end through the app."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.digest.scheduler import LEASE, DigestScheduler
from bot.digest.service import DigestService
from bot.search.reader import Papers
from bot.slack import commands
from bot.slack.digest_commands import parse_subscribe
from bot.slack.services import Services
from tests.support.digest import Clock, digest_ids, make_digests, service
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import DEFENSIVE_KV, SEED_ORDER, VEGAS
from tests.support.slack_harness import SlackHttp, texts

CH = "C0CMDS0001"
SEOUL = ZoneInfo("Asia/Seoul")


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 9, 8, 0, tzinfo=SEOUL).astimezone(UTC))  # Monday 08:00 KST


@pytest.fixture
def desk(slack: FakeSlack, seed_index_path: Path, tmp_path: Path, clock: Clock) -> Iterator[DigestService]:
    d = service(make_digests(slack, seed_index_path, tmp_path / "state.db", digest_tz=SEOUL), clock)
    yield d
    d.stop()


@pytest.fixture
def deps(desk: DigestService, seed_index_path: Path) -> Services:
    return Services(papers=Papers(seed_index_path), state=desk.digests.state, digests=desk)


def icml(deps: Services, text: str, channel: str = CH) -> str:
    """What the user reads after typing `/icml <text>` in `channel`."""
    return texts(commands.reply(deps, text, "U1", channel))


def test_subscribe_words_become_settings() -> None:
    req = parse_subscribe("kv cache at 08:30 Asia/Seoul")
    assert (req.topics, req.at, req.tz, req.days, req.size, req.error) == (
        "kv cache",
        time(8, 30),
        SEOUL,
        None,
        None,
        None,
    )
    req = parse_subscribe("MoE routing 07:15 on mon,wed,fri 5 papers UTC")
    assert req.tz is not None
    assert (req.topics, req.at, req.tz.key, req.days, req.size) == (
        "MoE routing",
        time(7, 15),
        "UTC",
        "mon,wed,fri",
        5,
    )
    assert parse_subscribe("").topics is None
    assert parse_subscribe("at 25:00").error == "time='25:00' is not a time: use HH:MM in 24-hour form, e.g. 09:00"
    error = parse_subscribe("rl Asia/Seol").error
    assert error is not None
    assert error.startswith("time zone='Asia/Seol' is not an IANA time zone")
    error = parse_subscribe("on weekdays").error
    assert error is not None
    assert error.startswith("days='weekdays' is not a day list")
    assert (
        parse_subscribe("at 09:00 KST").error == "KST is an abbreviation, not a time zone: use a name like "
        "Asia/Seoul, which knows when daylight saving applies"
    )
    assert parse_subscribe("12 papers").error == "papers='12' is not a number of papers from 1 to 10"
    # Words that only ask or say which papers name no topic (the digest listed papers holding "papers" first).
    assert (
        parse_subscribe("recent papers at 08:00").error
        == "“recent papers” names no topic: give the words papers use, e.g. `kv cache`"
    )
    assert parse_subscribe("who works on").error is not None
    assert [parse_subscribe(t).error for t in ("all", "survey", "rl", 'author:"Mohit Bansal"')] == [None] * 4


def test_a_digest_topic_naming_nothing_is_refused(deps: Services) -> None:
    reply = icml(deps, "digest subscribe any papers about")
    assert "“any papers about” names no topic" in reply
    assert "This channel has no daily digest" in icml(deps, "digest status")


def test_subscribe_status_preview_now_unsubscribe(
    deps: Services, desk: DigestService, slack: FakeSlack, clock: Clock
) -> None:
    reply = icml(deps, "digest subscribe kv cache at 08:30 Asia/Seoul")
    assert (
        "Subscribed this channel to the daily ICML 2026 digest: Mon-Fri at 08:30 Asia/Seoul, 3 papers, "
        "topics *kv cache*." in reply
    )
    assert "Next digest: Mon 08:30 KST." in reply
    status = icml(deps, "digest status")
    assert "*Next:* Mon 08:30 KST (Mon 9 Mar 2026)" in status
    assert "*Last:* none yet" in status
    assert "*Left in round 1:* 19 of 19 papers" in status
    assert "No icml-bot process is scheduling digests right now" in status
    preview = commands.reply(deps, "digest preview", "U1", CH)
    assert "Preview, only you see this" in texts(preview)
    assert "DefensiveKV" in texts(preview)
    assert slack.posts() == []
    assert "Posted the digest for Mon 9 Mar 2026." in icml(deps, "digest now")
    assert len(slack.posts(CH)) == 1
    assert set(digest_ids(slack.posts(CH)[0])[:2]) == {DEFENSIVE_KV, VEGAS}
    assert "already in this channel: one a day, never twice" in icml(deps, "digest now")
    clock.set(datetime(2026, 3, 9, 8, 30, 5, tzinfo=SEOUL))
    assert len(slack.posts(CH)) == 1
    status = icml(deps, "digest status")
    assert "*Last:* Mon 9 Mar 2026, papers 1-3 of 19" in status
    assert "*Left in round 1:* 16 of 19" in status
    assert "*Next:* Tue 08:30 KST" in status  # today's slot is taken by the early one
    assert "Unsubscribed: no more daily digests here" in icml(deps, "digest unsubscribe")
    assert "This channel has no daily digest" in icml(deps, "digest status")
    assert "This channel has no daily digest" in icml(deps, "digest unsubscribe")
    assert "This channel has no daily digest" in icml(deps, "digest now")


def test_resubscribing_keeps_the_round_and_what_was_not_given(
    deps: Services, desk: DigestService, slack: FakeSlack
) -> None:
    icml(deps, "digest subscribe at 08:00")
    icml(deps, "digest now")
    icml(deps, "digest unsubscribe")
    reply = icml(deps, "digest subscribe rl on mon,wed")
    assert (
        "Subscribed this channel to the daily ICML 2026 digest: mon,wed at 08:00 Asia/Seoul, 3 papers, "
        "topics *rl*." in reply
    )
    assert "Updated the daily ICML 2026 digest: mon,wed at 08:00 Asia/Seoul, 3 papers, all topics." in icml(
        deps, "digest subscribe all"
    )
    assert desk.digests.builder.plan(CH, datetime(2026, 3, 11).date()).paper_ids == SEED_ORDER[3:6]


def test_errors_show_in_status_with_what_to_do(deps: Services, slack: FakeSlack) -> None:
    icml(deps, "digest subscribe")
    slack.fail_next("chat.postMessage", "not_in_channel")
    reply = icml(deps, "digest now")
    assert "Could not post the digest for Mon 9 Mar 2026: not_in_channel. Invite me with `/invite @icml-bot`" in reply
    status = icml(deps, "digest status")
    assert ":warning: *Last error* (Mon 08:00 KST): not_in_channel. Invite me with `/invite @icml-bot`" in status
    assert "Posted the digest" in icml(deps, "digest now")  # after the invite
    assert "Last error" not in icml(deps, "digest status")


def test_bad_words_get_a_usage_hint_and_help_lists_digest(deps: Services) -> None:
    reply = icml(deps, "digest subscribe rl at 9")
    assert "time='9' is not a time" in reply
    assert "Usage: `/icml digest subscribe [topic words] [at HH:MM]" in reply
    assert "subscribe [topic words]" in icml(deps, "digest")
    assert "digest subscribe|unsubscribe|status|preview|now" in icml(deps, "help")


def test_subscribing_from_slack_updates_the_running_scheduler(
    deps: Services, desk: DigestService, clock: Clock
) -> None:
    desk.scheduler = DigestScheduler(desk.digests, clock=clock, owner="this")
    desk.scheduler.take_lease(clock())
    icml(deps, "digest subscribe at 07:00 Europe/Berlin")
    assert list(desk.scheduler.jobs()) == [CH]
    assert "Scheduled by this icml-bot process." in icml(deps, "digest status")
    icml(deps, "digest unsubscribe")
    assert desk.scheduler.jobs() == {}


# --------------------------------------------------------------------------- through the real app


def test_digest_commands_end_to_end_over_http(slack_http: SlackHttp, fake: FakeSlack) -> None:
    reply = slack_http.command("digest subscribe kv cache at 08:30 Asia/Seoul", channel_id=CH)
    assert reply.status == 200
    assert reply.json()["response_type"] == "ephemeral"
    assert "Subscribed this channel to the daily ICML 2026 digest" in texts(reply.json())
    assert "Posted the digest" in texts(slack_http.command("digest now", channel_id=CH).json())
    assert "already in this channel" in texts(slack_http.command("digest now", channel_id=CH).json())
    [post] = fake.posts(CH)
    assert post["metadata"]["event_type"] == "icml_digest"
    assert len(digest_ids(post)) == 3
    status = texts(slack_http.command("digest status", channel_id=CH).json())
    assert "papers 1-3 of 20" in status  # the app's index: the 19 seeds and one more


def test_digest_status_never_shows_users_the_scheduling_host_or_pid(
    slack_http: SlackHttp, caplog: pytest.LogCaptureFixture
) -> None:
    owner = "db-host-7.internal:4242:a1b2c3"  # how a scheduling process names itself in the lease
    assert slack_http.state.leases.acquire(LEASE, owner, datetime.now(UTC).timestamp(), 90)
    assert slack_http.command("digest subscribe kv cache", channel_id=CH).status == 200
    with caplog.at_level(logging.INFO, logger="bot.digest.service"):
        status = texts(slack_http.command("digest status", channel_id=CH).json())
    assert "Scheduled by another icml-bot process." in status
    assert "db-host-7" not in status
    assert "4242" not in status
    assert f"Scheduled by icml-bot process {owner}." in caplog.text  # (for the operator)
