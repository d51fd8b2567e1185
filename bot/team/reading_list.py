"""A channel's reading list: papers anyone in the channel added, with who and when; only that channel sees it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.papers.row import PaperRow
from bot.state import State
from bot.team.listing import PAGE_SIZE, Page, PaperLookup, check_page, lookup_all


@dataclass(frozen=True)
class Added:
    """Who put a paper on a channel's list and when (the first time: adding again keeps the original)."""

    paper_id: str
    added_by: str
    added_at: float


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


def _entry(state: State, team: str, channel: str, paper_id: str) -> Added | None:
    row = state.db.execute(
        "SELECT added_by, added_at FROM channel_list WHERE team = ? AND channel = ? AND paper_id = ?",
        [team, channel, paper_id],
    ).fetchone()
    return Added(paper_id, row[0], float(row[1])) if row else None


def add(state: State, team: str, channel: str, user: str, paper_id: str, at: float) -> AddResult:
    """Put a paper on a channel's list; adding it again is a no-op that says who added it first."""
    with state.immediate() as db:
        cursor = db.execute(
            "INSERT INTO channel_list (team, channel, paper_id, added_by, added_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            [team, channel, paper_id, user, at],
        )
        first = None if cursor.rowcount == 1 else _entry(state, team, channel, paper_id)
    if first is None:
        return AddResult(Added(paper_id, user, at), created=True)
    return AddResult(first, created=False)


def remove(state: State, team: str, channel: str, paper_id: str) -> RemoveResult:
    """Take a paper off a channel's list (anyone in the channel may); removing one not on it is a no-op."""
    with state.immediate() as db:
        entry = _entry(state, team, channel, paper_id)
        db.execute(
            "DELETE FROM channel_list WHERE team = ? AND channel = ? AND paper_id = ?", [team, channel, paper_id]
        )
    return RemoveResult(paper_id, entry is not None, entry)


def listed_among(state: State, team: str, channel: str, paper_ids: Iterable[str]) -> set[str]:
    """Which of these papers are on the channel's list, in one query (a button then says it is already there)."""
    wanted = list(dict.fromkeys(paper_ids))
    if not wanted:
        return set()
    marks = ", ".join("?" * len(wanted))
    rows = state.db.execute(
        f"SELECT paper_id FROM channel_list WHERE team = ? AND channel = ? AND paper_id IN ({marks})",
        [team, channel, *wanted],
    )
    return {row[0] for row in rows}


def count(state: State, team: str, channel: str) -> int:
    """How many papers the channel's list holds (missing ones included)."""
    row = state.db.execute(
        "SELECT count(*) FROM channel_list WHERE team = ? AND channel = ?", [team, channel]
    ).fetchone()
    return int(row[0])


def listed(
    state: State, papers: PaperLookup, team: str, channel: str, limit: int | None = PAGE_SIZE, offset: int = 0
) -> Page[ListedPaper]:
    """A page of the channel's list, newest first (`limit=None`: all of it, e.g. for an export)."""
    sql_limit, sql_offset = check_page(limit, offset)
    rows = state.db.execute(  # the total comes with the page, from the same snapshot
        "SELECT paper_id, added_by, added_at, count(*) OVER () FROM channel_list WHERE team = ? AND channel = ? "
        "ORDER BY added_at DESC, paper_id DESC LIMIT ? OFFSET ?",
        [team, channel, sql_limit, sql_offset],
    ).fetchall()
    total = int(rows[0][3]) if rows else count(state, team, channel)
    found = lookup_all(papers, [row[0] for row in rows])
    items = tuple(ListedPaper(row[0], row[1], float(row[2]), paper) for row, paper in zip(rows, found, strict=True))
    return Page(items, total, offset, limit)
