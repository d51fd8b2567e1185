"""The unfurl card and the history lines as text: sessions with day, time and room, the memory line's wording, dates
passed in, and any hostile paper, schedule, channel or user id still building a valid, escaped card."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from hypothesis import given
from hypothesis import strategies as st

from bot.papers.row import PaperRow
from bot.slack.blocks import context, mention, unfurl
from bot.slack.blocks import history as history_blocks
from bot.team.history import Event, Kind, PaperMemory
from tests.support.robust import message_problems, paper_text, papers

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC).timestamp()
NOV_3 = datetime(2026, 11, 3, 9, 0, tzinfo=UTC).timestamp()
DEC_2025 = datetime(2025, 12, 24, 9, 0, tzinfo=UTC).timestamp()
NLP, GENERAL = "C0NLPREAD01", "C0GENERAL01"
LINK = "https://t.slack.com/archives/C0GENERAL01/p1"


def unfurled(channel: str, at: float, ts: str = "", permalink: str | None = None) -> Event:
    return Event("p1", Kind.UNFURLED, channel, "U1", at, ts, permalink)


def test_the_memory_line_reads_as_the_issue_says() -> None:
    memory = PaperMemory("p1", ("U1", "U2"), (NLP,), (unfurled(GENERAL, NOV_3, "1.1", LINK),))
    line = history_blocks.card_line(memory, GENERAL, NOW)
    assert line == f"saved by 2 people here · on <#{NLP}>'s list · <{LINK}|shared here on 3 Nov>"
    elsewhere = history_blocks.card_line(memory, "C0OTHER0001", NOW)
    assert elsewhere == f"saved by 2 people here · on <#{NLP}>'s list · shared in <#{GENERAL}> <{LINK}|on 3 Nov>"
    assert history_blocks.card_line(memory, NLP, NOW).startswith("saved by 2 people here · on this channel's list · ")


def test_the_memory_line_leaves_out_the_message_it_unfurls_and_counts_what_it_must() -> None:
    only_this = PaperMemory("p1", ("U1",), (), (unfurled(GENERAL, NOV_3, "1.1"),))
    assert history_blocks.card_line(only_this, GENERAL, NOW, message_ts="1.1") == "saved by 1 person here"
    lists = PaperMemory("p1", lists=(NLP, GENERAL, "C0THIRD0003"))
    assert history_blocks.card_line(lists, "C0X00000001", NOW) == f"on <#{NLP}>'s list and 2 more"
    two = PaperMemory("p1", lists=(NLP, GENERAL))
    assert history_blocks.card_line(two, "C0X00000001", NOW) == f"on <#{NLP}>'s and <#{GENERAL}>'s lists"
    assert history_blocks.card_line(PaperMemory("p1"), GENERAL, NOW) == ""
    old = PaperMemory("p1", discussed=(unfurled(GENERAL, DEC_2025),))
    # Another year: its year
    assert history_blocks.card_line(old, GENERAL, NOW) == "shared here on 24 Dec 2025"


def test_paper_and_home_lines_name_people_and_channels() -> None:
    shared = Event("p1", Kind.SHARED, NLP, "U3", NOV_3)
    memory = PaperMemory("p1", ("U1", "U2"), (NLP,), (shared, unfurled(GENERAL, NOV_3 - 86400, "1.1", LINK)))
    assert history_blocks.paper_lines(memory, GENERAL, NOW) == [
        "Saved here by <@U1>, <@U2>",
        f"On the reading list of <#{NLP}>",
        f"Shared in <#{NLP}> on 3 Nov by <@U3>; <{LINK}|here on 2 Nov> by <@U1>",
    ]
    assert history_blocks.home_line(memory, "U1", NOW) == f"also saved by <@U2> · shared in <#{NLP}> on 3 Nov"
    assert (
        history_blocks.discussed_line(memory, NOW)
        == f"shared in <#{NLP}> on 3 Nov (2 times in all) · saved by 2 people"
    )


def test_sessions_show_day_time_and_room_from_the_schedule_else_as_listed() -> None:
    paper = cast(PaperRow, {"id": "p1", "title": "T", "session": "Poster Session 2", "room": "Hall A"})
    assert unfurl.sessions_text(paper) == "Poster Session 2, Hall A"
    slot = {"name": "Oral 3A", "start": "2026-07-15T15:30:00+09:00", "end": "2026-07-15T15:45:00+09:00", "room": "B"}
    assert unfurl.sessions_text(cast(PaperRow, {**paper, "schedule": [slot]})) == "Oral 3A, Wed 15 Jul 15:30–15:45, B"
    broken = {"name": "Poster 1", "start": "soon", "end": None, "room": None}
    assert unfurl.sessions_text(cast(PaperRow, {**paper, "schedule": [broken]})) == "Poster 1"


ids = st.one_of(st.text(max_size=20), st.sampled_from([NLP, "U0ALICE001", "<!channel>", "C<#C1>", "U1|x>"]))
slots = st.fixed_dictionaries(
    {"name": paper_text, "start": st.one_of(st.none(), st.text(max_size=30), st.just("2026-07-14T10:30:00+09:00")),
     "end": st.one_of(st.none(), st.text(max_size=30)), "room": st.one_of(st.none(), paper_text)}
)  # fmt: skip
events = st.builds(
    Event, st.just("p1"), st.sampled_from(list(Kind)), ids, ids, st.floats(0, 4e9), st.text(max_size=20),
    st.one_of(st.none(), paper_text, st.just(LINK)),
)  # fmt: skip


@given(paper=papers(), schedule=st.lists(slots, max_size=3), room=st.one_of(st.none(), paper_text),
       savers=st.lists(ids, max_size=4), lists=st.lists(ids, max_size=4), discussed=st.lists(events, max_size=4),
       here=ids)  # fmt: skip
def test_any_paper_schedule_and_history_build_a_valid_escaped_card(
    paper: PaperRow,
    schedule: list[dict[str, Any]],
    room: str | None,
    savers: list[str],
    lists: list[str],
    discussed: list[Event],
    here: str,
) -> None:
    full = cast(PaperRow, {**paper, "schedule": schedule, "room": room, "venue": "icml2026"})
    memory = PaperMemory("p1", tuple(savers), tuple(lists), tuple(discussed))
    card = unfurl.card(full, history_blocks.card_line(memory, here, NOW))
    assert message_problems({"text": "unfurl", "blocks": card}) == []
    lines = history_blocks.paper_lines(memory, here, NOW)
    real_users = {u for u in [*savers, *(e.user for e in discussed)] if mention(u) != "someone"}
    assert message_problems({"text": "paper", "blocks": [context(*lines)]}, users=real_users) == []
