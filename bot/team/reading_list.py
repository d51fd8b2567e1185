"""A channel's reading list: papers anyone in the channel added, with who and when; only that channel sees it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.papers.row import PaperRow
from bot.state import State
from bot.state.history import Event, Kind
from bot.state.lists import Added
from bot.team.listing import PAGE_SIZE, Page, PaperLookup, check_page, lookup_all

__all__ = ["AddResult", "Added", "ListedPaper", "RemoveResult", "add", "count", "listed", "listed_among", "remove"]


@dataclass(frozen=True)
class AddResult:
    """What an add did: `created` is False when the paper was already on the list (`entry` says who added it)."""

    entry: Added
    created: bool


@dataclass(frozen=True)
class RemoveResult:
    """What a remove did: `removed` is False when the paper was not on the list; `entry` is what was removed."""

    paper_id: str
    removed: bool
    entry: Added | None


@dataclass(frozen=True)
class ListedPaper:
    """One paper of a channel's list: `paper` is None when the index no longer holds it (kept, shown as missing)."""

    paper_id: str
    added_by: str
    added_at: float
    paper: PaperRow | None


def add(state: State, team: str, channel: str, user: str, paper_id: str, at: float) -> AddResult:
    """Put a paper on a channel's list (recorded in the workspace's history); adding it again is a no-op that says who
    added it first."""
    with state.immediate():
        entry, created = state.lists.add(team, channel, user, paper_id, at)
        if created:
            state.history.record(team, Event(paper_id, Kind.LISTED, channel, user, at))
    return AddResult(entry, created)


def remove(state: State, team: str, channel: str, paper_id: str) -> RemoveResult:
    """Take a paper off a channel's list (anyone in the channel may), and out of the history's list entries; removing
    one not on it is a no-op."""
    with state.immediate():
        entry = state.lists.remove(team, channel, paper_id)
        state.history.remove(team, paper_id, Kind.LISTED, channel=channel)
    return RemoveResult(paper_id, entry is not None, entry)


def listed_among(state: State, team: str, channel: str, paper_ids: Iterable[str]) -> set[str]:
    """Which of these papers are on the channel's list, in one query (a button then says it is already there)."""
    return state.lists.among(team, channel, paper_ids)


def count(state: State, team: str, channel: str) -> int:
    """How many papers the channel's list holds (missing ones included)."""
    return state.lists.count(team, channel)


def listed(
    state: State, papers: PaperLookup, team: str, channel: str, limit: int | None = PAGE_SIZE, offset: int = 0
) -> Page[ListedPaper]:
    """A page of the channel's list, newest first (`limit=None`: all of it, e.g. for an export)."""
    check_page(limit, offset)
    rows, total = state.lists.page(team, channel, limit, offset)
    found = lookup_all(papers, [row.paper_id for row in rows])
    items = tuple(
        ListedPaper(row.paper_id, row.added_by, row.added_at, paper) for row, paper in zip(rows, found, strict=True)
    )
    return Page(items, total, offset, limit)
