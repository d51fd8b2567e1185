"""A digest that learns: More like this pulls papers close to the liked one forward, Less like this pushes papers close
to the disliked one back, within the same no-repeat rounds. Dates are passed in; nothing sleeps."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.digest.channels import ChannelDigests
from bot.digest.select import learned_order
from bot.digest.subscriptions import Settings
from bot.team import feedback
from bot.team.feedback import Vote
from tests.support.digest import MON, Clock, digest_ids, make_digests
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import DEFENSIVE_KV, SEED_ORDER

C1 = "C0LEARN001"
NINE_KST = datetime(2026, 3, 9, 9, 0, tzinfo=ZoneInfo("Asia/Seoul"))


def test_learned_order_moves_only_the_order() -> None:
    near = {"a": ["c", "e"], "z": ["b"]}
    remaining = ["b", "c", "d", "e", "f"]
    assert learned_order(remaining, [], [], near.__getitem__) == remaining
    # Closest first
    assert learned_order(remaining, ["a"], [], near.__getitem__) == ["c", "e", "b", "d", "f"]
    assert learned_order(remaining, [], ["z"], near.__getitem__) == ["c", "d", "e", "f", "b"]
    assert learned_order(remaining, [], ["c"], {"c": ["e", "b"]}.__getitem__) == ["d", "f", "b", "e", "c"]
    both = learned_order(remaining, ["a"], ["z"], near.__getitem__)
    assert both == ["c", "e", "d", "f", "b"]
    # Nothing added, nothing lost: the round still shows each paper once
    assert sorted(both) == sorted(remaining)


def test_a_paper_close_to_both_goes_by_the_nearer_vote() -> None:
    near = {"liked": ["x", "y"], "disliked": ["y", "x"]}
    assert learned_order(["y", "x", "w"], ["liked"], ["disliked"], near.__getitem__) == ["x", "w", "y"]


@pytest.fixture
def clock() -> Clock:
    return Clock(NINE_KST.astimezone(UTC))


@pytest.fixture
def digests(slack: FakeSlack, seed_index_path: Path, state_target: Path | str, clock: Clock) -> ChannelDigests:
    d = make_digests(slack, seed_index_path, state_target)
    d.subscriptions.subscribe(C1, clock(), Settings(tz=ZoneInfo("Asia/Seoul")), user="U1")
    return d


def test_more_like_this_brings_close_papers_first_and_the_round_still_shows_each_once(
    digests: ChannelDigests, slack: FakeSlack, clock: Clock
) -> None:
    first = digests.post_digest(C1, MON, clock())
    assert first.digest is not None
    assert first.digest.paper_ids == SEED_ORDER[:3]
    liked = SEED_ORDER[0]
    feedback.vote(digests.state, "T1", C1, "U1", liked, Vote.MORE, at=clock().timestamp())
    close = [p for p in digests.builder.neighbours(liked) if p not in SEED_ORDER[:3]]
    assert close, "the seed index has papers similar to the liked one"
    tomorrow = digests.builder.plan(C1, MON + timedelta(days=1))
    assert tomorrow.paper_ids == close[:3]  # the closest unseen papers, closest first
    shown = list(first.digest.paper_ids)
    for n in range(1, 7):
        day = MON + timedelta(days=n)
        outcome = digests.post_digest(C1, day, clock.set(datetime.combine(day, time(9), ZoneInfo("Asia/Seoul"))))
        assert outcome.status == "posted", outcome.describe()
        shown += digest_ids(slack.posts(C1)[-1])
    assert sorted(shown) == sorted(SEED_ORDER)  # every paper once in the round, none twice
    assert "round 2" in str(slack.posts(C1)[-1]["blocks"])


def test_less_like_this_pushes_close_papers_to_the_end_of_the_round(digests: ChannelDigests, clock: Clock) -> None:
    disliked = SEED_ORDER[3]
    feedback.vote(digests.state, "T1", C1, "U1", disliked, Vote.LESS, at=clock().timestamp())
    near = digests.builder.neighbours(disliked)
    order = learned_order(SEED_ORDER, [], [disliked], digests.builder.neighbours)
    # The disliked paper, and before it its closest, come last
    assert order[-2:] == [near[0], disliked]
    far = [p for p in SEED_ORDER if p not in near and p != disliked]
    assert order[: len(far)] == far
    assert digests.builder.plan(C1, MON).paper_ids == order[:3]


def test_feedback_of_one_channel_leaves_another_as_it_was(digests: ChannelDigests, clock: Clock) -> None:
    feedback.vote(digests.state, "T1", C1, "U1", DEFENSIVE_KV, Vote.MORE, at=clock().timestamp())
    digests.subscriptions.subscribe("C0LEARN002", clock(), Settings(tz=ZoneInfo("Asia/Seoul")), user="U1")
    assert digests.builder.plan("C0LEARN002", MON).paper_ids == SEED_ORDER[:3]
    # The liked paper itself, unseen, comes first
    assert digests.builder.plan(C1, MON).paper_ids[0] == DEFENSIVE_KV
