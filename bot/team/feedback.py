"""Digest feedback per channel: More like this (+1) or Less like this (-1) on a paper; the latest click wins.

A Save pressed on a digest counts as More like this for that channel, and an Unsave there takes back only that.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.state import State
from bot.state.feedback import ChannelVote, Via, Vote
from bot.team import saves

__all__ = [
    "ChannelFeedback",
    "ChannelVote",
    "DigestSave",
    "DigestUnsave",
    "Via",
    "Vote",
    "VoteResult",
    "channel_feedback",
    "forget",
    "save_from_digest",
    "unsave_from_digest",
    "vote",
    "votes_in_channel",
]


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


def vote(state: State, team: str, channel: str, user: str, paper_id: str, choice: Vote, at: float) -> VoteResult:
    """Record a More/Less like this click for the channel; it replaces whatever the channel said about the paper."""
    with state.immediate():
        before = state.feedback.current(team, channel, paper_id)
        state.feedback.put(team, channel, ChannelVote(paper_id, choice, user, Via.BUTTON, at))
    return VoteResult(paper_id, choice, before.vote if before else None)


def save_from_digest(state: State, team: str, channel: str, user: str, paper_id: str, at: float) -> DigestSave:
    """Save a paper shown in a channel's digest, which counts as More like this (an earlier +1 is kept as it was)."""
    with state.immediate():
        saved = saves.save(state, team, user, paper_id, at)
        before = state.feedback.current(team, channel, paper_id)
        if before is None or before.vote is not Vote.MORE:
            state.feedback.put(team, channel, ChannelVote(paper_id, Vote.MORE, user, Via.SAVE, at))
    return DigestSave(saved, VoteResult(paper_id, Vote.MORE, before.vote if before else None))


def unsave_from_digest(state: State, team: str, channel: str, user: str, paper_id: str) -> DigestUnsave:
    """Unsave a paper from a digest: the +1 this user's Save cast goes too; anyone's button vote stays."""
    with state.immediate():
        unsaved = saves.unsave(state, team, user, paper_id)
        before = state.feedback.current(team, channel, paper_id)
        after = before.vote if before else None
        if before is not None and (before.user, before.via) == (user, Via.SAVE):
            state.feedback.drop(team, channel, paper_id)
            after = None
    return DigestUnsave(unsaved, VoteResult(paper_id, after, before.vote if before else None))


def forget(state: State, team: str, channel: str, paper_id: str) -> VoteResult:
    """Drop the channel's vote on a paper (an Undo); forgetting a paper it never voted on is a no-op."""
    with state.immediate():
        before = state.feedback.current(team, channel, paper_id)
        state.feedback.drop(team, channel, paper_id)
    return VoteResult(paper_id, None, before.vote if before else None)


def channel_feedback(state: State, team: str, channel: str) -> ChannelFeedback:
    """What a channel liked and disliked, newest first: the digest ranks by it and `/icml digest status` shows it."""
    return ChannelFeedback(tuple(state.feedback.in_channel(channel, team)))


def votes_in_channel(state: State, channel: str, team: str = "") -> ChannelFeedback:
    """A workspace's votes in a channel (a channel shared between workspaces learns per workspace, as each gets its
    own digest); team "": the single workspace's, whatever id Slack gave it."""
    return ChannelFeedback(tuple(state.feedback.in_channel(channel, team or None)))
