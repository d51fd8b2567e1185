"""Digest feedback per channel: More like this (+1) or Less like this (-1) on a paper; the latest click wins.

A Save pressed on a digest counts as More like this for that channel, and an Unsave there takes back only that.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

from bot.state import State
from bot.team import saves


class Vote(IntEnum):
    """A channel's opinion of a paper, stored as the number."""

    MORE = 1
    LESS = -1


class Via(StrEnum):
    """How the vote was cast: its own button, or a Save on the digest (which an Unsave may take back)."""

    BUTTON = "button"
    SAVE = "save"


@dataclass(frozen=True)
class VoteResult:
    """What a click did: the channel's vote on the paper before and after (the reply says what will change)."""

    paper_id: str
    vote: Vote | None
    previous: Vote | None

    @property
    def changed(self) -> bool:
        """False for a repeated click."""
        return self.vote != self.previous


@dataclass(frozen=True)
class ChannelVote:
    """The channel's current vote on one paper, and who cast it when."""

    paper_id: str
    vote: Vote
    user: str
    via: Via
    at: float


@dataclass(frozen=True)
class ChannelFeedback:
    """Everything a channel said about its digest papers, newest first."""

    votes: tuple[ChannelVote, ...]

    @property
    def liked(self) -> tuple[str, ...]:
        """Ids of the papers the channel wants more like, newest first."""
        return tuple(v.paper_id for v in self.votes if v.vote is Vote.MORE)

    @property
    def disliked(self) -> tuple[str, ...]:
        """Ids of the papers the channel wants fewer like, newest first."""
        return tuple(v.paper_id for v in self.votes if v.vote is Vote.LESS)


@dataclass(frozen=True)
class DigestSave:
    """A Save pressed on a digest: the user's save, and the channel's vote it counted as."""

    save: saves.SaveResult
    vote: VoteResult


@dataclass(frozen=True)
class DigestUnsave:
    """An Unsave pressed on a digest: the user's unsave, and the channel's vote after it (the save's +1 taken back)."""

    unsave: saves.UnsaveResult
    vote: VoteResult


def _current(state: State, team: str, channel: str, paper_id: str) -> tuple[Vote, str, Via] | None:
    row = state.db.execute(
        'SELECT vote, "user", via FROM digest_feedback WHERE team = ? AND channel = ? AND paper_id = ?',
        [team, channel, paper_id],
    ).fetchone()
    return (Vote(row[0]), row[1], Via(row[2])) if row else None


def _write(state: State, team: str, channel: str, user: str, paper_id: str, vote: Vote, via: Via, at: float) -> None:
    state.db.execute(
        'INSERT INTO digest_feedback (team, channel, paper_id, vote, "user", via, at) '
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team, channel, paper_id) DO UPDATE SET "
        'vote = excluded.vote, "user" = excluded."user", via = excluded.via, at = excluded.at',
        [team, channel, paper_id, int(vote), user, str(via), at],
    )


def vote(state: State, team: str, channel: str, user: str, paper_id: str, choice: Vote, at: float) -> VoteResult:
    """Record a More/Less like this click for the channel; it replaces whatever the channel said about the paper."""
    with state.immediate():
        before = _current(state, team, channel, paper_id)
        _write(state, team, channel, user, paper_id, choice, Via.BUTTON, at)
    return VoteResult(paper_id, choice, before[0] if before else None)


def save_from_digest(state: State, team: str, channel: str, user: str, paper_id: str, at: float) -> DigestSave:
    """Save a paper shown in a channel's digest, which counts as More like this (an earlier +1 is kept as it was)."""
    with state.immediate():
        saved = saves.save(state, team, user, paper_id, at)
        before = _current(state, team, channel, paper_id)
        if before is None or before[0] is not Vote.MORE:
            _write(state, team, channel, user, paper_id, Vote.MORE, Via.SAVE, at)
    return DigestSave(saved, VoteResult(paper_id, Vote.MORE, before[0] if before else None))


def unsave_from_digest(state: State, team: str, channel: str, user: str, paper_id: str) -> DigestUnsave:
    """Unsave a paper from a digest: the +1 this user's Save cast goes too; anyone's button vote stays."""
    with state.immediate():
        unsaved = saves.unsave(state, team, user, paper_id)
        before = _current(state, team, channel, paper_id)
        after = before[0] if before else None
        if before is not None and before[1:] == (user, Via.SAVE):
            state.db.execute(
                "DELETE FROM digest_feedback WHERE team = ? AND channel = ? AND paper_id = ?",
                [team, channel, paper_id],
            )
            after = None
    return DigestUnsave(unsaved, VoteResult(paper_id, after, before[0] if before else None))


def forget(state: State, team: str, channel: str, paper_id: str) -> VoteResult:
    """Drop the channel's vote on a paper (an Undo); forgetting a paper it never voted on is a no-op."""
    with state.immediate():
        before = _current(state, team, channel, paper_id)
        state.db.execute(
            "DELETE FROM digest_feedback WHERE team = ? AND channel = ? AND paper_id = ?", [team, channel, paper_id]
        )
    return VoteResult(paper_id, None, before[0] if before else None)


def channel_feedback(state: State, team: str, channel: str) -> ChannelFeedback:
    """What a channel liked and disliked, newest first: the digest ranks by it and `/icml digest status` shows it."""
    rows = state.db.execute(
        'SELECT paper_id, vote, "user", via, at FROM digest_feedback WHERE team = ? AND channel = ? '
        "ORDER BY at DESC, paper_id DESC",
        [team, channel],
    ).fetchall()
    return ChannelFeedback(tuple(ChannelVote(r[0], Vote(r[1]), r[2], Via(r[3]), float(r[4])) for r in rows))


def votes_in_channel(state: State, channel: str, team: str = "") -> ChannelFeedback:
    """A workspace's votes in a channel (a channel shared between workspaces learns per workspace, as each gets its
    own digest); team "": the single workspace's, whatever id Slack gave it."""
    where, params = ("channel = ?", [channel]) if not team else ("team = ? AND channel = ?", [team, channel])
    rows = state.db.execute(
        f'SELECT paper_id, vote, "user", via, at FROM digest_feedback WHERE {where} ORDER BY at DESC, paper_id DESC',
        params,
    ).fetchall()
    return ChannelFeedback(tuple(ChannelVote(r[0], Vote(r[1]), r[2], Via(r[3]), float(r[4])) for r in rows))
