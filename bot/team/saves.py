"""Saved papers: each user's own list, per Slack workspace. Another workspace never sees them; in their own workspace
a paper's history says who saved it (bot/team/history.py) until they unsave it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.papers.row import PaperRow
from bot.state import State
from bot.state.history import Event, Kind
from bot.team.listing import PAGE_SIZE, Page, PaperLookup, check_page, lookup_all


@dataclass(frozen=True)
class SaveResult:
    """What a Save did: `created` is False when the paper was already saved (a double click changes nothing)."""

    paper_id: str
    created: bool
    saved_at: float  # when it was first saved, so a double click keeps its place in the list


@dataclass(frozen=True)
class UnsaveResult:
    """What an Unsave did: `removed` is False when the paper was not saved (nothing changed)."""

    paper_id: str
    removed: bool


@dataclass(frozen=True)
class SavedPaper:
    """One saved paper: `paper` is None when the index no longer holds it (the save is kept, shown as missing)."""

    paper_id: str
    saved_at: float
    paper: PaperRow | None


def save(state: State, team: str, user: str, paper_id: str, at: float) -> SaveResult:
    """Save a paper for a user (the workspace's history records who saved it); saving it again is a no-op that says
    so."""
    with state.immediate():
        row, created = state.saves.add(team, user, paper_id, at)
        if created:
            state.history.record(team, Event(paper_id, Kind.SAVED, "", user, at))
    return SaveResult(paper_id, created, row.saved_at)


def unsave(state: State, team: str, user: str, paper_id: str) -> UnsaveResult:
    """Forget a saved paper, and that this user saved it (the history no longer names them); unsaving one that is not
    saved is a no-op that says so."""
    with state.immediate():
        removed = state.saves.remove(team, user, paper_id)
        state.history.remove(team, paper_id, Kind.SAVED, user=user)
    return UnsaveResult(paper_id, removed)


def is_saved(state: State, team: str, user: str, paper_id: str) -> bool:
    """Whether a user has saved a paper (a Save button then offers Unsave)."""
    return state.saves.has(team, user, paper_id)


def saved_among(state: State, team: str, user: str, paper_ids: Iterable[str]) -> set[str]:
    """Which of these papers a user has saved, in one query: a message of results picks Save or Unsave per paper."""
    return state.saves.among(team, user, paper_ids)


def count(state: State, team: str, user: str) -> int:
    """How many papers a user has saved (missing ones included)."""
    return state.saves.count(team, user)


def saved(
    state: State, papers: PaperLookup, team: str, user: str, limit: int | None = PAGE_SIZE, offset: int = 0
) -> Page[SavedPaper]:
    """A page of a user's saved papers, newest first (`limit=None`: all of them, e.g. for an export)."""
    check_page(limit, offset)
    rows, total = state.saves.page(team, user, limit, offset)
    found = lookup_all(papers, [row.paper_id for row in rows])
    items = tuple(SavedPaper(row.paper_id, row.saved_at, paper) for row, paper in zip(rows, found, strict=True))
    return Page(items, total, offset, limit)


def saved_ids(state: State, team: str, user: str) -> frozenset[str]:
    """Every paper id a user saved (one indexed query): the Save buttons of a view they asked for say Saved."""
    return state.saves.ids(team, user)
