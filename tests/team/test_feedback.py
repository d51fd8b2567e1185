"""Digest feedback: More/Less like this per channel, the latest click winning, and a Save on the digest counting as
More like this (taken back by an Unsave there, and only then)."""

from __future__ import annotations

from bot.state import State
from bot.team import feedback, saves
from bot.team.feedback import ChannelVote, Via, Vote, VoteResult

T1, T2 = "T0TEAM0001", "T0TEAM0002"
C1, C2 = "C0CHANNEL1", "C0CHANNEL2"
U1, U2 = "U0ALICE001", "U0BOB00002"
# The ids are opaque to feedback: it never looks papers up
P1, P2, P3 = "kmd7pn", "pywbay", "hrnnjj"


def test_the_latest_click_wins(state: State) -> None:
    assert feedback.vote(state, T1, C1, U1, P1, Vote.MORE, at=100.0) == VoteResult(P1, Vote.MORE, previous=None)
    assert feedback.vote(state, T1, C1, U2, P1, Vote.LESS, at=200.0) == VoteResult(P1, Vote.LESS, previous=Vote.MORE)
    repeated = feedback.vote(state, T1, C1, U2, P1, Vote.LESS, at=300.0)
    assert (repeated.changed, repeated.previous) == (False, Vote.LESS)
    assert feedback.channel_feedback(state, T1, C1).votes == (ChannelVote(P1, Vote.LESS, U2, Via.BUTTON, 300.0),)


def test_a_channel_reads_what_it_liked_and_disliked_newest_first(state: State) -> None:
    feedback.vote(state, T1, C1, U1, P1, Vote.MORE, at=100.0)
    feedback.vote(state, T1, C1, U1, P2, Vote.LESS, at=200.0)
    feedback.vote(state, T1, C1, U2, P3, Vote.MORE, at=300.0)
    said = feedback.channel_feedback(state, T1, C1)
    assert (said.liked, said.disliked) == ((P3, P1), (P2,))


def test_feedback_belongs_to_its_channel_and_workspace(state: State) -> None:
    feedback.vote(state, T1, C1, U1, P1, Vote.MORE, at=100.0)
    feedback.vote(state, T1, C2, U1, P1, Vote.LESS, at=200.0)
    assert feedback.channel_feedback(state, T1, C1).liked == (P1,)
    assert feedback.channel_feedback(state, T1, C2).disliked == (P1,)
    assert feedback.channel_feedback(state, T2, C1).votes == ()


def test_a_save_from_a_digest_counts_as_more_like_this(state: State) -> None:
    done = feedback.save_from_digest(state, T1, C1, U1, P1, at=100.0)
    assert done.save == saves.SaveResult(P1, created=True, saved_at=100.0)
    assert done.vote == VoteResult(P1, Vote.MORE, previous=None)
    assert saves.is_saved(state, T1, U1, P1) is True
    assert feedback.channel_feedback(state, T1, C1).votes == (ChannelVote(P1, Vote.MORE, U1, Via.SAVE, 100.0),)
    # Only the digest's channel learns from it
    assert feedback.channel_feedback(state, T1, C2).votes == ()


def test_a_save_turns_a_less_like_this_into_more_and_keeps_an_earlier_more(state: State) -> None:
    feedback.vote(state, T1, C1, U2, P1, Vote.LESS, at=100.0)
    assert feedback.save_from_digest(state, T1, C1, U1, P1, at=200.0).vote == VoteResult(P1, Vote.MORE, Vote.LESS)
    feedback.vote(state, T1, C1, U2, P2, Vote.MORE, at=300.0)
    assert feedback.save_from_digest(state, T1, C1, U1, P2, at=400.0).vote == VoteResult(P2, Vote.MORE, Vote.MORE)
    votes = {v.paper_id: v for v in feedback.channel_feedback(state, T1, C1).votes}
    assert votes[P1] == ChannelVote(P1, Vote.MORE, U1, Via.SAVE, 200.0)
    # The button's vote stays as it was
    assert votes[P2] == ChannelVote(P2, Vote.MORE, U2, Via.BUTTON, 300.0)


def test_an_unsave_from_a_digest_takes_back_only_what_that_save_counted(state: State) -> None:
    feedback.save_from_digest(state, T1, C1, U1, P1, at=100.0)
    undone = feedback.unsave_from_digest(state, T1, C1, U1, P1)
    assert undone.unsave == saves.UnsaveResult(P1, removed=True)
    assert undone.vote == VoteResult(P1, None, previous=Vote.MORE)
    assert feedback.channel_feedback(state, T1, C1).votes == ()
    # A vote someone cast with the button survives the save's undo ...
    feedback.vote(state, T1, C1, U2, P2, Vote.MORE, at=200.0)
    feedback.save_from_digest(state, T1, C1, U1, P2, at=300.0)
    assert feedback.unsave_from_digest(state, T1, C1, U1, P2).vote == VoteResult(P2, Vote.MORE, Vote.MORE)
    # ... and so does one another user's Save cast.
    feedback.save_from_digest(state, T1, C1, U2, P3, at=400.0)
    saves.save(state, T1, U1, P3, at=500.0)
    assert feedback.unsave_from_digest(state, T1, C1, U1, P3).vote == VoteResult(P3, Vote.MORE, Vote.MORE)
    assert feedback.channel_feedback(state, T1, C1).liked == (P3, P2)


def test_forget_drops_a_vote_and_forgetting_nothing_is_a_no_op(state: State) -> None:
    feedback.vote(state, T1, C1, U1, P1, Vote.LESS, at=100.0)
    assert feedback.forget(state, T1, C1, P1) == VoteResult(P1, None, previous=Vote.LESS)
    assert feedback.forget(state, T1, C1, P1).changed is False
    assert feedback.channel_feedback(state, T1, C1).votes == ()


def test_a_channels_votes_whatever_workspace_cast_them_for_its_digest(state: State) -> None:
    feedback.vote(state, T1, C1, U1, P1, Vote.MORE, at=100.0)
    # A channel shared between two workspaces
    feedback.vote(state, T2, C1, U2, P2, Vote.LESS, at=200.0)
    feedback.vote(state, T1, C2, U1, P3, Vote.MORE, at=300.0)
    said = feedback.votes_in_channel(state, C1)
    assert (said.liked, said.disliked) == ((P1,), (P2,))
    assert feedback.votes_in_channel(state, "C0NOBODY01").votes == ()
