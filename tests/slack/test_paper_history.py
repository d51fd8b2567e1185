"""A paper's history in the workspace through the served app: `/icml paper`, the Home tab and unfurl cards say where
it was shared (with permalinks), who saved it and which lists hold it; the history survives a restart, stays in its
workspace (two installed by OAuth, one Slack Connect channel) and goes with an uninstall. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from bot.state.history import Kind
from tests.slack.test_home import home_opened
from tests.slack.test_oauth import command, many  # noqa: F401  (many: the fixture)
from tests.slack.test_team_saves import answer
from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.slack_clicks import press
from tests.support.slack_harness import SlackHttp, buttons, slack_config, texts
from tests.support.slack_install import install
from tests.support.slack_requests import event_body
from tests.support.slack_unfurls import (
    ORAL_FORUM,
    ORAL_PDF,
    build_linked_index,
    card_of,
    link_shared,
    press_on_card,
    send_links,
    unfurled,
    wait_history,
)

GENERAL, NLP, THIRD = "C0GENERAL01", "C0NLPREAD01", "C0THIRD0003"
SHARED = "C0SHAREDXX1"  # one id in both workspaces, as Slack Connect gives it
C_T3 = "C0T3BBBBBBB"
TS = "1773014400.000100"
PERMALINK = f"https://icml-test.slack.com/archives/{GENERAL}/p1773014400000100"
DAY = r"\d{1,2} [A-Z][a-z]{2}"  # the date a test's events happened on: today


@pytest.fixture(scope="session")
def slack_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Slack tests' index with papers that have OpenReview and conference-site links (overrides conftest's)."""
    return build_linked_index(tmp_path_factory.mktemp("linked-index"))


def unfurl_and_save(served: SlackHttp, fake: FakeSlack, team: str = "T1", channel: str = GENERAL) -> str:
    """U1 posts the oral paper's link in `channel` (unfurled, recorded), U2 saves it from the card; its id."""
    send_links(served, link_shared([ORAL_FORUM], channel=channel, ts=TS), team=team)
    card = card_of(unfurled(fake), ORAL_FORUM)
    pid = str(buttons(card)[0]["value"])
    press_on_card(served, fake, card, "Save", user="U2", team=team, channel=channel, name="saved")
    assert "Saved" in texts(answer(fake, "saved"))
    assert len(wait_history(served.state, team, pid, 2)) == 2
    return pid


def memory_of(msg: dict[str, object]) -> str:
    """The paper view's history lines: the context block after the one with its venue and id."""
    blocks = msg["blocks"]
    assert isinstance(blocks, list)
    facts = next(i for i, b in enumerate(blocks) if b["type"] == "context" and "id `" in json.dumps(b))
    after = blocks[facts + 1]
    return "\n".join(e["text"] for e in after["elements"]) if after["type"] == "context" else ""


def test_icml_paper_says_where_it_was_shared_who_saved_it_and_which_lists_hold_it(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    pid = unfurl_and_save(slack_http, fake)
    assert "added" in texts(slack_http.command(f"list add {pid}", channel_id=NLP).json())
    shown = slack_http.command(f"paper {pid}", user_id="U3", channel_id=THIRD).json()
    press(slack_http, fake, shown, "Share to channel", pid, user="U3", channel=THIRD, name="share")
    assert answer(fake, "share")["response_type"] == "in_channel"
    assert len(wait_history(slack_http.state, "T1", pid, 4)) == 4
    msg = slack_http.command(f"paper {pid}", channel_id=GENERAL).json()
    assert problems(msg) == []
    lines = memory_of(msg).splitlines()
    assert lines[:2] == ["Saved here by <@U2>", f"On the reading list of <#{NLP}>"]
    assert re.fullmatch(
        rf"Shared in <#{THIRD}> on {DAY} by <@U3>; <{re.escape(PERMALINK)}\|here on {DAY}> by <@U1>", lines[2]
    ), lines[2]
    # A paper nobody here touched (Vegas, a seed)
    unknown = slack_http.command("paper yg1gm3").json()
    assert "Nobody in this workspace has shared, saved or listed it yet." in texts(unknown)


def test_the_home_tab_says_who_else_saved_a_paper_and_what_the_workspace_shared_lately(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    pid = unfurl_and_save(slack_http, fake)
    press_on_card(slack_http, fake, card_of(unfurled(fake), ORAL_FORUM), "Save", user="U3", team="T1",
                  channel=GENERAL, name="u3")  # fmt: skip
    answer(fake, "u3")
    assert len(wait_history(slack_http.state, "T1", pid, 3)) == 3
    assert slack_http.event(home_opened("U2")).status == 200
    (opened,) = fake.wait_for(  # (the saves publish Home views too, from their own thread)
        lambda c: c.method == "views.publish" and c.params["user_id"] == "U2" and "<@U3>" in json.dumps(c.params)
    )
    view = opened.params["view"]
    assert problems({"text": "home", **view}) == []
    body = texts(view)
    assert re.search(rf"saved {DAY} 20\d\d · also saved by <@U3> · shared in <#{GENERAL}> <{re.escape(PERMALINK)}\|on ",
                     body), body  # fmt: skip
    assert "*Shared in this workspace lately*" in body
    lately = body.split("*Shared in this workspace lately*")[1]
    assert "Sparse Verification Drafts for Long-Context Speculative Decoding" in lately
    assert "saved by 2 people" in lately


def test_the_history_survives_a_restart(fake: FakeSlack, slack_index_path: Path, state_target: Path | str) -> None:
    config = slack_config(fake, slack_index_path, state_target)
    first = SlackHttp(config)
    try:
        pid = unfurl_and_save(first, fake)
    finally:
        first.stop()
    again = SlackHttp(config)  # a new process's app and state on the same database
    try:
        said = memory_of(again.command(f"paper {pid}", channel_id=GENERAL).json())
        assert "Saved here by <@U2>" in said
        assert f"<{PERMALINK}|here on " in said
        send_links(again, link_shared([ORAL_PDF], channel=GENERAL, ts="1773100800.000200"))
        assert "saved by 1 person here" in texts(card_of(unfurled(fake, 2), ORAL_PDF))
    finally:
        again.stop()


def test_the_history_stays_in_its_workspace_and_goes_with_an_uninstall(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
) -> None:
    install(many, fake, "T2"), install(many, fake, "T3")
    send_links(many, link_shared([ORAL_FORUM], channel=SHARED, ts=TS, user="U2"), team="T2", ext_shared=True)
    card = card_of(unfurled(fake), ORAL_FORUM)
    pid = str(buttons(card)[0]["value"])
    # Both sides see it: no memory
    assert [b["type"] for b in card["blocks"]] == ["section", "context", "actions"]
    press_on_card(many, fake, card, "Save", user="U2", team="T2", channel=SHARED, name="t2save")
    answer(fake, "t2save")
    assert len(wait_history(many.state, "T2", pid, 2)) == 2
    press_on_card(many, fake, card, "Save", user="U3", team="T2", user_team="T3", channel=SHARED, name="t3save")
    answer(fake, "t3save")  # a T3 member saves from the card T2's installation unfurled: T3's save
    assert [(e.kind, e.user) for e in wait_history(many.state, "T3", pid, 1)] == [(Kind.SAVED, "U3")]

    send_links(many, link_shared([ORAL_PDF], channel=C_T3, ts="1773100800.000200", user="U3"), team="T3")
    own = texts(card_of(unfurled(fake, 2), ORAL_PDF))
    assert "saved by 1 person here" in own  # T3's own save; T2's is T2's
    assert "shared" not in own  # and so is T2's unfurl in the channel both share
    assert len(wait_history(many.state, "T3", pid, 2)) == 2
    t3 = memory_of(command(many, f"paper {pid}", "T3", SHARED))
    assert "<@U2>" not in t3
    assert "Saved here by <@U3>" in t3
    assert re.search(rf"Shared in <#{C_T3}> <[^|]+/p1773100800000200\|on {DAY}> by <@U3>", t3), t3
    t2 = memory_of(command(many, f"paper {pid}", "T2", SHARED))
    assert "Saved here by <@U2>" in t2
    assert "<@U3>" not in t2

    many.state.reminders.opt_in("T2", "U2", 15, "UTC", 1773014400.0)
    many.state.reminders.opt_in("T3", "U3", 15, "UTC", 1773014400.0)
    fake.oauth.revoke("T2")  # Slack revokes the tokens, then tells the app
    uninstalled = {"type": "app_uninstalled", "event_ts": "1773014400.000300"}
    assert many.post(json.dumps(event_body(uninstalled, team_id="T2")).encode(), "application/json").status == 200
    # The listener runs right after the ack, in Bolt's listener thread
    deadline = time.monotonic() + 10
    while (many.state.history.of_papers("T2", [pid]) or many.state.reminders.of("T2", "U2")) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert many.state.history.of_papers("T2", [pid]) == []
    assert len(many.state.history.of_papers("T3", [pid])) == 2  # the other workspace keeps its own
    assert many.state.reminders.of("T2", "U2") is None  # no DM is tried where the app is gone
    assert many.state.reminders.of("T3", "U3") is not None
    install(many, fake, "T2")  # installed again: the workspace starts with no history
    assert "Nobody in this workspace has shared, saved or listed it yet." in texts(
        command(many, f"paper {pid}", "T2", SHARED)
    )


@pytest.mark.parametrize(("tokens", "kept"), [({"oauth": ["U1"]}, 2), ({"bot": ["UBOT"]}, 0)])
def test_a_revoked_bot_token_forgets_the_history_a_user_token_does_not(
    slack_http: SlackHttp, fake: FakeSlack, tokens: dict[str, list[str]], kept: int
) -> None:
    pid = unfurl_and_save(slack_http, fake)
    assert slack_http.event({"type": "tokens_revoked", "tokens": tokens, "event_ts": "1773014400.9"}).status == 200
    slack_http.drain()
    assert len(slack_http.state.history.of_papers("T1", [pid])) == kept


def test_in_a_shared_channel_the_unfurl_belongs_to_the_installation_the_event_was_sent_to(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
) -> None:
    t2 = install(many, fake, "T2")
    install(many, fake, "T3")
    event = {**link_shared([ORAL_FORUM], channel=SHARED, ts=TS, user="U3"), "team": "T3"}
    # The poster's workspace, as Slack may send it in Slack Connect
    body = event_body(event, team_id="T3")
    body["authorizations"][0]["team_id"] = "T2"  # the installation it was delivered to
    body["is_ext_shared_channel"] = True
    assert many.post(json.dumps(body).encode(), "application/json").status == 200
    (call,) = fake.wait_for("chat.unfurl", ok=True)
    assert call.token == t2
    pid = str(buttons(card_of(call.params, ORAL_FORUM))[0]["value"])
    assert [e.channel for e in wait_history(many.state, "T2", pid, 1)] == [SHARED]
    many.drain()
    assert many.state.history.of_papers("T3", [pid]) == []
