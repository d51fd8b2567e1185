"""Conference days, today (issue 42, points 5-6) through the served app and the fake Slack, on ICML 2026 fetched from
the fake conference site (tests/support/conference_days.py: sessions in Seoul on Tue 14 and Wed 15 Jul 2026): a
channel's "today at ICML 2026" digest on a conference day, the normal digest the day after, and the Home tab's plan for
today. The date comes from the served app's clock, set by the test."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.slack.test_home import home_opened
from tests.slack.test_plan import numbered, page, save, section_texts
from tests.support.block_checks import problems
from tests.support.conference_days import days_conference, fetch_index
from tests.support.digest import digest_ids
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, slack_config, texts

SEOUL = ZoneInfo("Asia/Seoul")
CH = "C0TODAY001"


@pytest.fixture(scope="module")
def days_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ICML 2026 as `icml-bot fetch` builds it from the fake site and OpenReview (sessions in Seoul, +09:00)."""
    folder = tmp_path_factory.mktemp("conference-today")
    return fetch_index(days_conference(), folder / "papers.db", folder / "cache")


@pytest.fixture(scope="module")
def ids(days_index: Path) -> dict[int, str]:
    """Generated paper number → its id in the index."""
    return numbered(days_index)


@pytest.fixture
def app(fake: FakeSlack, days_index: Path, tmp_path: Path) -> Iterator[SlackHttp]:
    served = SlackHttp(slack_config(fake, days_index, tmp_path / "state.db"))
    yield served
    served.stop()


def at(app: SlackHttp, when: datetime) -> None:
    """Set the served app's clock (its digests', which the Home tab reads too)."""
    moment = when.astimezone(UTC)
    app.parts.digests.clock = lambda: moment


def home_with(fake: FakeSlack, *wanted: str, absent: str = "") -> dict[str, Any]:
    """The newest Home view published that shows every `wanted` text and not `absent` (views go out after the
    listener returns, and a user's newer view replaces one still waiting)."""

    def shows(call: Any) -> bool:
        if call.method != "views.publish":
            return False
        body = texts(call.params["view"])
        return all(w in body for w in wanted) and not (absent and absent in body)

    view: dict[str, Any] = fake.wait_for(shows, ok=True)[-1].params["view"]
    return view


def test_a_conference_day_brings_today_at_the_venue_and_the_day_after_the_normal_digest(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    at(app, datetime(2026, 7, 15, 7, 0, tzinfo=SEOUL))  # Wednesday, the second day
    for user, n in (("U1", 6), ("U2", 6), ("U1", 7), ("U1", 5)):  # 5 is Tuesday's: not today
        save(app, fake, ids[n], user=user)
    save(app, fake, ids[7], user="U9", team="T2")  # another workspace's save counts nothing here
    assert "added" in texts(app.command(f"list add {ids[10]}", channel_id=CH).json())
    said = texts(
        app.command("digest subscribe retrieval-augmented generation at 08:00 Asia/Seoul", channel_id=CH).json()
    )
    assert "Subscribed this channel" in said
    assert "“today at the venue”" in texts(app.command("digest today on", channel_id=CH).json())
    assert "today at the venue on its days" in texts(app.command("digest status", channel_id=CH).json())

    assert "Posted the digest for Wed 15 Jul 2026." in texts(app.command("digest now", channel_id=CH).json())
    [post] = fake.posts(CH)
    assert problems(post) == []
    # The same marker: found again after a crash
    assert post["metadata"]["event_type"] == "icml_digest"
    assert post["metadata"]["event_payload"]["date"] == "2026-07-15"
    assert post["text"] == (
        "Today at ICML 2026 · Wed 15 Jul 2026: 3 of the team's papers in today's sessions, 1 oral on the topics"
    )
    [head, how, ps3, ps4, orals_head, oral, foot] = section_texts(post)
    assert head == "Today at ICML 2026 · Wed 15 Jul 2026"
    assert how == (
        "The team's saved and listed papers in today's sessions, then today's orals on "
        "*retrieval-augmented generation*. Times in Asia/Seoul."
    )
    lines = ps3.splitlines()  # in time order: 11:00 before 16:30
    assert lines[0] == "*11:00–12:30* Poster Session 3 · Hall B"
    assert lines[1].startswith("• #1006 <")
    assert page(6) in lines[1]
    assert lines[1].endswith("_(saved by 2)_")
    assert lines[2].startswith("• #1010 <")
    assert page(10) in lines[2]
    assert lines[2].endswith("_(on the list)_")
    lines = ps4.splitlines()
    assert lines[0] == "*16:30–18:00* Poster Session 4 · Hall C"
    assert lines[1].startswith("• #1007 <")
    assert lines[1].endswith("_(saved by 1)_")  # not T2's save
    assert len(lines) == 2
    assert orals_head == "*Today's orals* on *retrieval-augmented generation*"
    lines = oral.splitlines()  # Oral 3A (paper 2) is on the topics; Oral 2A (paper 1) is not
    assert lines == [lines[0], lines[1]]
    assert lines[0] == "*11:00–12:00* Oral 3A · Hall A"
    assert page(2, "oral") in lines[1]
    assert "#" not in lines[1]  # a talk has no board
    assert foot.startswith("3 of the team's papers today · 1 orals on the topics · next digest Thu 08:00 KST")
    assert "`/icml digest today off`" in foot
    assert digest_ids(post) == [] or set(digest_ids(post)) <= {ids[6], ids[10], ids[7], ids[2]}
    assert set(post["metadata"]["event_payload"]["papers"]) == {ids[6], ids[10], ids[7], ids[2]}
    # Still one a day, never twice.
    assert "already in this channel" in texts(app.command("digest now", channel_id=CH).json())
    status = texts(app.command("digest status", channel_id=CH).json())
    assert "*Last:* Wed 15 Jul 2026, today at ICML 2026, 4 papers" in status

    at(app, datetime(2026, 7, 16, 8, 0, tzinfo=SEOUL))  # Thursday: the sessions are over
    assert "Posted the digest for Thu 16 Jul 2026." in texts(app.command("digest now", channel_id=CH).json())
    first, second = fake.posts(CH)
    assert first is post
    assert second["text"].startswith("ICML 2026 digest, Thu 16 Jul 2026: ")
    assert texts(second).count("Today at") == 0
    assert len(digest_ids(second)) == 3
    # The round starts where it was: the today digest took nothing from it
    assert "Papers 1-3 of " in texts(second)
    # The oral on the topics comes first in the round, as every day
    assert ids[2] in digest_ids(second)


def test_a_conference_day_with_nothing_of_the_team_and_no_oral_on_the_topics_brings_the_normal_digest(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    at(app, datetime(2026, 7, 14, 8, 0, tzinfo=SEOUL))
    save(app, fake, ids[6])  # Wednesday's poster
    app.command("digest subscribe multi-view diffusion at 08:00 Asia/Seoul", channel_id=CH)
    app.command("digest today on", channel_id=CH)
    assert "Posted the digest" in texts(app.command("digest now", channel_id=CH).json())
    [post] = fake.posts(CH)
    assert post["text"].startswith("ICML 2026 digest, Tue 14 Jul 2026: ")
    assert "Papers 1-3 of " in texts(post)


def test_today_switch_words_and_a_channel_without_a_digest(app: SlackHttp) -> None:
    assert "This channel has no daily digest" in texts(app.command("digest today on", channel_id=CH).json())
    app.command("digest subscribe", channel_id=CH)
    for bad in ("digest today", "digest today maybe <!channel>"):
        said = texts(app.command(bad, channel_id=CH).json())
        assert "Usage: `/icml digest today on|off`" in said, bad
        assert "<!channel>" not in said
    app.command("digest today on", channel_id=CH)
    assert "brings the daily papers every day again" in texts(app.command("digest today off", channel_id=CH).json())
    assert "today at the venue" not in texts(app.command("digest status", channel_id=CH).json())


# --------------------------------------------------------------------------- the Home tab


def test_home_during_the_venue_lists_todays_plan_in_the_persons_zone_above_the_saved_papers(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    fake.people.set_user("U1", tz="America/New_York")
    for n in (0, 6, 10):
        save(app, fake, ids[n])
    # Tuesday 22:30 in New York is Wednesday in Seoul: New York's "today" holds Wednesday's 11:00 posters (22:00).
    at(app, datetime(2026, 7, 14, 22, 30, tzinfo=ZoneInfo("America/New_York")))
    app.event(home_opened())
    view = home_with(fake, "Today at", "*Your saved papers* (3)")
    assert problems({"text": "home", **view}) == []
    body = section_texts({"blocks": [b for b in view["blocks"] if b["type"] != "actions"]})
    start = body.index("*Today at ICML 2026* · Tue 14 Jul")
    assert body[start + 1] == "Your saved papers in today's sessions. Times in America/New_York."
    lines = body[start + 2].splitlines()
    assert lines[0] == "*22:00–23:30* Poster Session 3 · Hall B _(Wed 11:00–12:30 venue time, UTC+09:00)_"
    assert lines[1].startswith("• #1006 <")
    assert lines[2].startswith("• #1010 <")
    assert body[start + 3] == ":warning: 2 saved posters in Poster Session 3, Hall B #1006 and #1010"
    assert start < body.index("*Your saved papers* (3), newest first")
    assert {c.params["user"] for c in fake.calls("users.info")} == {"U1"}


def test_home_shows_the_whole_day_also_sessions_over_and_after_the_venue_no_plan_and_no_zone_lookup(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    fake.people.set_user("U1", tz="Asia/Seoul")
    for n in (0, 6):
        save(app, fake, ids[n], channel="C1")
    # Tuesday evening: Tuesday's were in the morning
    at(app, datetime(2026, 7, 14, 20, 0, tzinfo=SEOUL))
    app.event(home_opened())
    body = texts(home_with(fake, "Today at", "*Your saved papers* (2)"))
    assert "*Today at ICML 2026* · Tue 14 Jul" in body
    assert "*10:00–11:00* Oral 1A · Hall A" in body  # the day's sessions, also those already over
    at(app, datetime(2026, 7, 17, 9, 0, tzinfo=SEOUL))  # two days after the last session
    app.event(home_opened())
    after = texts(home_with(fake, "*Your saved papers* (2)", absent="Today at"))
    assert "*Your saved papers* (2)" in after
    # One thread renders and publishes Home views in turn: between the last two publishes is this view's rendering,
    # and outside the venue's days it does not ask Slack for the person's zone.
    calls = [c.method for c in fake.calls()]
    last, before = [i for i, m in enumerate(calls) if m == "views.publish"][-2:][::-1]
    assert "users.info" not in calls[before:last]
    assert "users.info" in calls[:before]
