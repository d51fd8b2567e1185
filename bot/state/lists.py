"""The channel_list table: each channel's reading list per Slack workspace, with who added each paper and when."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.state.repository import Repository, sql_limit


@dataclass(frozen=True)
class Added:
    """Who put a paper on a channel's list and when (the first time: adding again keeps the original)."""

    paper_id: str
    added_by: str
    added_at: float


class Lists(Repository):
    """Channel reading lists: only that channel, in that workspace, sees its list."""

    def entry(self, team: str, channel: str, paper_id: str) -> Added | None:
        """The paper's entry on the channel's list, or None."""
        row = self._db.execute(
            "SELECT added_by, added_at FROM channel_list WHERE team = ? AND channel = ? AND paper_id = ?",
            [team, channel, paper_id],
        ).fetchone()
        return Added(paper_id, row[0], float(row[1])) if row else None

    def add(self, team: str, channel: str, user: str, paper_id: str, at: float) -> tuple[Added, bool]:
        """Put a paper on the list: its entry, and True if this call added it (else who added it first)."""
        with self._write() as db:
            cursor = db.execute(
                "INSERT INTO channel_list (team, channel, paper_id, added_by, added_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [team, channel, paper_id, user, at],
            )
            first = None if cursor.rowcount == 1 else self.entry(team, channel, paper_id)
        return (Added(paper_id, user, at), True) if first is None else (first, False)

    def remove(self, team: str, channel: str, paper_id: str) -> Added | None:
        """Take a paper off the list: the entry removed, or None when it was not on it."""
        with self._write() as db:
            entry = self.entry(team, channel, paper_id)
            db.execute(
                "DELETE FROM channel_list WHERE team = ? AND channel = ? AND paper_id = ?", [team, channel, paper_id]
            )
        return entry

    def among(self, team: str, channel: str, paper_ids: Iterable[str]) -> set[str]:
        """Which of these papers are on the channel's list, in one query."""
        return self._papers_among("FROM channel_list WHERE team = ? AND channel = ?", [team, channel], paper_ids)

    def count(self, team: str, channel: str) -> int:
        """How many papers the channel's list holds."""
        row = self._db.execute(
            "SELECT count(*) FROM channel_list WHERE team = ? AND channel = ?", [team, channel]
        ).fetchone()
        return int(row[0])

    def page(self, team: str, channel: str, limit: int | None, offset: int) -> tuple[list[Added], int]:
        """A page of the channel's list, newest first, and how long the list is (`limit` None: all of it)."""
        rows = self._db.execute(  # the total comes with the page, from the same snapshot
            "SELECT paper_id, added_by, added_at, count(*) OVER () FROM channel_list WHERE team = ? AND channel = ? "
            "ORDER BY added_at DESC, paper_id DESC LIMIT ? OFFSET ?",
            [team, channel, sql_limit(limit), offset],
        ).fetchall()
        total = int(rows[0][3]) if rows else self.count(team, channel)
        return [Added(row[0], row[1], float(row[2])) for row in rows], total
