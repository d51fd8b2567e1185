"""The digest_feedback table: a channel's latest More/Less like this vote on each digest paper, per workspace."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

from bot.state.repository import Repository


class Vote(IntEnum):
    """A channel's opinion of a paper, stored as the number."""

    MORE = 1
    LESS = -1


class Via(StrEnum):
    """How the vote was cast: its own button, or a Save on the digest (which an Unsave may take back)."""

    BUTTON = "button"
    SAVE = "save"


@dataclass(frozen=True)
class ChannelVote:
    """The channel's current vote on one paper, and who cast it when."""

    paper_id: str
    vote: Vote
    user: str
    via: Via
    at: float


_COLUMNS = 'paper_id, vote, "user", via, at'


def _vote(row: tuple[str, int, str, str, float]) -> ChannelVote:
    return ChannelVote(row[0], Vote(row[1]), row[2], Via(row[3]), float(row[4]))


class Feedback(Repository):
    """Votes by channel: one per paper, the latest click replacing the one before."""

    def current(self, team: str, channel: str, paper_id: str) -> ChannelVote | None:
        """The channel's vote on a paper, or None."""
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM digest_feedback WHERE team = ? AND channel = ? AND paper_id = ?",
            [team, channel, paper_id],
        ).fetchone()
        return _vote(row) if row else None

    def put(self, team: str, channel: str, vote: ChannelVote) -> None:
        """Record a vote, replacing whatever the channel said about the paper."""
        self._db.execute(
            'INSERT INTO digest_feedback (team, channel, paper_id, vote, "user", via, at) '
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team, channel, paper_id) DO UPDATE SET "
            'vote = excluded.vote, "user" = excluded."user", via = excluded.via, at = excluded.at',
            [team, channel, vote.paper_id, int(vote.vote), vote.user, str(vote.via), vote.at],
        )

    def drop(self, team: str, channel: str, paper_id: str) -> None:
        """Forget the channel's vote on a paper (none: nothing changes)."""
        self._db.execute(
            "DELETE FROM digest_feedback WHERE team = ? AND channel = ? AND paper_id = ?", [team, channel, paper_id]
        )

    def in_channel(self, channel: str, team: str | None) -> list[ChannelVote]:
        """A workspace's votes in a channel, newest first; team None: every workspace's there."""
        where, params = ("channel = ?", [channel]) if team is None else ("team = ? AND channel = ?", [team, channel])
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM digest_feedback WHERE {where} ORDER BY at DESC, paper_id DESC", params
        ).fetchall()
        return [_vote(row) for row in rows]
