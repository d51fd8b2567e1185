"""Saved papers: each user's own, per Slack workspace; nobody else (user or workspace) ever reads them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.papers.row import PaperRow
from bot.state import State
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
    """Save a paper for a user; saving it again is a no-op that says so."""
    with state.immediate() as db:
        cursor = db.execute(
            'INSERT INTO team_saves (team, "user", paper_id, saved_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
            [team, user, paper_id, at],
        )
        row = db.execute(
            'SELECT saved_at FROM team_saves WHERE team = ? AND "user" = ? AND paper_id = ?', [team, user, paper_id]
        ).fetchone()
    return SaveResult(paper_id, cursor.rowcount == 1, float(row[0]))


def unsave(state: State, team: str, user: str, paper_id: str) -> UnsaveResult:
    """Forget a saved paper; unsaving one that is not saved is a no-op that says so."""
    cursor = state.db.execute(
        'DELETE FROM team_saves WHERE team = ? AND "user" = ? AND paper_id = ?', [team, user, paper_id]
    )
    return UnsaveResult(paper_id, cursor.rowcount == 1)


def is_saved(state: State, team: str, user: str, paper_id: str) -> bool:
    """Whether a user has saved a paper (a Save button then offers Unsave)."""
    row = state.db.execute(
        'SELECT 1 FROM team_saves WHERE team = ? AND "user" = ? AND paper_id = ?', [team, user, paper_id]
    ).fetchone()
    return row is not None


def saved_among(state: State, team: str, user: str, paper_ids: Iterable[str]) -> set[str]:
    """Which of these papers a user has saved, in one query: a message of results picks Save or Unsave per paper."""
    wanted = list(dict.fromkeys(paper_ids))
    if not wanted:
        return set()
    marks = ", ".join("?" * len(wanted))
    rows = state.db.execute(
        f'SELECT paper_id FROM team_saves WHERE team = ? AND "user" = ? AND paper_id IN ({marks})',
        [team, user, *wanted],
    )
    return {row[0] for row in rows}


def count(state: State, team: str, user: str) -> int:
    """How many papers a user has saved (missing ones included)."""
    row = state.db.execute('SELECT count(*) FROM team_saves WHERE team = ? AND "user" = ?', [team, user]).fetchone()
    return int(row[0])


def saved(
    state: State, papers: PaperLookup, team: str, user: str, limit: int | None = PAGE_SIZE, offset: int = 0
) -> Page[SavedPaper]:
    """A page of a user's saved papers, newest first (`limit=None`: all of them, e.g. for an export)."""
    sql_limit, sql_offset = check_page(limit, offset)
    rows = state.db.execute(  # the total comes with the page, from the same snapshot
        'SELECT paper_id, saved_at, count(*) OVER () FROM team_saves WHERE team = ? AND "user" = ? '
        "ORDER BY saved_at DESC, paper_id DESC LIMIT ? OFFSET ?",
        [team, user, sql_limit, sql_offset],
    ).fetchall()
    total = int(rows[0][2]) if rows else count(state, team, user)
    found = lookup_all(papers, [row[0] for row in rows])
    items = tuple(SavedPaper(row[0], float(row[1]), paper) for row, paper in zip(rows, found, strict=True))
    return Page(items, total, offset, limit)


def saved_ids(state: State, team: str, user: str) -> frozenset[str]:
    """Every paper id a user saved (one indexed query): the Save buttons of a view they asked for say Saved."""
    rows = state.db.execute('SELECT paper_id FROM team_saves WHERE team = ? AND "user" = ?', [team, user])
    return frozenset(row[0] for row in rows)
