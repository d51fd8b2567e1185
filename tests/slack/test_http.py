"""The app in HTTP mode, end to end: signed requests into waitress, replies recorded by the fake Slack."""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
import json
import logging
import re
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from bot import search as search_module
from bot.papers import index
from bot.papers.venues import Scope
from bot.search.reader import Papers
from bot.serve.http_workers import MAX_HEADER_BYTES
from bot.slack import blocks
from bot.slack.errors import APOLOGY, SLOW_DOWN
from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.paths import SEEDS
from tests.support.seed_ids import DEFENSIVE_KV, TOKSUITE, VEGAS
from tests.support.slack_harness import FORM, SlackHttp, buttons, slack_config, texts
from tests.support.slack_requests import block_action_payload, mention_event
from tests.support.sources import ROBUST_OR_ROBUSTNESS, WEATHER_OR_WHETHER
from tests.support.venue_index import index_of

PINGS = ("<!channel>", "<!here>", "<!everyone>", "<@U123>", "<@U999>", "<https://evil.example")


def result_ids(message: dict[str, Any]) -> list[str]:
    return [b["value"] for b in buttons(message) if b["action_id"] == blocks.ACTION_SIMILAR]


# --------------------------------------------------------------------------- /icml


def test_slash_command_acks_with_ephemeral_results(slack_http: SlackHttp, fake: FakeSlack) -> None:
    reply = slack_http.command("kv cache", response_url=fake.response_url("cmd"))
    assert reply.status == 200
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert body["response_type"] == "ephemeral"
    assert DEFENSIVE_KV in result_ids(body)[:2]
    assert "*DefensiveKV: A formal study on identifying critical KV cache entries by analyzing…*" in texts(body)
    footer = body["blocks"][-1]["text"]["text"]
    assert re.fullmatch(r"1-[1-5] of \d+ for \*kv cache\*", footer), footer
    assert body["text"].startswith("1-")
    assert problems(body) == []
    slack_http.drain()
    # The answer was the ack itself (auth.test: at start)
    assert {c.method for c in fake.calls()} == {"auth.test"}


def test_query_and_paper_text_never_ping_anyone(slack_http: SlackHttp) -> None:
    # Slack sends <, > and & in command text as entities.
    body = slack_http.command("&lt;!channel&gt; zebrafish &amp; xylophone").json()
    rendered = json.dumps(body)
    assert not [p for p in PINGS if p in rendered], rendered
    # The evil paper, escaped
    assert "&lt;!channel&gt; Attention &amp; Friends &lt;@U999&gt;" in texts(body)
    assert "*&lt;!channel&gt; zebrafish &amp; xylophone*" in body["blocks"][-1]["text"]["text"]
    assert problems(body) == []
    detail = slack_http.command("paper evil0001").json()
    assert not [p for p in PINGS if p in json.dumps(detail)]
    assert "Ada &lt;!everyone&gt; Lovelace" in texts(detail)


@pytest.mark.parametrize("text", ["", "help", "  HELP "])
def test_help_comes_from_the_command_table(slack_http: SlackHttp, text: str) -> None:
    help_text = slack_http.command(text).json()["blocks"][0]["text"]["text"]
    for line in (
        "`/icml <words>`",
        "`/icml paper <id|name>`",
        "`/icml similar <id|name>`",
        "`/icml random`",
        "`/icml stats`",
        "`/icml help`",
    ):
        assert line in help_text.replace("&lt;", "<").replace("&gt;", ">")


def test_paper_subcommand_by_id_and_by_name(slack_http: SlackHttp) -> None:
    by_id = slack_http.command(f"paper {DEFENSIVE_KV}").json()
    by_name = slack_http.command("paper defensivekv").json()
    assert by_id == by_name
    assert by_id["blocks"][0] == {
        "type": "header",
        "text": {
            "type": "plain_text",
            "emoji": True,
            "text": "DefensiveKV: A formal study on identifying critical KV cache entries by analyzing…",
        },
    }
    assert "The code is publicly available at https://github.com/FFY0/DefensiveKV." in texts(by_id)
    missing = slack_http.command("paper no-such-paper-xyz").json()
    assert "No paper has the id or name *no-such-paper-xyz*" in texts(missing)
    usage = slack_http.command("paper").json()
    assert usage["blocks"][0]["text"]["text"].startswith("Usage: `/icml paper &lt;id|name&gt;`")


def test_similar_random_and_stats(slack_http: SlackHttp) -> None:
    similar = slack_http.command(f"similar {DEFENSIVE_KV}").json()
    assert similar["blocks"][0]["text"]["text"].startswith("Papers similar to *DefensiveKV")
    assert DEFENSIVE_KV not in result_ids(similar)
    assert result_ids(similar)
    random = slack_http.command("random").json()
    assert random["blocks"][0]["type"] == "header"
    assert [b["text"]["text"] for b in buttons(random)] == ["Similar", "Share to channel", "Save", "Another one"]
    stats = slack_http.command("stats").json()
    assert stats["blocks"][0]["text"]["text"].startswith("*20 papers* and ")
    # A subcommand word followed by words is a search
    forests = slack_http.command("random forests").json()
    assert "*random forests*" in texts(forests)  # the query is echoed back, as only a search does
    assert "Another one" not in [b["text"]["text"] for b in buttons(forests)]  # not a random paper


def test_typo_notice_and_suggestions_from_search_reach_the_user(
    slack_http: SlackHttp, fake: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = search_module.search

    def search(
        db: sqlite_utils.Database, query: str, limit: int = 5, offset: int = 0, scope: Scope | None = None
    ) -> search_module.SearchResponse:
        if query == "kv cahce":  # what the search module answers for a typo it can fix
            return dataclasses.replace(real(db, "kv cache", limit, offset, scope), query=query, corrected="kv cache")
        if query == "kv cahce zzz":  # ... and for one it can only suggest a fix for
            return search_module.SearchResponse(query, [], 0, 0, None, ["kv cache"])
        return real(db, query, limit, offset, scope)

    monkeypatch.setattr(search_module, "search", search)
    fixed = slack_http.command("kv cahce").json()
    assert fixed["blocks"][0]["elements"][0]["text"] == "Showing results for *kv cache* (you typed *kv cahce*)"
    assert DEFENSIVE_KV in result_ids(fixed)
    none = slack_http.command("kv cahce zzz").json()
    assert none["blocks"][0]["text"]["text"] == "No papers match *kv cahce zzz*. Did you mean *kv cache*?"
    (suggestion,) = buttons(none)
    slack_http.action(
        block_action_payload(suggestion["action_id"], suggestion["value"], response_url=fake.response_url("fix"))
    )
    (call,) = fake.wait_for("response")
    assert call.params["replace_original"] is True
    assert DEFENSIVE_KV in result_ids(call.params)


def test_a_failing_search_is_answered_with_an_apology(
    slack_http: SlackHttp, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("index exploded")

    monkeypatch.setattr(Papers, "search", broken)
    with caplog.at_level(logging.ERROR):
        reply = slack_http.command("kv cache")
    assert reply.status == 200
    assert reply.json() == {"text": APOLOGY, "response_type": "ephemeral"}
    assert "index exploded" in caplog.text


# --------------------------------------------------------------------------- buttons


def test_more_results_pages_in_place(slack_http: SlackHttp, fake: FakeSlack) -> None:
    first = slack_http.command("model").json()
    more = buttons(first)[-1]
    assert more["text"]["text"] == "More results"
    payload = block_action_payload(more["action_id"], more["value"], response_url=fake.response_url("more"))
    assert slack_http.action(payload).status == 200
    (call,) = fake.wait_for("response")
    page = call.params
    assert page["replace_original"] is True
    assert "response_type" not in page
    assert page["blocks"][-1]["text"]["text"].startswith("6-10 of ")
    assert not set(result_ids(page)) & set(result_ids(first))


def test_share_posts_for_the_channel_attributed(slack_http: SlackHttp, fake: FakeSlack) -> None:
    payload = block_action_payload(blocks.ACTION_SHARE, VEGAS, user_id="U042", response_url=fake.response_url("s"))
    assert slack_http.action(payload).status == 200
    (call,) = fake.wait_for("response")
    assert (call.params["response_type"], call.params["replace_original"]) == ("in_channel", False)
    assert "Shared by <@U042> with `/icml`" in texts(call.params)
    assert "*Vegas: A self-speculative decoding method with verification-guided sparse attention*" in texts(call.params)
    assert [b["text"]["text"] for b in buttons(call.params)] == ["Similar", "Abstract", "Save", "Add to channel list"]


def test_abstract_and_similar_are_ephemeral_new_messages(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.action(block_action_payload(blocks.ACTION_ABSTRACT, VEGAS, response_url=fake.response_url("abs")))
    slack_http.action(block_action_payload(blocks.ACTION_SIMILAR, VEGAS, response_url=fake.response_url("sim")))
    fake.wait_for("response", count=2)
    (abstract,), (similar,) = fake.responses("abs"), fake.responses("sim")
    for msg in (abstract, similar):
        assert (msg["response_type"], msg["replace_original"]) == ("ephemeral", False)
    assert "Vegas achieves a 1.25×–2.81× speedup in decoding throughput" in texts(abstract)
    assert similar["blocks"][0]["text"]["text"].startswith("Papers similar to *Vegas")


def test_a_gone_paper_and_a_forged_page_value_get_a_notice(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.action(block_action_payload(blocks.ACTION_SHARE, "nope", response_url=fake.response_url("g")))
    slack_http.action(block_action_payload(blocks.ACTION_PAGE, "{oops", response_url=fake.response_url("p")))
    fake.wait_for("response", count=2)
    assert fake.responses("g")[0]["response_type"] == "ephemeral"  # never shared to the channel
    assert "no longer in the index" in fake.responses("g")[0]["text"]
    assert "expired" in fake.responses("p")[0]["text"]


def test_a_failed_response_url_is_logged_and_apologised_for(
    slack_http: SlackHttp, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail_response("dead", status=404, body="expired_url")
    with caplog.at_level(logging.ERROR):
        slack_http.action(
            block_action_payload(blocks.ACTION_SHARE, VEGAS, user_id="U7", response_url=fake.response_url("dead"))
        )
        (apology,) = fake.wait_for("chat.postEphemeral")
    assert (apology.params["channel"], apology.params["user"], apology.params["text"]) == ("C1", "U7", APOLOGY)
    assert "response_url failed: HTTP 404 expired_url" in caplog.text


# --------------------------------------------------------------------------- mentions


def test_mention_in_a_channel_replies_in_a_new_thread(slack_http: SlackHttp, fake: FakeSlack) -> None:
    event = mention_event("speculative decoding", ts="1700000000.000100")
    assert slack_http.event(event).status == 200
    (call,) = fake.wait_for("chat.postMessage")
    assert (call.params["channel"], call.params["thread_ts"]) == ("C1", "1700000000.000100")
    assert VEGAS in result_ids(call.params)
    # No Share: it's public
    assert [b["text"]["text"] for b in buttons(call.params)][:2] == ["Similar", "Abstract"]
    assert problems(call.params) == []


def test_mention_inside_a_thread_replies_to_the_parent(slack_http: SlackHttp, fake: FakeSlack) -> None:
    event = mention_event("kv cache", ts="1700000005.000200", thread_ts="1700000000.000100")
    assert slack_http.event(event).status == 200
    (call,) = fake.wait_for("chat.postMessage")
    assert (call.params["channel"], call.params["thread_ts"]) == ("C1", "1700000000.000100")
    assert DEFENSIVE_KV in result_ids(call.params)


def test_a_longer_question_with_typos_is_answered_in_its_thread(slack_http: SlackHttp, fake: FakeSlack) -> None:
    body = slack_http.command("sparse attention for speculative decoding").json()
    assert result_ids(body)[0] == VEGAS  # the paper about both ideas
    event = mention_event(
        "sparse atention for speculativ decoding", ts="1700000007.000200", thread_ts="1700000000.0001"
    )
    assert slack_http.event(event).status == 200
    (call,) = fake.wait_for("chat.postMessage")
    assert (call.params["channel"], call.params["thread_ts"]) == ("C1", "1700000000.0001")
    assert result_ids(call.params)[0] == VEGAS
    assert "Showing results for *sparse attention for speculative decoding*" in texts(call.params)
    assert problems(call.params) == []


def test_a_question_asked_in_words_is_answered_by_its_topic(slack_http: SlackHttp, fake: FakeSlack) -> None:
    """ "any recent papers on KV cache?" in a thread lists what `/icml kv cache` lists: "any", "recent" and "papers"
    ask for papers, they are not words every paper must hold."""
    topic = slack_http.command("kv cache").json()
    event = mention_event("any recent papers on KV cache?", ts="1700000008.000200", thread_ts="1700000000.0002")
    assert slack_http.event(event).status == 200
    (call,) = fake.wait_for("chat.postMessage")
    assert call.params["thread_ts"] == "1700000000.0002"
    assert result_ids(call.params) == result_ids(topic)
    assert result_ids(call.params)[0] == DEFENSIVE_KV
    # No "No paper matches every word" for the request's words
    assert "every word" not in texts(call.params)
    assert problems(call.params) == []


def test_papers_like_a_named_paper_are_its_similar_papers(slack_http: SlackHttp) -> None:
    """`/icml papers similar to TokSuite` listed TokSuite alone; `work like DefensiveKV` searched the words "work"
    and "like". A request for papers like one paper answers with what its Similar button lists."""
    db = index.connect(slack_http.config.db_path, readonly=True)
    for asked, paper in (("papers similar to TokSuite", TOKSUITE), ("work like DefensiveKV", DEFENSIVE_KV)):
        body = slack_http.command(asked).json()
        assert "Papers like *" in texts(body), asked
        shown = result_ids(body)
        assert paper not in shown, asked
        assert shown == [r.paper["id"] for r in search_module.similar(db, paper, k=5)], asked
        assert problems(body) == []
    db.conn.close()
    # The name alone is that paper
    assert result_ids(slack_http.command("TokSuite").json())[0] == TOKSUITE


def test_a_compound_whose_hyphen_slipped_is_answered_as_the_word(slack_http: SlackHttp, fake: FakeSlack) -> None:
    """`/icml toke-nizer`: correcting each part made *token-nizer*, which no paper holds; the answer reads the letters
    as *tokenizer* and says so."""
    body = slack_http.command("toke-nizer").json()
    assert "Showing results for *tokenizer*" in texts(body)
    assert result_ids(body) == result_ids(slack_http.command("tokenizer").json())
    assert result_ids(body)[0] == TOKSUITE  # TokSuite
    assert problems(body) == []


def test_bare_mention_in_a_thread_searches_for_the_discussion(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.set_thread(
        "C1",
        "1700000000.000100",
        [
            {
                "user": "U2",
                "text": "Has anyone seen recent work on *speculative decoding* with sparse attention for "
                "long contexts? <https://example.org/x|this blog> says it's hard &amp; <@U3> agrees",
            },
            {"user": "U3", "text": "no idea"},
        ],
    )
    slack_http.event(mention_event("", ts="1700000009.000300", thread_ts="1700000000.000100"))
    (post,) = fake.wait_for("chat.postMessage")
    (replies,) = fake.calls("conversations.replies")
    assert (replies.params["ts"], str(replies.params["limit"])) == ("1700000000.000100", "1")
    assert post.params["thread_ts"] == "1700000000.000100"
    intro = post.params["blocks"][0]["elements"][0]["text"]
    assert intro.startswith("Papers related to this discussion (*")
    assert "speculative" in intro
    assert "blog" not in intro
    assert "anyone" not in intro
    assert result_ids(post.params)[0] == VEGAS


@pytest.mark.parametrize("asked", ["any papers on this?", "related work?", "who works on this?"])
def test_a_mention_asking_about_this_in_a_thread_searches_for_the_discussion(
    slack_http: SlackHttp, fake: FakeSlack, asked: str
) -> None:
    """`@icml-bot any papers on this?` under a message about speculative decoding: the question names no topic of its
    own, so it is about the thread (it once searched "any", "papers" and "this" and listed whatever held them)."""
    fake.set_thread("C1", "1700000000.000100", [{"user": "U2", "text": "Anyone tried speculative decoding?"}])
    slack_http.event(mention_event(asked, ts="1700000009.000300", thread_ts="1700000000.000100"))
    (post,) = fake.wait_for("chat.postMessage")
    assert post.params["thread_ts"] == "1700000000.000100"
    assert post.params["blocks"][0]["elements"][0]["text"].startswith("Papers related to this discussion (*")
    assert result_ids(post.params)[0] == VEGAS


def test_a_question_naming_no_topic_asks_for_one(slack_http: SlackHttp, fake: FakeSlack) -> None:
    """`/icml who works on` (or a mention outside a thread): no papers that merely hold "works", but a hint."""
    body = slack_http.command("who works on").json()
    assert body["response_type"] == "ephemeral"
    assert result_ids(body) == []
    assert "Which topic? Name one, as in `any papers on grokking?`" in texts(body)
    assert "No papers match" not in texts(body)  # (nothing was searched: the hint is the answer)
    slack_http.event(mention_event("any papers on this?", ts="1700000000.000100"))
    (post,) = fake.wait_for("chat.postMessage")
    assert "Which topic?" in texts(post.params)
    assert result_ids(post.params) == []
    assert problems(body) == []


def test_bare_mention_outside_a_thread_gets_a_usage_hint(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.event(mention_event("", ts="1700000000.000100"))
    (post,) = fake.wait_for("chat.postMessage")
    assert post.params["thread_ts"] == "1700000000.000100"
    assert post.params["blocks"][0]["text"]["text"].startswith("Mention me with a few words, e.g. `@icml-bot kv cache`")


def test_unreadable_thread_is_explained(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.fail_next("conversations.replies", "missing_scope")
    slack_http.event(mention_event("", ts="1700000009.000300", thread_ts="1700000000.000100"))
    (post,) = fake.wait_for("chat.postMessage")
    assert post.params["blocks"][0]["text"]["text"].startswith("I couldn't read this thread (missing_scope).")


def test_retries_never_produce_a_second_reply(slack_http: SlackHttp, fake: FakeSlack) -> None:
    event = mention_event("kv cache")
    assert slack_http.event(event, event_id="Ev0001").status == 200
    fake.wait_for("chat.postMessage")
    for attempt in (1, 2, 3):
        reply = slack_http.event(event, event_id="Ev0001", retry_num=attempt)
        assert (reply.status, reply.body) == (200, b"")
    slack_http.drain()
    assert len(fake.posts()) == 1


def test_retries_after_a_restart_are_still_dropped(fake: FakeSlack, slack_index_path: Path, tmp_path: Path) -> None:
    config = slack_config(fake, slack_index_path, tmp_path / "state.db")
    event = mention_event("kv cache")
    first = SlackHttp(config)
    try:
        first.event(event, event_id="EvRestart")
        fake.wait_for("chat.postMessage")
    finally:
        first.stop()
    second = SlackHttp(config)  # a new process would see the same state file
    try:
        assert second.event(event, event_id="EvRestart", retry_num=1).status == 200
    finally:
        second.stop()  # every listener has finished
    assert len(fake.posts()) == 1


@pytest.mark.parametrize("extra", [{"bot_id": "B999"}, {"subtype": "bot_message", "bot_id": "B1"}])
def test_messages_from_bots_are_never_answered(slack_http: SlackHttp, fake: FakeSlack, extra: dict[str, str]) -> None:
    assert slack_http.event({**mention_event("kv cache"), **extra}).status == 200
    slack_http.drain()
    assert fake.posts() == []


def test_a_rate_limited_reply_is_not_waited_for_and_the_user_is_told(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.fail_next("chat.postMessage", "ratelimited", retry_after=30)
    slack_http.event(mention_event("kv cache", user="U5", ts="1700000000.000100"))
    # not after Slack's 30 s: no listener sleeps on a 429
    (told,) = fake.wait_for("chat.postEphemeral", timeout=3)
    assert (told.params["user"], told.params["thread_ts"], told.params["text"]) == (
        "U5",
        "1700000000.000100",
        SLOW_DOWN,
    )
    slack_http.drain()
    # refused: nothing posted twice
    assert [(c.status, c.ok) for c in fake.calls("chat.postMessage")] == [(429, False)]


def test_a_reply_refused_with_429_is_posted_once_retry_after_has_passed(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.fail_next("chat.postMessage", "ratelimited", retry_after=1)
    slack_http.event(mention_event("kv cache", user="U5", ts="1700000000.000100"))
    refused, posted = fake.wait_for("chat.postMessage", count=2, timeout=10)
    assert [(c.status, c.ok) for c in (refused, posted)] == [(429, False), (200, True)]
    assert (posted.params["channel"], posted.params["thread_ts"]) == ("C1", "1700000000.000100")
    # The same answer, in the same thread
    assert posted.params["blocks"] == refused.params["blocks"]
    assert "KV" in texts(posted.params)
    slack_http.drain()
    assert fake.calls("chat.postEphemeral") == []  # nobody is told to ask again: the answer came
    assert len(fake.calls("chat.postMessage")) == 2


def test_a_reply_refused_with_429_again_and_again_is_tried_three_times_then_the_user_is_told(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    fake.fail_next("chat.postMessage", "ratelimited", retry_after=0, times=5)
    slack_http.event(mention_event("kv cache", user="U5", ts="1700000000.000100"))
    (told,) = fake.wait_for("chat.postEphemeral", timeout=10)
    assert (told.params["user"], told.params["thread_ts"], told.params["text"]) == (
        "U5",
        "1700000000.000100",
        SLOW_DOWN,
    )
    # 1 + REPLY_RETRIES, no more
    assert [c.status for c in fake.calls("chat.postMessage")] == [429, 429, 429]


def test_a_failed_post_is_logged_and_apologised_for(
    slack_http: SlackHttp, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail_next("chat.postMessage", "not_in_channel")
    with caplog.at_level(logging.ERROR):
        slack_http.event(mention_event("kv cache", user="U5", ts="1700000000.000100"))
        (apology,) = fake.wait_for("chat.postEphemeral")
    assert (apology.params["user"], apology.params["thread_ts"], apology.params["text"]) == (
        "U5",
        "1700000000.000100",
        APOLOGY,
    )
    assert "chat.postMessage failed: not_in_channel" in caplog.text


# --------------------------------------------------------------------------- the HTTP surface


def test_url_verification_is_answered(slack_http: SlackHttp) -> None:
    body = json.dumps({"token": "t", "challenge": "abc123", "type": "url_verification"}).encode()
    reply = slack_http.post(body, "application/json")
    assert (reply.status, reply.json()) == (200, {"challenge": "abc123"})


def test_bad_signatures_and_old_timestamps_are_rejected(slack_http: SlackHttp, fake: FakeSlack) -> None:
    body = b"command=%2Ficml&text=kv+cache&user_id=U1&channel_id=C1"
    assert slack_http.post(body, FORM, secret="wrong-secret").status == 401
    assert slack_http.post(body, FORM, age=301).status == 401
    assert slack_http.request("POST", "/slack/events", body, {"Content-Type": FORM}).status == 401
    assert slack_http.post(body, FORM, age=10).status == 200
    event = json.dumps({"type": "event_callback", "event_id": "EvX", "event": mention_event("x")}).encode()
    assert slack_http.post(event, "application/json", secret="wrong-secret").status == 401
    slack_http.drain()
    assert fake.posts() == []


def test_the_state_file_holding_bot_tokens_is_for_the_bot_user_only(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state.db"
    served = SlackHttp(slack_config(fake, slack_index_path, state))
    try:
        assert served.command("kv cache").status == 200
        files = sorted(tmp_path.glob("state.db*"))
        assert [f.name for f in files] == ["state.db", "state.db-shm", "state.db-wal"]
        assert {oct(stat.S_IMODE(f.stat().st_mode)) for f in files} == {"0o600"}
    finally:
        served.stop()
    state.chmod(0o644)  # a file made by an older release
    with caplog.at_level(logging.WARNING, logger="bot.state.sqlite"):
        SlackHttp(slack_config(fake, slack_index_path, state)).stop()
    assert oct(stat.S_IMODE(state.stat().st_mode)) == "0o600"
    assert f"{state} was open to other users (mode 0644): now 0600, as it holds bot tokens" in caplog.text


def test_healthz_and_unknown_routes(slack_http: SlackHttp) -> None:
    health = slack_http.request("GET", "/healthz")
    assert (health.status, health.json()) == (200, {"ok": True, "papers": 20, "index": "ok", "state": "ok"})
    # Unsigned: nothing but /healthz answers without a signature
    assert slack_http.request("GET", "/").status == 401
    assert slack_http.request("GET", "/slack/events").status == 401
    assert slack_http.post(b"x=1", FORM).status == 404  # signed, but nothing Slack would send
    unsigned_elsewhere = slack_http.request("POST", "/other", b"x", {"Content-Type": FORM})
    assert unsigned_elsewhere.status == 401


def test_the_app_is_served_with_a_workers_limits_as_icml_bot_serve_http_serves_it(slack_http: SlackHttp) -> None:
    # The tests' server is the one each gunicorn worker runs (it once had 8 threads, no idle timeout and a 256 kB
    # header limit): headers past the worker's limit get 431 or a closed connection, never an answer.
    def health(header_bytes: int) -> int | None:
        try:
            return slack_http.request("GET", "/healthz", headers={"X-Padding": "x" * header_bytes}).status
        except (ConnectionError, http.client.HTTPException):
            return None  # closed before the 431 could be read

    assert health(8 * 1024) == 200  # a browser's cookies on /slack/install
    assert health(MAX_HEADER_BYTES + 1024) in (431, None)
    assert health(MAX_HEADER_BYTES * 2) in (431, None)
    assert health(100) == 200  # and the server carries on


# --------------------------------------------------------------------------- very common phrases


@pytest.fixture
def quokka_http(fake: FakeSlack, tmp_path: Path) -> Iterator[SlackHttp]:
    """The app serving the seeds plus 200 papers on "quokka vision": more than a phrase's matches are counted."""
    source = tmp_path / "quokka.jsonl"
    with source.open("w", encoding="utf-8") as out:
        for n in range(200):
            paper = {"id": f"quokka{n}", "title": f"Quokka vision, study {n}", "abstract": f"Quokka vision {n}. " * 8}
            out.write(json.dumps(paper) + "\n")
    path = tmp_path / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS, source])
    db.conn.close()
    served = SlackHttp(slack_config(fake, path, tmp_path / "state.db"))
    yield served
    served.stop()


def test_a_very_common_phrase_says_at_least_and_pages_to_its_end(quokka_http: SlackHttp, fake: FakeSlack) -> None:
    first = quokka_http.command('"quokka vision"').json()
    footer = first["blocks"][-1]
    assert re.fullmatch(r"1-5 of at least \d+ for \*\"quokka vision\"\*", footer["text"]["text"]), footer["text"][
        "text"
    ]
    assert footer["accessory"]["text"]["text"] == "More results"  # a lower bound: there are more
    value = json.loads(footer["accessory"]["value"])
    value["o"] = 200  # the end of the list, as the last More results button would ask
    end = block_action_payload(blocks.ACTION_PAGE, json.dumps(value), response_url=fake.response_url("end"))
    assert quokka_http.action(end).status == 200
    (call,) = fake.wait_for("response")
    assert 'No more papers for *"quokka vision"* (200 in all).' in texts(call.params)
    assert problems(call.params) == []


# --------------------------------------------------------------------------- an index a test writes


def _answer(fake: FakeSlack, index_path: Path, text: str) -> dict[str, Any]:
    """The answer to one signed `/icml text`, from the app served over this index (state beside it)."""
    served = SlackHttp(slack_config(fake, index_path, index_path.with_name("state.db")))
    try:
        reply: dict[str, Any] = served.command(text).json()
        return reply
    finally:
        served.stop()


# --------------------------------------------------------------------------- filters said in a question


def test_a_question_naming_orals_code_or_a_person_is_answered_with_those_papers(
    fake: FakeSlack, tmp_path: Path
) -> None:
    """`/icml any oral papers on attention?`, `/icml attention papers with code`, `/icml Alan Turing's papers`: the
    request's words are filters and a name, not words every paper must hold."""
    papers: list[dict[str, Any]] = [
        {"id": "A1", "title": "Sparse Attention for Long Contexts", "authors": ["Ada Lovelace", "Alan Turing"],
         "status": "Oral", "code_url": "https://github.com/x/sparse"},
        {"id": "B2", "title": "Dense Attention Revisited", "authors": ["Grace Hopper"], "status": "Poster"},
        {"id": "C3", "title": "Attention Sinks in Streaming Models", "authors": ["Alan Turing"],
         "status": "Spotlight", "code_url": "https://github.com/x/sinks"},
        {"id": "D4", "title": "Gradient Descent without Tears", "authors": ["Edsger Dijkstra"], "status": "Poster"},
    ]  # fmt: skip
    for paper in papers:
        paper["abstract"] = f"We study {paper['title'].lower()} in depth, on many benchmarks."
    path = index_of(tmp_path, papers, "asked2026.jsonl")

    def titles(text: str) -> list[str]:
        body = _answer(fake, path, text)
        assert problems(body) == []
        assert "every word" not in texts(body), text
        return sorted(p["title"] for p in papers if p["title"] in texts(body))

    assert titles("any oral papers on attention?") == ["Sparse Attention for Long Contexts"]
    assert titles("attention papers with code") == [
        "Attention Sinks in Streaming Models",
        "Sparse Attention for Long Contexts",
    ]
    turing = _answer(fake, path, "Alan Turing's papers")
    assert "2 papers by *Alan Turing*" in texts(turing)


# --------------------------------------------------------------------------- initials several people fit


def test_initials_list_all_of_the_lead_persons_papers_however_many_others_fit(
    fake: FakeSlack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/icml M. Bansal` leads with the person with the most papers and says how many; the cap on papers listed
    (here 5, 1,000 in production) comes after that order, so others' papers earlier in the index never cut theirs."""
    people = [("Mohit Bansal", f"Verified Reasoning Chains, part {n}") for n in range(3)]
    people += [("Manish Bansal", f"Integer Programming Cuts, part {n}") for n in range(4)]
    papers = [
        {"id": f"b{n}", "title": title, "abstract": f"{title}: study number {n}.", "authors": [author]}
        for n, (author, title) in enumerate(people)
    ]
    path = index_of(tmp_path, papers, "bansal.jsonl")
    monkeypatch.setattr("bot.search.retrieve.TOTAL_CAP", 5)
    body = _answer(fake, path, "M. Bansal")
    shown = texts(body)
    assert "4 papers by *Manish Bansal* (you typed *M. Bansal*)" in shown
    assert "Mohit Bansal (3)" in shown
    # Fallback text first
    in_order = re.findall(r"Integer Programming Cuts|Verified Reasoning Chains", shown)
    assert in_order[:5] == ["Integer Programming Cuts"] * 4 + ["Verified Reasoning Chains"]
    assert problems(body) == []


# --------------------------------------------------------------------------- a typo two words could mean


def test_a_typo_is_read_as_the_word_papers_use_with_the_rest_of_the_query(fake: FakeSlack, tmp_path: Path) -> None:
    """`/icml wheather forecasting storm radar`: whether and weather are both one edit away and whether is the more
    frequent, but papers use weather with the query's rarest other words, so the answer reads it so and leads with
    the paper that holds them all."""
    typed = "wheather forecasting storm radar"
    body = _answer(fake, index_of(tmp_path, WEATHER_OR_WHETHER, "weather2026.jsonl"), typed)
    shown = texts(body)
    assert f"Showing results for *weather forecasting storm radar* (you typed *{typed}*)" in shown
    assert re.findall(r"Weather Forecasting \d|Does Size Matter \d", shown)[0] == "Weather Forecasting 0"
    assert problems(body) == []


def test_a_noun_finds_the_title_with_its_adjective_and_bolds_it(fake: FakeSlack, tmp_path: Path) -> None:
    """`/icml robustness of graph neural networks`: the answer leads with the paper titled *Robust ... Graph Neural
    Networks* and its snippet bolds *robust*, though the query said robustness."""
    path = index_of(tmp_path, ROBUST_OR_ROBUSTNESS, "robust.jsonl")
    body = _answer(fake, path, "robustness of graph neural networks")
    shown = texts(body)
    titles = re.findall(r"Robust Training of Graph Neural Networks|Graph Neural Networks for Chemistry", shown)
    assert titles[0] == "Robust Training of Graph Neural Networks"
    assert "*robust*" in shown
    assert problems(body) == []


# --------------------------------------------------------------------------- today's query forms, as served


@contextlib.contextmanager
def _served(
    fake: FakeSlack, folder: Path, papers: list[dict[str, Any]], field: str
) -> Iterator[tuple[SlackHttp, Callable[[str], tuple[list[str], str]]]]:
    """The app serving an index of these papers, and `/icml text` through it: this field of the papers the answer
    lists, in the order shown, and all it says (checked for Block Kit problems). Stopped afterwards."""
    served = SlackHttp(slack_config(fake, index_of(folder, papers, "forms2026.jsonl"), folder / "state.db"))

    def shown(text: str) -> tuple[list[str], str]:
        body: dict[str, Any] = served.command(text).json()
        assert problems(body) == []
        said = texts(body)
        listed = sorted((p for p in papers if f"*{p['title'][:40]}" in said), key=lambda p: said.index(p["title"][:40]))
        return [p[field] for p in listed], said

    try:
        yield served, shown
    finally:
        served.stop()


def test_not_joined_words_a_lead_that_says_which_papers_and_an_unknown_name_through_the_app(
    fake: FakeSlack, tmp_path: Path
) -> None:
    """`/icml diffusion NOT video`, `/icml LoRA+DoRA`, `/icml any diffusion papers`, a title typed whole that holds
    another paper's name, and `/icml Ada Hendrycks` (a given name here, a surname no paper holds), as a user sees
    them: each answer lists what the query means, not what its words would match."""
    long_title = "Dynamic Fractal Mamba: A Neural Renormalization Group Flow for Scale-Invariant Sequence Modeling"
    papers = [
        {"id": "V1", "title": "Diffusion Models for Video Generation", "authors": ["Ada Lovelace"],
         "abstract": "We generate video clips with diffusion models trained on video."},
        {"id": "I1", "title": "Diffusion Models for Image Denoising", "authors": ["Grace Hopper"],
         "abstract": "We denoise images with diffusion models and study their samplers."},
        {"id": "L1", "title": "Low-Rank Adapters Compared", "authors": ["Alan Turing"],
         "abstract": "We compare LoRA and DoRA adapters for fine-tuning large models."},
        {"id": "F1", "title": "FRACTAL: State Space Models", "authors": ["Edsger Dijkstra"],
         "abstract": "Fractal state space models for long sequences."},
        {"id": "F2", "title": long_title, "authors": ["Barbara Liskov"],
         "abstract": "A renormalization group flow for scale-invariant sequence modeling with state space models."},
    ]  # fmt: skip
    with _served(fake, tmp_path, papers, "title") as (served, shown):
        assert shown("diffusion NOT video")[0] == ["Diffusion Models for Image Denoising"]
        assert shown("LoRA+DoRA")[0] == ["Low-Rank Adapters Compared"]
        which, said = shown("any diffusion papers")
        assert set(which) == {"Diffusion Models for Video Generation", "Diffusion Models for Image Denoising"}
        assert "every word" not in said
        titled = served.command(long_title).json()
        assert result_ids(titled)[0] == result_ids(served.command("renormalization group flow").json())[0]
        nobody, said = shown("Ada Hendrycks")
        assert nobody == []
        assert "No author here is called *Ada Hendrycks*, and no paper mentions *Hendrycks*." in said


def test_machine_learning_as_means_without_names_forms_and_not_about_through_the_app(
    fake: FakeSlack, tmp_path: Path
) -> None:
    """`/icml weather forecasting with machine learning`, `image editing without training`, `Dave Blei`,
    `author:Scholkopf` and `show me papers NOT about LLMs`, as a user sees them."""
    ml = "Machine learning forecasting of {} demand; our machine learning models beat baselines."
    papers = [
        {"id": "W1", "title": "Global Weather Forecasting at Kilometre Scale", "authors": ["Ada Lovelace"],
         "abstract": "We forecast the weather ten days ahead from reanalysis data."},
        *({"id": f"M{i}", "title": f"{kind.title()} Demand Forecasting", "authors": ["Grace Hopper"],
           "abstract": ml.format(kind)} for i, kind in enumerate(["retail", "energy", "traffic", "water", "cloud"])),
        {"id": "E1", "title": "Training-Free Image Editing by Attention", "authors": ["David Blei"],
         "abstract": "We edit images with a frozen diffusion model, with no training at all."},
        {"id": "E2", "title": "Image Editing Models Need Training Data", "authors": ["Alan Turing"],
         "abstract": "Training image editing models on paired data; training-free baselines fall short."},
        {"id": "E3", "title": "Training-Free Video Retrieval", "authors": ["Alan Turing"],
         "abstract": "Training-free retrieval of clips."},
        {"id": "C1", "title": "Causal Representation Learning", "authors": ["Bernhard Schölkopf"],
         "abstract": "We learn causal variables from images."},
        {"id": "L1", "title": "Reasoning in LLMs", "authors": ["Alan Turing"],
         "abstract": "LLMs reason step by step."},
    ]  # fmt: skip
    with _served(fake, tmp_path, papers, "id") as (_, shown):
        # not a demand forecast
        assert shown("weather forecasting with machine learning")[0][0] == "W1"
        assert shown("image editing without training")[0][0] == "E1"
        found, said = shown("Dave Blei")
        assert found == ["E1"]
        assert "1 paper by *David Blei* (you typed *Dave Blei*)" in said
        assert shown("author:Scholkopf")[0] == ["C1"]
        not_about = shown("show me papers NOT about LLMs")[0]
        assert "L1" not in not_about
        assert not_about


def test_hyphenated_terms_and_names_no_paper_writes_through_the_app(fake: FakeSlack, tmp_path: Path) -> None:
    """`/icml FlashAttention-3` (a name no paper writes yet), `/icml selfp-lay` (the hyphen one letter late) and
    `/icml self-play for language models` (self-evolving is not self-play), as a user sees them."""
    papers = [
        {"id": "F2", "title": "FlashAttention-2 Kernels for Long Contexts", "authors": ["Ada Lovelace"],
         "abstract": "FlashAttention-2 computes exact attention faster."},
        {"id": "S1", "title": "Self-Play Fine-Tuning of Language Models", "authors": ["Grace Hopper"],
         "abstract": "Language models improve by self-play against earlier copies."},
        {"id": "E1", "title": "Self-Evolving Language Models", "authors": ["Alan Turing"],
         "abstract": "Language models that evolve by themselves; agents play games."},
    ]  # fmt: skip
    with _served(fake, tmp_path, papers, "id") as (_, shown):
        found, said = shown("FlashAttention-3")
        assert found == ["F2"]
        assert "No paper writes *FlashAttention-3*: showing papers with *flashattention*." in said
        found, said = shown("selfp-lay")
        assert found == ["S1"]
        assert "Showing results for *self-play* (you typed *selfp-lay*)" in said
        assert shown("self-play for language models")[0][0] == "S1"


def test_slips_in_terms_and_a_surname_alone_through_the_app(fake: FakeSlack, tmp_path: Path) -> None:
    """`/icml mixture-ofexperts` (a hyphen left out), `/icml HiddenState` (words run together), `/icml Levine` (a
    surname two authors share, one letter from a paper's Levin) and `/icml einforcement learning` (a slip at the
    first letter), as a user sees them."""
    papers = [
        {"id": "M1", "title": "Mixture of Experts Routing", "authors": ["Sergey Levine"],
         "abstract": "Sparse experts route tokens."},
        {"id": "M2", "title": "A Panel of Experts", "authors": ["Will LeVine"], "abstract": "Experts of all kinds."},
        {"id": "R1", "title": "Robot Learning at Scale", "authors": ["Sergey Levine", "Ada Lovelace"],
         "abstract": "Robots learn from data."},
        {"id": "H1", "title": "Probing the Hidden State", "authors": ["Ada Lovelace"],
         "abstract": "What the hidden state holds."},
        {"id": "T1", "title": "Levin Tree Search", "authors": ["Alan Turing"], "abstract": "Levin search, revisited."},
        *({"id": f"RL{i}", "title": f"Reinforcement Learning for Games {i}", "authors": ["Grace Hopper"],
           "abstract": f"Agents learn by reinforcement, run {i}."} for i in range(3)),
        {"id": "E1", "title": "Law Enforcement Data", "authors": ["Grace Hopper"], "abstract": "Agencies publish."},
    ]  # fmt: skip
    with _served(fake, tmp_path, papers, "id") as (_, shown):
        found, said = shown("mixture-ofexperts")
        assert found == ["M1"]
        assert "Showing results for *mixture-of-experts* (you typed *mixture-ofexperts*)" in said
        found, said = shown("HiddenState")
        assert found == ["H1"]
        assert "Showing results for *Hidden State* (you typed *HiddenState*)" in said
        found, said = shown("Levine")
        assert (set(found[:2]), found[2:]) == ({"M1", "R1"}, ["M2"])  # not Levin Tree Search
        assert "2 papers by *Sergey Levine*. Also fits, listed after: Will LeVine (1)" in said
        found, said = shown("einforcement learning")  # a slip at the first letter: not enforcement
        assert set(found[:3]) == {"RL0", "RL1", "RL2"}
        assert "E1" not in found
        assert "Showing results for *reinforcement learning* (you typed *einforcement learning*)" in said


# The loop must end quietly
@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_stopping_a_server_whose_loop_closed_its_wake_up_pipe_still_stops(slack_http: SlackHttp) -> None:
    # Under load the server's loop can see a hang-up on its wake-up pipe and close it first; stopping must then
    # close the sockets itself instead of failing to write to the closed pipe (EBADF).
    assert slack_http.request("GET", "/healthz").status == 200
    server = slack_http.server.server
    closed = threading.Event()

    def hang_up() -> None:  # run by the loop, as its handle_close would on a hang-up
        server.trigger.close()
        closed.set()

    server.trigger.pull_trigger(hang_up)
    assert closed.wait(5)
    slack_http.drain()  # (it raised OSError: Bad file descriptor)
    with pytest.raises(ConnectionRefusedError):  # nothing listens any more
        slack_http.request("GET", "/healthz")
