"""Paper links unfurl through the served app: `link_shared` in (signed), one `chat.unfurl` out of the fake Slack with a
valid card per indexed paper, team memory on it except in a channel shared with another workspace, and the composer's
links unfurled by `unfurl_id`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.state.history import Kind
from tests.slack.test_team_saves import answer
from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import ACK_DEADLINE, SlackHttp, buttons, texts, timed
from tests.support.slack_unfurls import (
    ORAL_FORUM,
    ORAL_PDF,
    POSTER_PAGE,
    UNKNOWN,
    build_linked_index,
    card_of,
    link_shared,
    press_on_card,
    send_links,
    unfurled,
    wait_history,
)

NLP = "C0NLPREAD01"
GENERAL = "C0GENERAL01"


@pytest.fixture(scope="session")
def slack_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Slack tests' index with two papers that have OpenReview and conference-site links (overrides conftest's)."""
    return build_linked_index(tmp_path_factory.mktemp("linked-index"))


def test_three_links_two_papers_one_unknown_unfurl_in_one_call_with_two_valid_cards(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    send_links(slack_http, link_shared([ORAL_FORUM, UNKNOWN, POSTER_PAGE]))
    params = unfurled(fake)
    assert (params["channel"], params["ts"]) == ("C1", "1773014400.000100")
    # The unknown link keeps Slack's preview
    assert sorted(params["unfurls"]) == sorted([ORAL_FORUM, POSTER_PAGE])
    oral, poster = card_of(params, ORAL_FORUM), card_of(params, POSTER_PAGE)
    assert problems(oral) == []
    assert problems(poster) == []
    said = texts(oral)
    assert "Sparse Verification Drafts for Long-Context Speculative Decoding" in said
    assert "Mina Park, Jonas Weber, Ada Okafor et al." in said
    assert "ICML 2026 · Oral · Poster Session 2, Tue 14 Jul 10:30–12:00, Exhibit Hall C,D,E; Oral 3A Efficient " in said
    assert "Inference, Wed 15 Jul 15:30–15:45, Hall A" in said
    # No times in the source: the session as listed
    assert "ICML 2026 · Poster · Poster Session 4" in texts(poster)
    labels = [(b["text"]["text"], b["action_id"], b["value"]) for b in buttons(oral)]
    pid = labels[0][2]
    assert labels == [
        ("Save", "paper_save", pid),
        ("Similar", "paper_similar", pid),
        ("Abstract", "paper_abstract", pid),
    ]
    assert "saved by" not in said  # nothing in the workspace's memory yet
    slack_http.drain()
    assert len(fake.calls("chat.unfurl")) == 1


def test_links_to_papers_the_index_does_not_hold_get_no_unfurl(slack_http: SlackHttp, fake: FakeSlack) -> None:
    others = [UNKNOWN, "https://icml.cc/virtual/2026/poster/99999", "https://openreview.net/group?id=ICML.cc/2026"]
    send_links(slack_http, link_shared(others))
    slack_http.drain()
    assert fake.calls("chat.unfurl") == []
    assert slack_http.state.history.latest_papers("T1", list(Kind), 10) == []


def test_composer_links_unfurl_by_unfurl_id_and_are_not_history_yet(slack_http: SlackHttp, fake: FakeSlack) -> None:
    event = link_shared([ORAL_PDF], source="composer", ts="")
    send_links(slack_http, event)
    params = unfurled(fake)
    assert (params["unfurl_id"], params["source"]) == (event["unfurl_id"], "composer")
    assert "channel" not in params
    assert list(params["unfurls"]) == [ORAL_PDF]
    assert "Sparse Verification Drafts" in texts(card_of(params, ORAL_PDF))
    slack_http.drain()
    # The message is not posted yet
    assert slack_http.state.history.latest_papers("T1", list(Kind), 10) == []


def test_the_card_says_what_the_team_has_with_a_permalink(slack_http: SlackHttp, fake: FakeSlack) -> None:
    send_links(slack_http, link_shared([ORAL_FORUM], channel=GENERAL, ts="1773014400.000100"))
    first = card_of(unfurled(fake), ORAL_FORUM)
    pid = buttons(first)[0]["value"]
    (event,) = wait_history(slack_http.state, "T1", pid, 1)
    assert event.permalink == f"https://icml-test.slack.com/archives/{GENERAL}/p1773014400000100"
    for user, name in (("U2", "s2"), ("U3", "s3")):  # two people save it from the card
        press_on_card(slack_http, fake, first, "Save", user=user, team="T1", channel=GENERAL, name=name)
        reply = answer(fake, name)
        assert "Saved" in texts(reply)
        assert reply["response_type"] == "ephemeral"  # the clicker alone
    assert "added" in texts(slack_http.command(f"list add {pid}", channel_id=NLP).json())
    send_links(slack_http, link_shared([ORAL_PDF], channel=GENERAL, ts="1773100800.000200"))
    memory = card_of(unfurled(fake, 2), ORAL_PDF)["blocks"][2]
    line = memory["elements"][0]["text"]
    assert re.fullmatch(  # the first time here, not this message itself
        rf"saved by 2 people here · on <#{NLP}>'s list · "
        rf"<https://icml-test\.slack\.com/archives/{GENERAL}/p1773014400000100\|shared here on \d+ \w{{3}}>",
        line,
    ), line
    # 2 unfurls, 2 saves, 1 list entry
    assert len(wait_history(slack_http.state, "T1", pid, 5)) == 5
    send_links(slack_http, link_shared([ORAL_FORUM], channel="C0OTHER0001", ts="1773100900.000300"))
    elsewhere = texts(card_of(unfurled(fake, 3), ORAL_FORUM))
    newest = f"https://icml-test.slack.com/archives/{GENERAL}/p1773100800000200"
    assert f"saved by 2 people here · on <#{NLP}>'s list · shared in <#{GENERAL}> <{newest}|on " in elsewhere


def test_a_shared_channels_card_shows_no_team_memory(slack_http: SlackHttp, fake: FakeSlack) -> None:
    pid = _remembered(slack_http, fake)
    send_links(slack_http, link_shared([ORAL_FORUM], channel="C0CONNECT01", ts="1773200000.000100"), ext_shared=True)
    card = card_of(unfurled(fake, 2), ORAL_FORUM)
    assert problems(card) == []
    assert "Sparse Verification Drafts" in texts(card)
    # No memory line
    assert [b["type"] for b in card["blocks"]] == ["section", "context", "actions"]
    for secret in ("saved by", "list", "shared", "<#"):
        assert secret not in texts(card)
    assert len(wait_history(slack_http.state, "T1", pid, 3)) == 3  # still this workspace's history


def test_without_the_envelopes_word_a_channel_is_asked_about_once_and_a_shared_one_shows_no_memory(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    _remembered(slack_http, fake)
    fake.set_channel("C0CONNECT02", is_ext_shared=True)
    fake.set_channel("C0INSIDE003", is_ext_shared=False)
    send_links(slack_http, link_shared([ORAL_FORUM], channel="C0CONNECT02", ts="1773200000.000100"), ext_shared=None)
    send_links(slack_http, link_shared([ORAL_PDF], channel="C0CONNECT02", ts="1773200001.000100"), ext_shared=None)
    send_links(slack_http, link_shared([ORAL_FORUM], channel="C0INSIDE003", ts="1773200002.000100"), ext_shared=None)
    fake.wait_for("chat.unfurl", count=4, ok=True)
    cards = {c.params["channel"] + c.params["ts"]: c.params["unfurls"] for c in fake.calls("chat.unfurl")}
    for key, url in (("C0CONNECT021773200000.000100", ORAL_FORUM), ("C0CONNECT021773200001.000100", ORAL_PDF)):
        assert "saved by" not in texts({"blocks": cards[key][url]["blocks"]})
    assert "saved by 1 person here" in texts({"blocks": cards["C0INSIDE0031773200002.000100"][ORAL_FORUM]["blocks"]})
    asked = [c.params["channel"] for c in fake.calls("conversations.info")]
    assert sorted(asked) == ["C0CONNECT02", "C0INSIDE003"]  # once per channel: the answer is kept


def test_the_cards_buttons_are_the_existing_listeners(slack_http: SlackHttp, fake: FakeSlack) -> None:
    send_links(slack_http, link_shared([POSTER_PAGE]))
    card = card_of(unfurled(fake), POSTER_PAGE)
    press_on_card(slack_http, fake, card, "Abstract", user="U2", team="T1", channel="C1", name="abs")
    abstract = answer(fake, "abs")
    assert "phase separation between a memorising and a generalising circuit" in texts(abstract)
    press_on_card(slack_http, fake, card, "Similar", user="U2", team="T1", channel="C1", name="sim")
    similar = answer(fake, "sim")
    assert "Papers similar to" in texts(similar)


@pytest.mark.ack_deadline
def test_the_unfurl_arrives_within_slacks_three_seconds(slack_http: SlackHttp, fake: FakeSlack) -> None:
    def round_trip() -> dict[str, Any]:
        send_links(slack_http, link_shared([ORAL_FORUM, POSTER_PAGE]))
        return unfurled(fake)

    params, took = timed(round_trip)
    assert len(params["unfurls"]) == 2
    assert took < ACK_DEADLINE


def test_hostile_links_and_events_unfurl_nothing_and_break_nothing(slack_http: SlackHttp, fake: FakeSlack) -> None:
    event = link_shared([ORAL_FORUM])
    event["links"] = [None, {"url": 7}, {"domain": "x"}, {"url": "https://openreview.net/forum?id=" + "\ud800" * 3},
                      {"url": "https://icml.cc/" + "a" * 5000}]  # fmt: skip
    send_links(slack_http, event)
    send_links(slack_http, {**link_shared([ORAL_FORUM]), "links": "not a list"})
    slack_http.drain()
    assert fake.calls("chat.unfurl") == []
    # Nothing to apologise for: Slack's own preview stays
    assert fake.calls("chat.postEphemeral") == []


def _remembered(served: SlackHttp, fake: FakeSlack) -> str:
    """The oral paper unfurled in GENERAL and saved by U2 (two events of the workspace's history); its id."""
    send_links(served, link_shared([ORAL_FORUM], channel=GENERAL, ts="1773014400.000100"))
    card = card_of(unfurled(fake), ORAL_FORUM)
    press_on_card(served, fake, card, "Save", user="U2", team="T1", channel=GENERAL, name="s")
    answer(fake, "s")
    pid = str(buttons(card)[0]["value"])
    assert len(wait_history(served.state, "T1", pid, 2)) == 2
    return pid


def test_a_channels_shared_state_is_kept_for_a_while_then_asked_again(fake: FakeSlack) -> None:
    from bot.slack.unfurls import SHARED_KNOWN_SECONDS, SharedChannels

    now = [1000.0]
    channels, client = SharedChannels(clock=lambda: now[0]), fake.web_client()
    fake.set_channel("C0SOMETIME1", is_ext_shared=False)
    assert channels.is_shared("T1", "C0SOMETIME1", {}, client) is False
    fake.set_channel("C0SOMETIME1", is_ext_shared=True)  # shared with another organisation since
    now[0] += SHARED_KNOWN_SECONDS - 1
    assert channels.is_shared("T1", "C0SOMETIME1", {}, client) is False  # still the answer kept
    now[0] += 2
    assert channels.is_shared("T1", "C0SOMETIME1", {}, client) is True  # asked again
    # The event says
    assert channels.is_shared("T2", "C0SOMETIME1", {"is_ext_shared_channel": False}, client) is False
    assert len(fake.calls("conversations.info")) == 2
    fake.fail_next("conversations.info", "missing_scope")
    assert channels.is_shared("T1", "C0UNKNOWN01", {}, client) is True  # no answer: the safe side
