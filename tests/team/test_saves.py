"""Saved papers: per user and workspace, idempotent, newest first in pages, and a paper gone from the index shown as
missing instead of breaking the list."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.search.reader import Papers
from bot.state import State
from bot.team import saves
from tests.team.conftest import PLAIN_COUNT, paper_id

T1, T2 = "T0TEAM0001", "T0TEAM0002"
U1, U2 = "U0ALICE001", "U0BOB00002"


def test_saved_papers_list_newest_first_with_the_papers(state: State, papers: Papers) -> None:
    tok, revisited, circuits = (paper_id(papers, s) for s in ("hostile02", "hostile03", "hostile06"))
    assert saves.save(state, T1, U1, tok, at=100.0) == saves.SaveResult(tok, created=True, saved_at=100.0)
    saves.save(state, T1, U1, circuits, at=300.0)
    saves.save(state, T1, U1, revisited, at=200.0)
    page = saves.saved(state, papers, T1, U1)
    assert [(i.paper_id, i.saved_at) for i in page.items] == [(circuits, 300.0), (revisited, 200.0), (tok, 100.0)]
    assert [i.paper["title"] for i in page.items if i.paper] == [
        "Circuits in the Wild",
        "TokSuite Revisited: Tokenizers under Noise",
        "TokSuite: Measuring Tokenizer Robustness in LLMs",
    ]
    assert (page.total, page.missing, page.next_offset, page.previous_offset) == (3, (), None, None)
    assert saves.count(state, T1, U1) == 3


def test_a_double_save_is_a_no_op_that_keeps_the_first_time(state: State, papers: Papers) -> None:
    tok = paper_id(papers, "hostile02")
    saves.save(state, T1, U1, tok, at=100.0)
    assert saves.save(state, T1, U1, tok, at=500.0) == saves.SaveResult(tok, created=False, saved_at=100.0)
    assert [(i.paper_id, i.saved_at) for i in saves.saved(state, papers, T1, U1).items] == [(tok, 100.0)]


def test_unsave_removes_and_unsaving_an_unsaved_paper_says_nothing_changed(state: State, papers: Papers) -> None:
    tok, revisited = paper_id(papers, "hostile02"), paper_id(papers, "hostile03")
    saves.save(state, T1, U1, tok, at=100.0)
    saves.save(state, T1, U1, revisited, at=200.0)
    assert saves.is_saved(state, T1, U1, tok) is True
    assert saves.unsave(state, T1, U1, tok) == saves.UnsaveResult(tok, removed=True)
    assert saves.is_saved(state, T1, U1, tok) is False
    assert saves.unsave(state, T1, U1, tok) == saves.UnsaveResult(tok, removed=False)
    assert saves.unsave(state, T1, U1, "nosuchpaper") == saves.UnsaveResult("nosuchpaper", removed=False)
    assert [i.paper_id for i in saves.saved(state, papers, T1, U1).items] == [revisited]
    # Saving again after an unsave is a new save, at its new time.
    assert saves.save(state, T1, U1, tok, at=900.0) == saves.SaveResult(tok, created=True, saved_at=900.0)


def test_one_user_never_sees_another_users_saves_nor_one_workspace_anothers(state: State, papers: Papers) -> None:
    tok, revisited = paper_id(papers, "hostile02"), paper_id(papers, "hostile03")
    saves.save(state, T1, U1, tok, at=100.0)
    saves.save(state, T1, U2, revisited, at=200.0)
    # The same user id in another workspace is someone else
    saves.save(state, T2, U1, revisited, at=300.0)
    assert [i.paper_id for i in saves.saved(state, papers, T1, U1).items] == [tok]
    assert [i.paper_id for i in saves.saved(state, papers, T1, U2).items] == [revisited]
    assert [i.paper_id for i in saves.saved(state, papers, T2, U1).items] == [revisited]
    assert saves.saved(state, papers, T2, U2).items == ()
    assert saves.saved_among(state, T1, U1, [tok, revisited, "nosuchpaper"]) == {tok}
    assert saves.saved_among(state, T2, U1, [tok, revisited]) == {revisited}
    assert saves.saved_among(state, T1, U1, []) == set()
    assert saves.is_saved(state, T2, U2, tok) is False
    # Unsaving in one workspace leaves the other's save alone.
    assert saves.unsave(state, T2, U1, tok).removed is False
    assert saves.unsave(state, T1, U2, tok).removed is False
    assert saves.is_saved(state, T1, U1, tok) is True


def test_two_hundred_saves_page_through_in_order_each_once(state: State, papers: Papers) -> None:
    ids = [paper_id(papers, f"plain{n:03d}") for n in range(PLAIN_COUNT)]
    # Pairs share a time: the order must still be total
    at = {pid: 1000.0 + n // 2 for n, pid in enumerate(ids)}
    for pid in ids:
        saves.save(state, T1, U1, pid, at=at[pid])
    newest_first = sorted(ids, key=lambda pid: (at[pid], pid), reverse=True)
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = saves.saved(state, papers, T1, U1, limit=10, offset=offset)
        assert page.total == 200
        assert len(page.items) == 10
        assert all(i.paper is not None for i in page.items)
        seen += [i.paper_id for i in page.items]
        offset = page.next_offset
        pages += 1
    assert pages == 20
    assert seen == newest_first
    assert set(seen) == set(ids)
    assert {seen[0], seen[1]} == {ids[198], ids[199]}
    everything = saves.saved(state, papers, T1, U1, limit=None)
    assert [i.paper_id for i in everything.items] == newest_first
    last = saves.saved(state, papers, T1, U1, limit=10, offset=190)
    assert (last.next_offset, last.previous_offset) == (None, 180)
    beyond = saves.saved(state, papers, T1, U1, limit=10, offset=400)
    assert (beyond.items, beyond.total, beyond.next_offset) == ((), 200, None)


@pytest.mark.parametrize(("limit", "offset"), [(0, 0), (-1, 0), (10, -1)])
def test_a_bad_page_is_refused(state: State, papers: Papers, limit: int, offset: int) -> None:
    with pytest.raises(ValueError, match="must"):
        saves.saved(state, papers, T1, U1, limit=limit, offset=offset)


def test_a_saved_paper_gone_from_the_index_is_listed_as_missing(
    state: State, papers: Papers, seed_index_path: Path
) -> None:
    tok = paper_id(papers, "hostile02")
    seed = Papers(seed_index_path).get("Vegas")
    assert seed is not None
    saves.save(state, T1, U1, tok, at=200.0)
    saves.save(state, T1, U1, seed["id"], at=100.0)
    # Re-indexed from the seeds alone: TokSuite is gone, Vegas is still there.
    page = saves.saved(state, Papers(seed_index_path), T1, U1)
    assert [(i.paper_id, i.paper is None) for i in page.items] == [(tok, True), (seed["id"], False)]
    assert page.missing == (tok,)
    assert page.total == 2
    assert saves.unsave(state, T1, U1, tok).removed is True  # the missing one can still be removed


def test_saves_survive_a_restart(tmp_path: Path, papers: Papers) -> None:
    tok = paper_id(papers, "hostile02")
    first = State(tmp_path / "state.db")
    saves.save(first, T1, U1, tok, at=100.0)
    first.close()
    again = State(tmp_path / "state.db")
    assert [(i.paper_id, i.saved_at) for i in saves.saved(again, papers, T1, U1).items] == [(tok, 100.0)]
    again.close()


def test_saved_ids_are_one_users_in_one_workspace(state: State) -> None:
    saves.save(state, "T0TEAM0001", "U0ALICE001", "kmd7pn", 100.0)
    saves.save(state, "T0TEAM0001", "U0ALICE001", "pywbay", 200.0)
    saves.save(state, "T0TEAM0001", "U0BOB00002", "hrnnjj", 300.0)
    saves.save(state, "T0TEAM0002", "U0ALICE001", "hrnnjj", 400.0)
    assert saves.saved_ids(state, "T0TEAM0001", "U0ALICE001") == frozenset({"kmd7pn", "pywbay"})
    assert saves.saved_ids(state, "T0TEAM0002", "U0BOB00002") == frozenset()
