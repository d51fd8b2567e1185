"""A channel's reading list: who added what and when, visible only from that channel of that workspace."""

from __future__ import annotations

from pathlib import Path

from bot.search.reader import Papers
from bot.state import State
from bot.team import reading_list
from bot.team.reading_list import Added, AddResult, RemoveResult
from tests.team.conftest import paper_id

T1, T2 = "T0TEAM0001", "T0TEAM0002"
C1, C2 = "C0CHANNEL1", "C0CHANNEL2"
U1, U2 = "U0ALICE001", "U0BOB00002"


def test_the_list_says_who_added_each_paper_and_when_newest_first(state: State, papers: Papers) -> None:
    tok, kaiser = paper_id(papers, "hostile02"), paper_id(papers, "hostile01")
    assert reading_list.add(state, T1, C1, U1, tok, at=100.0) == AddResult(Added(tok, U1, 100.0), created=True)
    reading_list.add(state, T1, C1, U2, kaiser, at=200.0)
    page = reading_list.listed(state, papers, T1, C1)
    assert [(i.paper_id, i.added_by, i.added_at) for i in page.items] == [(kaiser, U2, 200.0), (tok, U1, 100.0)]
    assert [i.paper["authors"][0] for i in page.items if i.paper] == ["Łukasz Kaiser", "Jane Smith"]
    assert (page.total, page.missing) == (2, ())
    assert reading_list.count(state, T1, C1) == 2


def test_adding_twice_keeps_who_added_it_first(state: State, papers: Papers) -> None:
    tok = paper_id(papers, "hostile02")
    reading_list.add(state, T1, C1, U1, tok, at=100.0)
    assert reading_list.add(state, T1, C1, U2, tok, at=300.0) == AddResult(Added(tok, U1, 100.0), created=False)
    assert [(i.added_by, i.added_at) for i in reading_list.listed(state, papers, T1, C1).items] == [(U1, 100.0)]


def test_remove_says_what_it_removed_and_removing_again_changes_nothing(state: State, papers: Papers) -> None:
    tok = paper_id(papers, "hostile02")
    reading_list.add(state, T1, C1, U1, tok, at=100.0)
    assert reading_list.remove(state, T1, C1, tok) == RemoveResult(tok, removed=True, entry=Added(tok, U1, 100.0))
    assert reading_list.remove(state, T1, C1, tok) == RemoveResult(tok, removed=False, entry=None)
    assert reading_list.listed(state, papers, T1, C1).items == ()


def test_a_channels_list_is_not_visible_from_another_channel_or_workspace(state: State, papers: Papers) -> None:
    tok, revisited = paper_id(papers, "hostile02"), paper_id(papers, "hostile03")
    reading_list.add(state, T1, C1, U1, tok, at=100.0)
    reading_list.add(state, T1, C2, U1, revisited, at=200.0)
    # The same channel id in another workspace
    reading_list.add(state, T2, C1, U1, revisited, at=300.0)
    assert [i.paper_id for i in reading_list.listed(state, papers, T1, C1).items] == [tok]
    assert [i.paper_id for i in reading_list.listed(state, papers, T1, C2).items] == [revisited]
    assert [i.paper_id for i in reading_list.listed(state, papers, T2, C1).items] == [revisited]
    assert reading_list.listed(state, papers, T2, C2).items == ()
    assert reading_list.listed_among(state, T1, C1, [tok, revisited]) == {tok}
    assert reading_list.listed_among(state, T1, C2, [tok, revisited]) == {revisited}
    # Removing from one channel leaves the others' lists alone.
    assert reading_list.remove(state, T1, C2, tok).removed is False
    assert reading_list.remove(state, T2, C1, tok).removed is False
    assert reading_list.count(state, T1, C1) == 1


def test_pages_of_a_long_list(state: State, papers: Papers) -> None:
    ids = [paper_id(papers, f"plain{n:03d}") for n in range(25)]
    for n, pid in enumerate(ids):
        reading_list.add(state, T1, C1, U1 if n % 2 else U2, pid, at=1000.0 + n)
    first = reading_list.listed(state, papers, T1, C1, limit=10)
    third = reading_list.listed(state, papers, T1, C1, limit=10, offset=20)
    assert [i.paper_id for i in first.items] == ids[::-1][:10]
    assert [i.paper_id for i in third.items] == ids[4::-1]
    assert (first.total, first.next_offset, third.next_offset, third.previous_offset) == (25, 10, None, 10)


def test_a_listed_paper_gone_from_the_index_is_shown_as_missing(
    state: State, papers: Papers, seed_index_path: Path
) -> None:
    tok = paper_id(papers, "hostile02")
    reading_list.add(state, T1, C1, U1, tok, at=100.0)
    page = reading_list.listed(state, Papers(seed_index_path), T1, C1)
    assert [(i.paper_id, i.added_by, i.paper) for i in page.items] == [(tok, U1, None)]
    assert page.missing == (tok,)
