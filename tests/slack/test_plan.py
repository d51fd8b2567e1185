"""Conference days through the served app, on ICML 2026 fetched from the fake conference site with real session
shapes (tests/support/conference_days.py): `/icml plan` in two time zones, clashes, papers without a known time,
`/icml plan ics` parsed back by icalendar, `/icml plan channel` in a Slack Connect channel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.papers import index
from tests.slack.test_team_saves import answer
from tests.support.block_checks import problems
from tests.support.conference_days import OPENREVIEW_ONLY, days_conference, fetch_index
from tests.support.fake_slack import FakeSlack
from tests.support.slack_clicks import press
from tests.support.slack_harness import SlackHttp, slack_config, texts

SEOUL, NEW_YORK = "Asia/Seoul", "America/New_York"


@pytest.fixture(scope="module")
def days_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ICML 2026 as `icml-bot fetch` builds it from the fake site and OpenReview (sessions in Seoul, +09:00)."""
    folder = tmp_path_factory.mktemp("conference-days")
    return fetch_index(days_conference(), folder / "papers.db", folder / "cache")


@pytest.fixture(scope="module")
def ids(days_index: Path) -> dict[int, str]:
    """Generated paper number → its id in the index."""
    return numbered(days_index)


def numbered(path: Path) -> dict[int, str]:
    """Generated paper number → its id in the index at `path`."""
    db = index.connect(path, readonly=True)
    try:
        rows = db.execute("SELECT id, title FROM papers").fetchall()
    finally:
        db.conn.close()
    found = {}
    for pid, title in rows:
        if title.startswith("Generated Paper "):
            found[int(title.split()[2].rstrip(":"))] = pid
        elif title.startswith("OpenReview Only Paper"):
            found[OPENREVIEW_ONLY] = pid
    return found


@pytest.fixture
def app(fake: FakeSlack, days_index: Path, tmp_path: Path) -> Iterator[SlackHttp]:
    served = SlackHttp(slack_config(fake, days_index, tmp_path / "state.db"))
    yield served
    served.stop()


def save(app: SlackHttp, fake: FakeSlack, pid: str, user: str = "U1", team: str = "T1", channel: str = "C1") -> None:
    """`user` presses Save under `/icml paper <pid>` and the app answers."""
    shown = app.command(f"paper {pid}", user_id=user, team_id=team, channel_id=channel).json()
    name = f"save-{user}-{pid}"
    press(app, fake, shown, "Save", pid, user=user, team=team, channel=channel, name=name)
    assert "Saved" in texts(answer(fake, name))


def section_texts(msg: dict[str, object]) -> list[str]:
    """The text of every block, in order (sections; a context's elements one a line)."""
    out = []
    for block in msg["blocks"]:  # type: ignore[attr-defined]
        if block.get("text"):
            out.append(block["text"]["text"])
        if block.get("elements"):
            out.append("\n".join(e["text"] for e in block["elements"] if "text" in e))
    return out


def page(n: int, kind: str = "poster") -> str:
    """The paper's page on the fake site, as the plan links it."""
    return f"/virtual/2026/{kind}/{(200_000 if kind == 'oral' else 100_000) + n}|Generated Paper {n}:"


def test_my_plan_in_seoul_by_day_and_session_with_rooms_posters_clashes_and_papers_without_a_time(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    fake.people.set_user("U1", tz=SEOUL)
    for n in (0, 2, 6, 10, 11, OPENREVIEW_ONLY):
        save(app, fake, ids[n])
    shown = app.command("plan").json()
    assert problems(shown) == []
    assert shown["response_type"] == "ephemeral"
    assert shown["text"] == "Your plan for ICML 2026: 4 papers in 4 sessions over 2 days, 2 clashes"
    [head, how, tue, wed, clashes, apart] = section_texts(shown)
    assert head == "Your plan for ICML 2026"
    # The venue's own
    assert how == "Your plan: 4 papers in 4 sessions over 2 days, 2 clashes. Times in Asia/Seoul."
    tue_lines = tue.splitlines()
    assert tue_lines[0] == "*Tue 14 Jul*"
    assert tue_lines[1] == "*10:00–11:00* Oral 1A · Hall A"
    assert page(0, "oral") in tue_lines[2]
    assert "#" not in tue_lines[2]
    assert tue_lines[3] == "*11:00–12:30* Poster Session 1 · Hall B"
    assert tue_lines[4].startswith("• #1000 <")
    assert page(0) in tue_lines[4]
    wed_lines = wed.splitlines()
    assert [wed_lines[0], wed_lines[1], wed_lines[3]] == [
        "*Wed 15 Jul*",
        "*11:00–12:00* Oral 3A · Hall A",  # paper 2: an oral with no poster row
        "*11:00–12:30* Poster Session 3 · Hall B",
    ]
    assert wed_lines[4].startswith("• #1006 <")
    assert wed_lines[5].startswith("• #1010 <")
    assert clashes.splitlines() == [
        ":warning: 2 saved posters in Poster Session 3, Hall B #1006 and #1010",
        ":warning: Oral 3A (Hall A, 11:00–12:00) overlaps Poster Session 3 (Hall B, 11:00–12:30)",
    ]
    apart_lines = apart.splitlines()
    assert apart_lines[0] == "*Without a known time* (2)"
    assert "OpenReview Only Paper 0>: the conference's list gives it no session" in apart_lines[1]
    assert "Generated Paper 11" in apart_lines[2]
    assert apart_lines[2].endswith(": Poster Session 4 has no time in the conference's list yet")
    [info] = fake.calls("users.info")
    assert info.params["user"] == "U1"


def test_the_same_plan_in_new_york_moves_to_its_own_days_with_the_venue_time_beside(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    fake.people.set_user("U2", tz=NEW_YORK)
    for n in (0, 6):
        save(app, fake, ids[n], user="U2")
    shown = app.command("plan", user_id="U2").json()
    assert problems(shown) == []
    body = section_texts(shown)
    assert body[1].endswith("Times in America/New_York, the venue's beside them.")
    mon, tue = body[2].splitlines(), body[3].splitlines()
    # Tuesday 10:00 in Seoul is Monday 21:00 in New York (EDT, UTC−4)
    assert mon[0] == "*Mon 13 Jul*"
    assert mon[1] == "*21:00–22:00* Oral 1A · Hall A _(Tue 10:00–11:00 venue time, UTC+09:00)_"
    assert mon[3] == "*22:00–23:30* Poster Session 1 · Hall B _(Tue 11:00–12:30 venue time, UTC+09:00)_"
    assert tue[0] == "*Tue 14 Jul*"
    assert tue[1] == "*22:00–23:30* Poster Session 3 · Hall B _(Wed 11:00–12:30 venue time, UTC+09:00)_"
    # One poster in each session, and a paper's own talk and poster
    assert "clash" not in shown["text"]
    assert len(body) == 4  # nothing without a time, no other venue


def test_a_profile_without_a_time_zone_or_an_unknown_person_gets_utc_and_is_told(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    save(app, fake, ids[6], user="U3")
    fake.people.set_user("U4", tz=None)
    save(app, fake, ids[6], user="U4")
    unknown = section_texts(app.command("plan", user_id="U3").json())
    said = "Times in UTC (I couldn't read your Slack time zone: user_not_found), the venue's beside them."
    assert unknown[1].endswith(said)
    assert unknown[2].splitlines()[1].startswith("*02:00–03:30* Poster Session 3")
    none = section_texts(app.command("plan", user_id="U4").json())
    assert "Times in UTC (your Slack profile has no time zone)" in none[1]


def test_plan_input_errors_get_one_clear_line(app: SlackHttp, fake: FakeSlack, ids: dict[int, str]) -> None:
    assert "You have no saved papers to plan yet" in texts(app.command("plan").json())
    save(app, fake, ids[6])
    assert "You have no saved papers of NeurIPS 2025 to plan yet" in texts(app.command("plan neurips2025").json())
    for bad in ("plan tomorrow please", "plan <!channel>", "plan icml2026 neurips2025"):
        said = texts(app.command(bad).json())
        assert "Usage: `/icml plan [channel] [ics] [venue]`" in said, bad
        assert "<!channel>" not in said
    assert "Your plan for ICML 2026" in texts(app.command("plan ICML2026").json())


# --------------------------------------------------------------------------- the calendar file


def test_plan_ics_sends_a_calendar_that_parses_back_to_one_event_per_session(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    fake.people.set_user("U1", tz=NEW_YORK)
    for n in (0, 2, 6, 10, 11):
        save(app, fake, ids[n])
    reply = app.command("plan ics").json()
    assert "Sending 4 sessions as `icml2026-plan.ics` to our DM" in texts(reply)
    fake.wait_for("files.completeUploadExternal", ok=True)
    [sent] = fake.shared_files()
    assert (sent.channel, sent.filename) == ("D1", "icml2026-plan.ics")
    events = parse_events(sent.text)
    assert [(e["start"], e["end"], e["summary"], e["location"]) for e in events] == [
        ("2026-07-14T01:00:00+00:00", "2026-07-14T02:00:00+00:00", "Oral 1A: Generated Paper 0: "
         "Long-context large language model (LLM) inference", "Hall A"),
        ("2026-07-14T02:00:00+00:00", "2026-07-14T03:30:00+00:00", "Poster Session 1: Generated Paper 0: "
         "Long-context large language model (LLM) inference", "Hall B"),
        ("2026-07-15T02:00:00+00:00", "2026-07-15T03:00:00+00:00", "Oral 3A: Generated Paper 2: In "
         "retrieval-augmented generation, language models can", "Hall A"),
        ("2026-07-15T02:00:00+00:00", "2026-07-15T03:30:00+00:00", "Poster Session 3: 2 papers", "Hall B"),
    ]  # fmt: skip
    ps3 = events[3]
    lines = ps3["description"].splitlines()
    assert lines[0].startswith("#1006 Generated Paper 6: ")
    assert lines[1].strip().endswith("/virtual/2026/poster/100006")
    assert lines[2].startswith("#1010 Generated Paper 10: ")
    assert ps3["url"].endswith("/virtual/2026/poster/100006")
    assert len({e["uid"] for e in events}) == 4
    # Made again: the same events, so a calendar updates them instead of doubling them
    app.command("plan ics")
    fake.wait_for("files.completeUploadExternal", count=2, ok=True)
    again = parse_events(fake.shared_files()[1].text)
    assert [e["uid"] for e in again] == [e["uid"] for e in events]


def parse_events(text: str) -> list[dict[str, str]]:
    """The VEVENTs of an iCalendar file as icalendar's own parser reads them (times in UTC, ISO 8601)."""
    from datetime import UTC

    from icalendar import Calendar

    cal = Calendar.from_ical(text)
    assert str(cal["VERSION"]) == "2.0"
    out = []
    for event in cal.walk("VEVENT"):
        out.append(
            {
                "uid": str(event["UID"]),
                "start": event.decoded("DTSTART").astimezone(UTC).isoformat(),
                "end": event.decoded("DTEND").astimezone(UTC).isoformat(),
                "summary": str(event["SUMMARY"]),
                "location": str(event.get("LOCATION", "")),
                "description": str(event["DESCRIPTION"]),
                "url": str(event.get("URL", "")),
            }
        )
    return out


def test_plan_ics_with_nothing_timed_sends_nothing(app: SlackHttp, fake: FakeSlack, ids: dict[int, str]) -> None:
    save(app, fake, ids[11])
    said = texts(app.command("plan ics").json())
    assert "nothing to put in a calendar" in said
    app.drain()
    assert fake.shared_files() == []


def test_the_cli_twin_writes_the_same_calendar_and_prints_the_plan(
    app: SlackHttp,
    fake: FakeSlack,
    ids: dict[int, str],
    days_index: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake.people.set_user("U1", tz=SEOUL)
    for n in (0, 6, 10):
        save(app, fake, ids[n])
    app.command("plan ics")
    fake.wait_for("files.completeUploadExternal", ok=True)
    [sent] = fake.shared_files()
    monkeypatch.setenv("ICML_BOT_STATE", str(tmp_path / "state.db"))
    out = tmp_path / "plan.ics"
    argv = ["plan", "--ics", "--team", "T1", "--user", "U1", "--db", str(days_index), "--out", str(out)]
    assert main(argv) == 0
    assert parse_events(out.read_text(encoding="utf-8")) == parse_events(sent.text)
    capsys.readouterr()
    assert main(["plan", ids[6], ids[10], "--tz", SEOUL, "--db", str(days_index)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:4] == [
        "ICML 2026: 2 papers in 1 sessions (times in Asia/Seoul)",
        "",
        "Wed 15 Jul",
        "  11:00–12:30  Poster Session 3 · Hall B",
    ]
    assert printed[4].startswith("    #1006 Generated Paper 6")
    assert printed[6] == "  clash: 2 posters in Poster Session 3 #1006 and #1010"
    assert main(["plan", ids[6], "--tz", "Mars/Olympus", "--db", str(days_index)]) == 2
    assert "no time zone 'Mars/Olympus'" in capsys.readouterr().err
    assert main(["plan", "--db", str(days_index)]) == 2
    assert "give --user" in capsys.readouterr().err


# --------------------------------------------------------------------------- the team's plan

SHARED = "C0SHAREDXX1"  # a Slack Connect channel: one id in both workspaces


def test_the_channels_plan_counts_its_members_saves_in_the_callers_workspace_only(
    app: SlackHttp, fake: FakeSlack, ids: dict[int, str]
) -> None:
    fake.people.set_user("U1", tz=SEOUL)
    fake.people.set_user("U7", tz=SEOUL, team="T2")
    fake.people.set_members(SHARED, ["U1", "U2", "U3", "U7"])  # U7 is in the other workspace
    for user in ("U1", "U2", "U3"):
        save(app, fake, ids[6], user=user, channel=SHARED)
    save(app, fake, ids[0], user="U1", channel=SHARED)
    save(app, fake, ids[6], user="U7", team="T2", channel=SHARED)
    save(app, fake, ids[10], user="U9", channel="C1")  # in the workspace, not in the channel
    assert "added" in texts(app.command(f"list add {ids[7]}", user_id="U2", channel_id=SHARED).json())

    ours = app.command("plan channel", user_id="U1", channel_id=SHARED).json()
    assert problems(ours) == []
    body = section_texts(ours)
    assert body[0] == "The channel plan for ICML 2026"
    assert body[1].startswith(f"<#{SHARED}>'s plan: 3 papers in 4 sessions over 2 days")
    wanted = body[2].splitlines()
    assert wanted[0] == "*Most wanted*"
    assert wanted[1].startswith("3 of you saved #1006 <")
    assert wanted[1].endswith("|Generated Paper 6: Large language models have revolutionized natural> (Wed 11:00, "
                              "Hall B)")  # fmt: skip
    assert len(wanted) == 2  # one saver is no crowd
    days = "\n".join(body[3:])
    assert "Generated Paper 10" not in days  # U9 is not in the channel
    assert "#1006 <" in days
    assert days.count("_(saved by 3)_") == 1
    assert "#1000 <" in days
    assert "_(saved by 1)_" in days
    assert "#1007 <" in days
    assert "_(on the list)_" in days
    assert "*16:30–18:00* Poster Session 4 · Hall C" in days

    theirs = app.command("plan channel", user_id="U7", team_id="T2", channel_id=SHARED).json()
    their_body = "\n".join(section_texts(theirs))
    assert "Most wanted" not in their_body  # in their workspace only U7 saved it
    assert "#1006 <" in their_body
    assert "_(saved by 1)_" in their_body
    assert "#1000" not in their_body  # T1's saves and T1's list stay in T1
    assert "#1007" not in their_body
    [members, *_] = fake.calls("conversations.members")
    assert members.params["channel"] == SHARED


def test_a_channel_whose_members_cannot_be_read_says_why(app: SlackHttp, fake: FakeSlack) -> None:
    fake.fail_next("conversations.members", error="missing_scope")
    said = texts(app.command("plan channel").json())
    assert "I can't see who is in this channel (missing_scope)" in said
    assert "Nothing to plan here yet" in texts(app.command("plan channel").json())
