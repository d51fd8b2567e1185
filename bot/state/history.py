"""The paper_history table: per Slack workspace, where each paper was shared or unfurled, who saved it, which channel
lists hold it. Only that workspace ever reads its rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from bot.state.repository import Repository, marks


class Kind(StrEnum):
    """What happened to a paper in a workspace."""

    SHARED = "shared"  # posted for a channel through the bot (Share to channel)
    UNFURLED = "unfurled"  # a link to it was posted in a channel and the bot unfurled it
    SAVED = "saved"  # someone saved it (their own; the row goes when they unsave it)
    LISTED = "listed"  # put on a channel's reading list (the row goes when it is taken off)


@dataclass(frozen=True)
class Event:
    """One row: `channel` is '' for a save; `ts` and `permalink` name the message when it is known."""

    paper_id: str
    kind: Kind
    channel: str
    user: str
    at: float
    ts: str = ""
    permalink: str | None = None


_COLUMNS = 'paper_id, kind, channel, "user", at, ts, permalink'


def _event(row: tuple[str, str, str, str, float, str, str | None]) -> Event:
    return Event(row[0], Kind(row[1]), row[2], row[3], float(row[4]), row[5], row[6])


class History(Repository):
    """Each workspace's paper history; every call names the workspace, and no query reads another's rows."""

    def record(self, team: str, event: Event) -> bool:
        """Add an event; False when it was there already (the same message's paper again: a redelivery, an edit)."""
        with self._write() as db:
            if event.ts:
                found = db.execute(
                    "SELECT 1 FROM paper_history WHERE team = ? AND paper_id = ? AND kind = ? AND channel = ? "
                    "AND ts = ?",
                    [team, event.paper_id, event.kind.value, event.channel, event.ts],
                ).fetchone()
                if found is not None:
                    return False
            values = [event.paper_id, event.kind.value, event.channel, event.user, event.at, event.ts, event.permalink]
            cursor = db.execute(
                f"INSERT INTO paper_history (team, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [team, *values],
            )
        return bool(cursor.rowcount == 1)

    def remove(
        self, team: str, paper_id: str, kind: Kind, *, channel: str | None = None, user: str | None = None
    ) -> int:
        """Delete a paper's events of one kind (a person's save when they unsave, a channel's list entry when it is
        taken off); returns how many went."""
        sql = "DELETE FROM paper_history WHERE team = ? AND paper_id = ? AND kind = ?"
        params: list[str] = [team, paper_id, kind.value]
        if channel is not None:
            sql, params = sql + " AND channel = ?", [*params, channel]
        if user is not None:
            sql, params = sql + ' AND "user" = ?', [*params, user]
        return int(self._db.execute(sql, params).rowcount)

    def of_papers(self, team: str, paper_ids: Iterable[str]) -> list[Event]:
        """Every event of these papers in the workspace, newest first, in one query."""
        wanted = list(dict.fromkeys(paper_ids))
        if not wanted:
            return []
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM paper_history WHERE team = ? AND paper_id IN ({marks(wanted)}) "
            "ORDER BY at DESC, paper_id, kind, channel",
            [team, *wanted],
        ).fetchall()
        return [_event(row) for row in rows]

    def latest_papers(self, team: str, kinds: Iterable[Kind], limit: int) -> list[str]:
        """The papers with the newest events of these kinds in the workspace, newest first."""
        names = [k.value for k in kinds]
        rows = self._db.execute(
            f"SELECT paper_id, max(at) AS newest FROM paper_history WHERE team = ? AND kind IN ({marks(names)}) "
            "GROUP BY paper_id ORDER BY newest DESC, paper_id LIMIT ?",
            [team, *names, limit],
        ).fetchall()
        return [row[0] for row in rows]

    def forget(self, team: str) -> int:
        """Delete the workspace's whole history (the app was uninstalled); returns how many rows went."""
        return int(self._db.execute("DELETE FROM paper_history WHERE team = ?", [team]).rowcount)
