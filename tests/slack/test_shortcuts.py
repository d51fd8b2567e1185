"""Find related papers, through the served app and the fake Slack: the message shortcut answers in the message's
thread (or only to the clicker where the bot is not in the channel), the global shortcut opens a modal and answers in
a DM, BibTeX for these sends a file a BibTeX parser reads, and text with nothing to read gets a clear line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.slack import shortcuts
from bot.slack.blocks import related as related_blocks
from bot.team import saves
from tests.slack.test_team_saves import answer, save_labels
from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import DEFENSIVE_KV, TOKSUITE, VEGAS
from tests.support.slack_clicks import press
from tests.support.slack_harness import SlackHttp, buttons, slack_config, socket_mode_app, texts
from tests.support.slack_shortcuts import global_shortcut, message_action, view_submission
from tests.team.bibparse import parse_bibtex

# The first three sentences of DefensiveKV's abstract (seeds/icml2026_abstracts.txt) as a colleague would post them,
# after a mention and with Slack's escaping of "&".
DRAFT = (
    "<@U3> here's the draft abstract, thoughts? Large language models have revolutionized natural language processing "
    "but face significant challenges of high storage &amp; runtime costs, due to the transformer architecture's "
    "reliance on self-attention, particularly the large KV cache for long-sequence inference. Recent efforts to reduce "
    "KV cache size by pruning less critical entries based on attention weights remain empirical and lack formal "
    "grounding. This paper presents a formal study on identifying critical KV cache entries by analyzing attention "
    "output perturbation."
)
# TokSuite's, pasted into the modal.
TOKENIZERS = (
    "Tokenizers provide the fundamental basis through which text is represented and processed by language models "
    "(LMs). Despite the importance of tokenization, its role in LM performance and behavior is poorly understood due "
    "to the challenge of measuring the impact of tokenization in isolation. To address this need, we present a "
    "collection of models and a benchmark that supports research into tokenization's influence on LMs."
)


def paper_ids(message: dict[str, Any]) -> list[str]:
    """The papers of an answer, in order, by their Similar buttons."""
    return [b["value"] for b in buttons(message) if b["action_id"] == "paper_similar"]


def bibtex_button(message: dict[str, Any]) -> dict[str, Any]:
    [found] = [b for b in buttons(message) if b["action_id"] == related_blocks.ACTION_BIBTEX]
    return found


def thread_answer(fake: FakeSlack, count: int = 1) -> dict[str, Any]:
    return fake.wait_for("chat.postMessage", ok=True, count=count)[-1].params


def test_a_message_shortcut_answers_in_the_messages_thread_with_why(slack_http: SlackHttp, fake: FakeSlack) -> None:
    gate = fake.hold_next("chat.postMessage")
    payload = message_action(shortcuts.MESSAGE_SHORTCUT, DRAFT, response_url=fake.response_url("m1"))
    # Acknowledged while the answer is still on its way
    assert slack_http.action(payload).status == 200
    fake.wait_arrived("chat.postMessage")
    gate.set()
    posted = thread_answer(fake)
    assert posted["channel"] == "C1"
    assert posted["thread_ts"] == "1700000100.000100"  # a reply to the message clicked
    assert paper_ids(posted)[0] == DEFENSIVE_KV
    shown = texts(posted)
    assert "Papers related to this message, asked for by <@U1>" in shown
    assert shown.count("_Why:_ Shares ") == len(paper_ids(posted))
    assert "close in meaning (0." in shown
    # Everyone sees it already
    assert "Share to channel" not in [b["text"]["text"] for b in buttons(posted)]
    assert bibtex_button(posted)["value"].split() == paper_ids(posted)
    assert problems(posted) == []
    assert not fake.calls("response")  # nothing private: the thread holds the answer


def test_a_reply_in_a_thread_is_answered_in_that_thread(slack_http: SlackHttp, fake: FakeSlack) -> None:
    payload = message_action(
        shortcuts.MESSAGE_SHORTCUT,
        "Which papers study speculative decoding with a draft model that shares the KV cache?",
        ts="1700000200.000200",
        thread_ts="1700000100.000100",
    )
    assert slack_http.action(payload).status == 200
    posted = thread_answer(fake)
    assert posted["thread_ts"] == "1700000100.000100"  # the thread's parent, not the reply
    assert VEGAS in paper_ids(posted)[:2]


def test_bibtex_for_these_sends_a_file_bibtexparser_reads(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.action(message_action(shortcuts.MESSAGE_SHORTCUT, DRAFT))
    posted = thread_answer(fake)
    ids = paper_ids(posted)
    assert press(slack_http, fake, posted, "BibTeX for these", ephemeral=False, user="U4", name="bib").status == 200
    told = answer(fake, "bib")
    assert f"Sending {len(ids)} papers as `icml-related-papers.bib` to our DM." in texts(told)
    fake.wait_for("files.completeUploadExternal", ok=True)
    [sent] = fake.shared_files()
    assert sent.channel == "D4"  # the clicker's DM with the bot
    assert sent.filename == "icml-related-papers.bib"
    entries = parse_bibtex(sent.text)
    assert len(entries) == len(ids)
    assert "DefensiveKV" in entries[0].title
    assert fake.calls("conversations.open")[-1].params["users"] == "U4"


def test_bibtex_for_papers_gone_from_the_index_says_so(slack_http: SlackHttp, fake: FakeSlack) -> None:
    message = {"blocks": [{"type": "actions", "elements": [bibtex_button_for("gone0001 gone0002")]}]}
    press(slack_http, fake, message, "BibTeX for these", ephemeral=False, name="gone")
    assert shortcuts.GONE in texts(answer(fake, "gone"))
    slack_http.drain()
    assert fake.shared_files() == []


def bibtex_button_for(value: str) -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": "BibTeX for these"},
        "action_id": related_blocks.ACTION_BIBTEX,
        "value": value,
    }


@pytest.mark.parametrize(("channel", "error"), [("C9", "not_in_channel"), ("G9", "channel_not_found")])
def test_where_the_bot_is_not_in_the_channel_only_the_clicker_gets_the_answer_and_how_to_invite(
    slack_http: SlackHttp, fake: FakeSlack, channel: str, error: str
) -> None:
    fake.set_channel(channel, is_member=False, is_private=channel.startswith("G"))
    payload = message_action(shortcuts.MESSAGE_SHORTCUT, DRAFT, channel_id=channel, response_url=fake.response_url("p"))
    assert slack_http.action(payload).status == 200
    private = answer(fake, "p")
    assert private["response_type"] == "ephemeral"
    assert paper_ids(private)[0] == DEFENSIVE_KV
    assert f"Only you can see this: I'm not in this channel ({error})." in texts(private)
    assert "/invite @icml-bot" in texts(private)
    # The response_url can post there
    assert "Share to channel" in [b["text"]["text"] for b in buttons(private)]
    assert [c.error for c in fake.calls("chat.postMessage")] == [error]


def test_a_global_shortcut_opens_the_modal_and_answers_in_a_dm(slack_http: SlackHttp, fake: FakeSlack) -> None:
    click = global_shortcut(shortcuts.GLOBAL_SHORTCUT, user_id="U6")
    assert slack_http.action(click).status == 200
    opened = fake.wait_for("views.open", ok=True)[-1]
    assert opened.params["trigger_id"] == click["trigger_id"]
    [modal] = fake.modals()
    assert modal["callback_id"] == related_blocks.PASTE_VIEW
    assert modal["blocks"][0]["element"]["max_length"] == 3000
    submitted = slack_http.action(view_submission(modal, {related_blocks.PASTE_BLOCK: TOKENIZERS}, user_id="U6"))
    assert submitted.status == 200
    assert submitted.body == b""  # the modal closes
    dm = fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params.get("channel") == "D6", ok=True)[-1]
    assert paper_ids(dm.params)[0] == TOKSUITE
    assert "only you can see this" in texts(dm.params)
    assert problems(dm.params) == []


@pytest.mark.parametrize("pasted", ["", "   \n  ", "?!… —"])
def test_a_modal_with_nothing_to_read_stays_open_with_a_line(
    slack_http: SlackHttp, fake: FakeSlack, pasted: str
) -> None:
    slack_http.action(global_shortcut(shortcuts.GLOBAL_SHORTCUT))
    fake.wait_for("views.open", ok=True)
    [modal] = fake.modals()
    reply = slack_http.action(view_submission(modal, {related_blocks.PASTE_BLOCK: pasted}))
    assert reply.json() == {"response_action": "errors", "errors": {"text": related_blocks.NO_TEXT}}
    slack_http.drain()
    assert not fake.calls("chat.postMessage")


def test_text_no_paper_uses_gets_a_clear_line_in_the_dm(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.action(global_shortcut(shortcuts.GLOBAL_SHORTCUT))
    fake.wait_for("views.open", ok=True)
    [modal] = fake.modals()
    slack_http.action(view_submission(modal, {related_blocks.PASTE_BLOCK: "zzqx wwkrp qqlv, lorem ipsumish"}))
    dm = fake.wait_for("chat.postMessage", ok=True)[-1].params
    assert dm["channel"] == "D1"
    assert "I found no related papers: none of its words appear in the papers here." in texts(dm)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("", related_blocks.NOTHING_TO_READ),
        (":tada: <@U3> <https://example.org>", related_blocks.NOTHING_TO_READ),
        ("zzqx wwkrp qqlv", "I found no related papers"),
    ],
)
def test_a_message_with_nothing_to_read_gets_a_private_line(
    slack_http: SlackHttp, fake: FakeSlack, text: str, line: str
) -> None:
    slack_http.action(message_action(shortcuts.MESSAGE_SHORTCUT, text, response_url=fake.response_url("n")))
    told = answer(fake, "n")
    assert told["response_type"] == "ephemeral"
    assert line in texts(told)
    slack_http.drain()
    assert not fake.calls("chat.postMessage")


def test_a_huge_message_is_read_from_its_opening_and_says_so(slack_http: SlackHttp, fake: FakeSlack) -> None:
    huge = (DRAFT + " " + "and so on " * 4000)[:40_000]  # Slack's message size
    slack_http.action(message_action(shortcuts.MESSAGE_SHORTCUT, huge))
    posted = thread_answer(fake)
    assert paper_ids(posted)[0] == DEFENSIVE_KV
    assert re.search(r"A long text: I read the first [56],\d{3} of its 3\d,\d{3} characters\.", texts(posted))
    assert problems(posted) == []


def test_in_a_slack_connect_channel_the_clickers_own_workspace_is_used(slack_http: SlackHttp, fake: FakeSlack) -> None:
    # The same user id in two workspaces, each with a save of its own: the clicker belongs to T2 (user.team_id);
    # the payload's team is T1, whose installation answers in the shared channel.
    saves.save(slack_http.state, "T2", "U5", DEFENSIVE_KV, 1_700_000_000.0)
    saves.save(slack_http.state, "T1", "U5", VEGAS, 1_700_000_000.0)
    fake.set_channel("C0SHARED", is_member=False)
    payload = message_action(
        shortcuts.MESSAGE_SHORTCUT,
        DRAFT + " Speculative decoding drafts with a subset of the KV cache.",
        user_id="U5",
        channel_id="C0SHARED",
        team_id="T1",
        user_team_id="T2",
        response_url=fake.response_url("x"),
    )
    slack_http.action(payload)
    private = answer(fake, "x")
    assert {DEFENSIVE_KV, VEGAS} <= set(paper_ids(private))
    assert save_labels(private, DEFENSIVE_KV) == ["Saved"]  # saved in T2, the clicker's workspace
    # T1's save of a user with the same id is not theirs
    assert save_labels(private, VEGAS) == ["Save"]
    slack_http.action(global_shortcut(shortcuts.GLOBAL_SHORTCUT, user_id="U5", team_id="T1", user_team_id="T2"))
    fake.wait_for("views.open", ok=True)
    [modal] = fake.modals()
    slack_http.action(
        view_submission(modal, {related_blocks.PASTE_BLOCK: DRAFT}, user_id="U5", team_id="T1", user_team_id="T2")
    )
    dm = fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params.get("channel") == "D5", ok=True)[-1]
    assert save_labels(dm.params, DEFENSIVE_KV) == ["Saved"]


def test_a_paste_too_long_for_icml_points_to_the_shortcut(slack_http: SlackHttp) -> None:
    reply = slack_http.command(DRAFT.replace("<@U3> ", ""))
    text = texts(reply.json())
    assert "I search for up to 500" in text
    assert "use *Find related papers* (in a message's ⋯ menu, or the shortcuts menu)" in text


def test_help_names_the_shortcut(slack_http: SlackHttp) -> None:
    assert "*Find related papers* (its ⋯ menu)" in texts(slack_http.command("help").json())


def test_in_socket_mode_the_modal_opens_and_an_empty_paste_is_refused_in_the_ack(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    config = slack_config(fake, slack_index_path, tmp_path / "state.db", signing_secret="")
    with socket_mode_app(fake, config):
        click = global_shortcut(shortcuts.GLOBAL_SHORTCUT)
        assert fake.socket_ack(fake.socket_send("interactive", click)) is not None
        assert fake.wait_for("views.open", ok=True)[-1].params["trigger_id"] == click["trigger_id"]
        [modal] = fake.modals()
        refused = fake.socket_ack(fake.socket_send("interactive", view_submission(modal, {"text": " "})))
        assert refused["payload"] == {"response_action": "errors", "errors": {"text": related_blocks.NO_TEXT}}
        fake.socket_ack(fake.socket_send("interactive", message_action(shortcuts.MESSAGE_SHORTCUT, DRAFT)))
        assert paper_ids(thread_answer(fake))[0] == DEFENSIVE_KV
