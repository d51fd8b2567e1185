"""A paper's history in one workspace: where it was shared or unfurled (with the message's permalink), who saved it
and which channel lists hold it. Saves and list entries record themselves (saves.py, reading_list.py); shares and
unfurls are recorded here. Nothing crosses workspaces, and an uninstall forgets the workspace's history."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.state import State
from bot.state.history import Event, Kind

__all__ = ["Event", "Kind", "PaperMemory", "forget_workspace", "memories", "memory", "recently_discussed"]

# A message in a channel showed the paper to everyone there
DISCUSSED = (Kind.SHARED, Kind.UNFURLED)


@dataclass(frozen=True)
class PaperMemory:
    """What one workspace has of one paper: who saved it (first saver first), the channels whose list holds it, and
    the messages that showed it (newest first)."""

    paper_id: str
    savers: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()
    discussed: tuple[Event, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.savers or self.lists or self.discussed)

    def discussed_in(self, channel: str) -> tuple[Event, ...]:
        """The messages in one channel that showed the paper, newest first."""
        return tuple(e for e in self.discussed if e.channel == channel)


def record_share(state: State, team: str, channel: str, user: str, paper_id: str, at: float) -> bool:
    """Someone shared the paper with a channel through the bot (the message's ts is not known: no permalink)."""
    return state.history.record(team, Event(paper_id, Kind.SHARED, channel, user, at))


def record_unfurls(
    state: State,
    team: str,
    channel: str,
    user: str,
    paper_ids: Iterable[str],
    at: float,
    ts: str,
    permalink: str | None = None,
) -> int:
    """The bot unfurled links to these papers in a posted message; one event per message and paper (a message
    unfurled again, after an edit or a redelivery, adds nothing). Returns how many were new."""
    with state.immediate():
        return sum(
            state.history.record(team, Event(pid, Kind.UNFURLED, channel, user, at, ts, permalink))
            for pid in dict.fromkeys(paper_ids)
        )


def memories(state: State, team: str, paper_ids: Sequence[str]) -> dict[str, PaperMemory]:
    """Each paper's memory in the workspace (empty ones included), in one query."""
    events: dict[str, list[Event]] = {pid: [] for pid in paper_ids}
    for event in state.history.of_papers(team, paper_ids):
        events[event.paper_id].append(event)
    return {pid: _memory(pid, found) for pid, found in events.items()}


def memory(state: State, team: str, paper_id: str) -> PaperMemory:
    """One paper's memory in the workspace."""
    return memories(state, team, [paper_id])[paper_id]


def recently_discussed(state: State, team: str, limit: int) -> list[PaperMemory]:
    """The papers shared or unfurled most recently in the workspace, newest first."""
    ids = state.history.latest_papers(team, DISCUSSED, limit)
    found = memories(state, team, ids)
    return [found[pid] for pid in ids]


def forget_workspace(state: State, team: str) -> int:
    """The app was uninstalled from the workspace: its paper history goes (each person's saves and the channels'
    lists stay, as their owners made them). Returns how many events went."""
    return state.history.forget(team) if team else 0


def _memory(paper_id: str, events: list[Event]) -> PaperMemory:
    oldest_first = sorted(events, key=lambda e: e.at)
    savers = dict.fromkeys(e.user for e in oldest_first if e.kind is Kind.SAVED and e.user)
    lists = dict.fromkeys(e.channel for e in oldest_first if e.kind is Kind.LISTED and e.channel)
    discussed = tuple(e for e in events if e.kind in DISCUSSED)  # (newest first, as read)
    return PaperMemory(paper_id, tuple(savers), tuple(lists), discussed)
