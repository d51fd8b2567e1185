"""A paper's history in a workspace: saves, list entries, shares and unfurls recorded per workspace, an unsave or a
list removal taking its row back, one row per message, and an uninstall forgetting one workspace only. On SQLite and
PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from bot.state import State
from bot.state.history import Event, Kind
from bot.team import history, reading_list, saves

T1, T2 = "T0TEAM0001", "T0TEAM0002"
U1, U2, U3 = "U0ALICE001", "U0BOB00002", "U0CARL0003"
C1, C2 = "C0NLPREAD01", "C0GENERAL02"
P, Q = "pap001", "pap002"


def test_saves_and_list_entries_are_the_workspaces_memory_until_taken_back(state: State) -> None:
    saves.save(state, T1, U1, P, at=100.0)
    saves.save(state, T1, U2, P, at=200.0)
    saves.save(state, T1, U2, P, at=300.0)  # a double click: no second row
    reading_list.add(state, T1, C1, U3, P, at=150.0)
    reading_list.add(state, T1, C1, U1, P, at=400.0)  # already on the list
    assert history.memory(state, T1, P) == history.PaperMemory(P, savers=(U1, U2), lists=(C1,))
    assert not history.memory(state, T2, P)  # another workspace has none of it
    assert saves.unsave(state, T1, U1, P).removed
    assert reading_list.remove(state, T1, C1, P).removed
    assert history.memory(state, T1, P) == history.PaperMemory(P, savers=(U2,))


def test_a_message_unfurled_again_is_one_event_and_shares_each_count(state: State) -> None:
    assert history.record_unfurls(state, T1, C1, U1, [P, Q, P], 100.0, "1773014400.000100", "https://x/p1") == 2
    # Edit
    assert history.record_unfurls(state, T1, C1, U1, [P], 105.0, "1773014400.000100", "https://x/p1") == 0
    assert history.record_unfurls(state, T1, C2, U2, [P], 200.0, "1773014500.000100") == 1
    assert history.record_share(state, T1, C1, U3, P, 300.0)
    assert history.record_share(state, T1, C1, U3, P, 310.0)  # shared again later: another event
    found = history.memory(state, T1, P)
    assert [(e.kind, e.channel, e.user, e.at, e.permalink) for e in found.discussed] == [
        (Kind.SHARED, C1, U3, 310.0, None),
        (Kind.SHARED, C1, U3, 300.0, None),
        (Kind.UNFURLED, C2, U2, 200.0, None),
        (Kind.UNFURLED, C1, U1, 100.0, "https://x/p1"),
    ]
    assert [e.at for e in found.discussed_in(C2)] == [200.0]
    assert [m.paper_id for m in history.recently_discussed(state, T1, 5)] == [P, Q]
    assert history.recently_discussed(state, T2, 5) == []


def test_forgetting_a_workspace_keeps_the_others_and_its_saves_and_lists(state: State) -> None:
    for team in (T1, T2):
        saves.save(state, team, U1, P, at=100.0)
        reading_list.add(state, team, C1, U1, P, at=100.0)
        history.record_unfurls(state, team, C1, U1, [P], 100.0, "1773014400.000100")
    assert history.forget_workspace(state, T1) == 3
    assert not history.memory(state, T1, P)
    assert history.memory(state, T2, P) == history.PaperMemory(
        P, (U1,), (C1,), (Event(P, Kind.UNFURLED, C1, U1, 100.0, "1773014400.000100"),)
    )
    assert saves.is_saved(state, T1, U1, P)  # the person's own list and the channel's list stay
    assert reading_list.count(state, T1, C1) == 1
    assert history.forget_workspace(state, "") == 0  # no workspace named: nothing goes


def test_the_history_survives_reopening_the_state(state_target: Path | str) -> None:
    first = State(state_target)
    history.record_unfurls(first, T1, C1, U1, [P], 100.0, "1773014400.000100", "https://x/p1")
    saves.save(first, T1, U2, P, at=200.0)
    first.close()
    again = State(state_target)
    found = history.memory(again, T1, P)
    assert (found.savers, [e.permalink for e in found.discussed]) == ((U2,), ["https://x/p1"])
    again.close()
