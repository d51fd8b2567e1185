"""The team_saves table: each user's saved paper ids per Slack workspace."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.state.repository import Repository, marks, sql_limit

USERS_PER_QUERY = 500  # user ids per IN (…) when reading a channel's members' saves


@dataclass(frozen=True)
class Saved:
    """One saved paper id and when it was first saved."""

    paper_id: str
    saved_at: float


class Saves(Repository):
    """A user's saves: only that user, in that workspace, ever reads them."""

    def add(self, team: str, user: str, paper_id: str, at: float) -> tuple[Saved, bool]:
        """Save a paper (the row, and True if this call made it; saving again keeps the first time)."""
        with self._write() as db:
            cursor = db.execute(
                'INSERT INTO team_saves (team, "user", paper_id, saved_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
                [team, user, paper_id, at],
            )
            row = db.execute(
                'SELECT saved_at FROM team_saves WHERE team = ? AND "user" = ? AND paper_id = ?',
                [team, user, paper_id],
            ).fetchone()
        return Saved(paper_id, float(row[0])), cursor.rowcount == 1

    def remove(self, team: str, user: str, paper_id: str) -> bool:
        """Forget a save; False when there was none."""
        cursor = self._db.execute(
            'DELETE FROM team_saves WHERE team = ? AND "user" = ? AND paper_id = ?', [team, user, paper_id]
        )
        return cursor.rowcount == 1

    def has(self, team: str, user: str, paper_id: str) -> bool:
        """Whether the user saved this paper."""
        row = self._db.execute(
            'SELECT 1 FROM team_saves WHERE team = ? AND "user" = ? AND paper_id = ?', [team, user, paper_id]
        ).fetchone()
        return row is not None

    def among(self, team: str, user: str, paper_ids: Iterable[str]) -> set[str]:
        """Which of these papers the user saved, in one query."""
        return self._papers_among('FROM team_saves WHERE team = ? AND "user" = ?', [team, user], paper_ids)

    def count(self, team: str, user: str) -> int:
        """How many papers the user saved."""
        row = self._db.execute('SELECT count(*) FROM team_saves WHERE team = ? AND "user" = ?', [team, user]).fetchone()
        return int(row[0])

    def page(self, team: str, user: str, limit: int | None, offset: int) -> tuple[list[Saved], int]:
        """A page of the user's saves, newest first, and how many there are in all (`limit` None: every one)."""
        rows = self._db.execute(  # the total comes with the page, from the same snapshot
            'SELECT paper_id, saved_at, count(*) OVER () FROM team_saves WHERE team = ? AND "user" = ? '
            "ORDER BY saved_at DESC, paper_id DESC LIMIT ? OFFSET ?",
            [team, user, sql_limit(limit), offset],
        ).fetchall()
        total = int(rows[0][2]) if rows else self.count(team, user)
        return [Saved(row[0], float(row[1])) for row in rows], total

    def ids(self, team: str, user: str) -> frozenset[str]:
        """Every paper id the user saved (one indexed query)."""
        rows = self._db.execute('SELECT paper_id FROM team_saves WHERE team = ? AND "user" = ?', [team, user])
        return frozenset(row[0] for row in rows)

    def of_users(self, team: str, users: list[str]) -> list[tuple[str, str]]:
        """(user, paper id) of every save these users made in the workspace (a channel's members, for its plan)."""
        found: list[tuple[str, str]] = []
        wanted = list(dict.fromkeys(users))
        for at in range(0, len(wanted), USERS_PER_QUERY):
            chunk = wanted[at : at + USERS_PER_QUERY]
            rows = self._db.execute(
                f'SELECT "user", paper_id FROM team_saves WHERE team = ? AND "user" IN ({marks(chunk)})',
                [team, *chunk],
            )
            found.extend((row[0], row[1]) for row in rows)
        return found

    def of_team(self, team: str) -> list[tuple[str, str]]:
        """(user, paper id) of every save made in the workspace (a channel's "today at <venue>" digest counts them)."""
        rows = self._db.execute('SELECT "user", paper_id FROM team_saves WHERE team = ?', [team])
        return [(row[0], row[1]) for row in rows]
