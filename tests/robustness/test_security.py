"""Security: only signed requests reach the app, secrets never reach a log line or an error message, user and paper
text cannot ping or link anyone, and oversized input gets a friendly answer instead of work."""

from __future__ import annotations

import io
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from bot import wiring
from bot.config import SECRET_FIELDS, Config, ConfigError
from bot.logs import RedactSecrets, setup_logging
from bot.slack import blocks
from bot.slack.app import build_app
from tests.support.fake_slack import FakeSlack
from tests.support.robust import message_problems
from tests.support.seed_ids import VEGAS
from tests.support.slack_calls import Call
from tests.support.slack_harness import (
    ACK_DEADLINE,
    FORM,
    SECRET,
    SlackHttp,
    serving,
    slack_config,
    socket_mode_app,
    texts,
    timed,
)
from tests.support.slack_requests import block_action_payload, event_body, form_body, mention_event, sign, slash_form

PINGS = ("<!channel>", "<!here>", "<!everyone>", "<@U", "<#C", "<https://evil", "<mailto:")
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
PATHS = (
    "/slack/events",
    "/slack/events/",
    "/slack/events?ssl_check=1",
    "/",
    "/admin",
    "/healthz/x",
    "/slack//events",
    "/slack/events/../healthz",
    "/%2e%2e/etc/passwd",
    "/slack/install",
    "/slack/oauth_redirect",
)


# ---------------------------------------------------------------------- only signed requests get in


@pytest.mark.parametrize("method", METHODS)
def test_every_route_but_healthz_needs_a_signature(slack_http: SlackHttp, fake: FakeSlack, method: str) -> None:
    body = form_body(slash_form("kv cache")) if method in ("POST", "PUT", "PATCH") else b""
    for path in PATHS:
        reply = slack_http.request(method, path, body, {"Content-Type": FORM})
        assert reply.status == 401, (method, path, reply.status, reply.body)
    health = slack_http.request(method, "/healthz")
    assert health.status == (200 if method in ("GET", "HEAD") else 401)
    slack_http.drain()
    assert [c.method for c in fake.calls()] == ["auth.test"]  # nothing unsigned reached a listener


def test_signed_requests_to_other_routes_and_methods_are_refused(slack_http: SlackHttp) -> None:
    body = form_body(slash_form("kv cache"))
    headers = {"Content-Type": FORM, **sign(SECRET, body)}
    assert slack_http.request("POST", "/slack/events", body, headers).status == 200
    assert slack_http.request("PUT", "/slack/events", body, headers).status == 405
    assert slack_http.request("POST", "/admin", body, headers).status == 404
    assert slack_http.request("GET", "/slack/events", body, headers).status == 405


@pytest.mark.parametrize(
    "forge",
    [
        "wrong secret",
        "no signature",
        "no timestamp",
        "old",
        "future",
        "not a number",
        "scientific",
        "negative",
        "superscript digit",
        "5000 digits",
        "empty signature",
        "v1 scheme",
        "upper-case hex",
        "not utf-8",
        "signature of another body",
    ],
)
def test_bad_missing_and_old_signatures_are_401(
    slack_http: SlackHttp, fake: FakeSlack, forge: str, caplog: pytest.LogCaptureFixture
) -> None:
    body = json.dumps(event_body(mention_event("kv cache"))).encode()
    now = int(time.time())
    headers = {"Content-Type": "application/json", **sign(SECRET, body, now)}
    if forge == "wrong secret":
        headers.update(sign("not-the-secret", body, now))
    elif forge == "no signature":
        del headers["X-Slack-Signature"]
    elif forge == "no timestamp":
        del headers["X-Slack-Request-Timestamp"]
    elif forge in ("old", "future"):
        headers.update(sign(SECRET, body, now + (-301 if forge == "old" else 301)))
    elif forge in ("not a number", "scientific", "negative", "superscript digit", "5000 digits"):
        headers["X-Slack-Request-Timestamp"] = {
            "not a number": "abc",
            "scientific": "1.7e9",
            "negative": "-1",
            "superscript digit": "17²",
            "5000 digits": "9" * 5000,
        }[forge]
    elif forge == "empty signature":
        headers["X-Slack-Signature"] = "v0="
    elif forge == "v1 scheme":
        headers["X-Slack-Signature"] = headers["X-Slack-Signature"].replace("v0=", "v1=")
    elif forge == "upper-case hex":
        headers["X-Slack-Signature"] = "v0=" + headers["X-Slack-Signature"][3:].upper()
    elif forge == "not utf-8":
        body = b"\xff\xfe" + body
        headers.update(sign(SECRET, body.decode("latin-1").encode("latin-1"), now))
    elif forge == "signature of another body":
        headers.update(sign(SECRET, b"{}", now))
    with caplog.at_level(logging.DEBUG):
        reply = slack_http.request("POST", "/slack/events", body, headers)
    assert reply.status == 401
    assert reply.body == b"invalid request"
    slack_http.drain()
    # Before the signature gate, "not a number" made Bolt's check raise: a 500, a traceback, and an apology
    # posted (chat.postEphemeral) to whichever user and channel the forged body named.
    assert [c.method for c in fake.calls()] == ["auth.test"]
    assert "Traceback" not in caplog.text


def test_replayed_bodies_with_changed_content_are_refused_and_exact_replays_do_nothing_twice(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    body = json.dumps(event_body(mention_event("kv cache", ts="1700000000.000100"), event_id="EvReplay")).encode()
    headers = {"Content-Type": "application/json", **sign(SECRET, body)}
    assert slack_http.request("POST", "/slack/events", body, headers).status == 200
    fake.wait_for("chat.postMessage")
    for changed in (
        body.replace(b"kv cache", b"<!channel>"),
        body + b" ",
        body.replace(b"EvReplay", b"EvReplaz"),
        body[:-1],
    ):
        assert slack_http.request("POST", "/slack/events", changed, headers).status == 401
    # A replay within 5 minutes...
    assert slack_http.request("POST", "/slack/events", body, headers).status == 200
    slash = form_body(slash_form("kv cache"))
    slash_headers = {"Content-Type": FORM, **sign(SECRET, slash)}
    forged = slash.replace(b"kv+cache", b"stats")
    assert slack_http.request("POST", "/slack/events", forged, slash_headers).status == 401
    slack_http.drain()
    assert len(fake.posts()) == 1  # ...is the same event_id: answered once


def test_an_oversized_body_is_refused_before_anything_reads_it(slack_http: SlackHttp, fake: FakeSlack) -> None:
    body = b"text=" + b"a" * (2 << 20)
    try:
        status = slack_http.request("POST", "/slack/events", body, {"Content-Type": FORM, **sign(SECRET, body)}).status
    except (BrokenPipeError, ConnectionResetError):
        # waitress answered 413 and closed the connection while the client was still sending
        status = 413
    assert status == 413
    slack_http.drain()
    assert [c.method for c in fake.calls()] == ["auth.test"]


# ---------------------------------------------------------------------- secrets stay out of logs and errors

BOT_TOKEN = "xoxb-111-222-SecretBotToken0123456789"
APP_TOKEN = "xapp-1-A111-222-SecretAppToken0123456789"
SIGNING_SECRET = "SigningSecret0123456789abcdef"


def test_no_token_or_secret_in_debug_logs_or_errors_through_a_full_flow(slack_index_path: Path, tmp_path: Path) -> None:
    secrets = (BOT_TOKEN, APP_TOKEN, SIGNING_SECRET)
    root = logging.getLogger()
    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    old_level = root.level
    root.addHandler(handler)
    errors: list[str] = []
    try:
        with FakeSlack(tokens={BOT_TOKEN, APP_TOKEN}) as fake:
            config = slack_config(
                fake,
                slack_index_path,
                tmp_path / "state.db",
                bot_token=BOT_TOKEN,
                app_token=APP_TOKEN,
                signing_secret=SIGNING_SECRET,
                log_level="DEBUG",
            )
            setup_logging(config)
            root.setLevel(logging.DEBUG)
            served = SlackHttp(config)
            try:
                body = form_body(slash_form("kv cache", response_url=fake.response_url("r")))
                headers = {"Content-Type": FORM, **sign(SIGNING_SECRET, body)}
                assert served.request("POST", "/slack/events", body, headers).status == 200
                assert served.request("POST", "/slack/events", body, {"Content-Type": FORM}).status == 401
                fake.fail_next("chat.postMessage", "invalid_auth")
                event = json.dumps(event_body(mention_event("kv cache"))).encode()
                served.request(
                    "POST", "/slack/events", event, {"Content-Type": "application/json", **sign(SIGNING_SECRET, event)}
                )
                fake.wait_for("chat.postMessage")
                fake.fail_response("gone", status=404)
                action = form_body(
                    {
                        "payload": json.dumps(
                            block_action_payload(blocks.ACTION_SHARE, VEGAS, response_url=fake.response_url("gone"))
                        )
                    }
                )
                served.request("POST", "/slack/events", action, {"Content-Type": FORM, **sign(SIGNING_SECRET, action)})
                fake.wait_for("response", ok=False)
                logging.getLogger("bot.test").error(
                    "a library echoing a token: %s %s",
                    BOT_TOKEN,
                    APP_TOKEN,
                    exc_info=ValueError(f"bad {SIGNING_SECRET}"),
                )
            finally:
                served.stop()  # waits for the listeners: the share's failure is logged by now
            with socket_mode_app(fake, config):
                pass
            fake.tokens.discard(BOT_TOKEN)  # revoked: the next start is refused
            try:
                build_app(config, wiring.build(config).services)
            except ConfigError as exc:
                errors.append(str(exc))
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        for h in root.handlers:
            h.filters = [f for f in h.filters if not isinstance(f, RedactSecrets)]
    log = captured.getvalue()
    assert "DEBUG" in log
    assert "invalid_auth" in log
    assert "response_url failed: HTTP 404" in log
    assert errors
    assert "SLACK_BOT_TOKEN was rejected by Slack (invalid_auth)" in errors[0]
    for secret in secrets:
        assert secret not in log, secret
        assert all(secret not in e for e in errors)
    assert "xoxb-[redacted]" in log
    assert "[redacted]" in log


# ---------------------------------------------------------------------- nobody can make the bot ping or link


HOSTILE = (
    "&lt;!channel&gt; *everyone* _look_ ~here~ `now` &lt;@U0ADMIN&gt; &lt;#C0GENERAL&gt; "
    "&lt;https://evil.example|click me&gt; &amp;lt;!here&amp;gt; kv cache"
)


def test_hostile_queries_and_mentions_cannot_ping_link_or_break_formatting(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    body = slack_http.command(HOSTILE).json()
    assert message_problems(body) == []
    rendered = json.dumps(body)
    assert not [p for p in PINGS if p in rendered]
    echo = [t for t in texts(body).splitlines() if t.startswith(("1-", "No papers"))][-1]
    bold = echo[echo.index("*") :]
    assert bold.count("*") == 2, bold  # the query's own asterisks cannot end or start bold text
    slack_http.event(mention_event(HOSTILE.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")))
    (post,) = fake.wait_for("chat.postMessage")
    assert message_problems(post.params) == []
    assert not [p for p in PINGS if p in json.dumps(post.params)]


TYPED_PINGS = {
    "id": "typed001",
    "title": "@channel Zebrafish Ping Tests for @here Readers",
    "abstract": "Plain @everyone and @channel and @Here in an abstract about zebrafish pings must stay text. " * 3,
    "authors": ["Ada @channel Lovelace"],
    "session": "Poster Session 1 @here",
}


def test_typed_special_mentions_in_papers_and_queries_cannot_notify(fake: FakeSlack, tmp_path: Path) -> None:
    # Slack documents that a mrkdwn object without `verbatim` has "certain mentions automatically parsed"; the
    # fallback `text` has no such switch. Every mrkdwn object is verbatim, and a typed @channel carries a word joiner.
    with serving(fake, tmp_path, [TYPED_PINGS]) as served:
        reply = served.command("zebrafish ping @channel").json()
        served.event(mention_event("zebrafish ping @here", ts="1700000000.000100"))
        (post,) = fake.wait_for("chat.postMessage")
        served.action(block_action_payload(blocks.ACTION_ABSTRACT, "typed001", response_url=fake.response_url("a")))
        (abstract,) = fake.wait_for(lambda c: c.method == "response" and c.name == "a")
    for msg in (reply, post.params, abstract.params):
        assert message_problems(msg) == []
        assert "@\u2060channel Zebrafish Ping Tests for @\u2060here Readers" in texts(msg)
    assert "Plain @\u2060everyone and @\u2060channel and @\u2060Here in an abstract" in texts(abstract.params)


def test_a_shared_paper_names_only_a_real_user(slack_http: SlackHttp, fake: FakeSlack) -> None:
    for user in ("U0REAL01", "U1>|<!here", "!channel"):
        slack_http.action(
            block_action_payload(
                blocks.ACTION_SHARE, "evil0001", user_id=user, response_url=fake.response_url(user[:3])
            )
        )
    calls = fake.wait_for("response", count=3)
    for call in calls:
        assert message_problems(call.params, users={"U0REAL01"}) == []
    attributions = sorted(line for call in calls for line in texts(call.params).splitlines() if "Shared by" in line)
    assert attributions == ["Shared by <@U0REAL01> with `/icml`"] + ["Shared by someone with `/icml`"] * 2


# ---------------------------------------------------------------------- input length


@pytest.mark.ack_deadline
def test_a_10000_character_query_gets_a_friendly_answer_in_time(slack_http: SlackHttp) -> None:
    query = ("kv cache, speculative decoding and sparse attention; " * 200)[:9_999] + "!"
    reply, took = timed(slack_http.command, query)
    assert reply.status == 200
    # The answer is the ack: a long query must not be searched word by word first
    assert took < ACK_DEADLINE
    text = texts(reply.json())
    assert "That is 10,000 characters: I search for up to 500" in text
    assert "`/icml kv cache`" in text
    assert message_problems(reply.json()) == []


def test_a_garbled_term_or_a_very_long_phrase_is_searched_without_echoing_it(slack_http: SlackHttp) -> None:
    # One token of 110 words: it was one phrase, quoted back whole in a note
    garbled = ("kv-cache-" * 60)[:499]
    body = slack_http.command(garbled).json()
    assert "KV" in texts(body)  # papers on the KV cache, found by its words
    assert "No paper writes" not in texts(body)  # (the footer still names the query, cut short)
    assert message_problems(body) == []
    phrase = slack_http.command('"' + "kv cache eviction " * 12 + '"').json()  # 36 words
    assert "A phrase that long was searched by its first 32 words." in texts(phrase)
    assert message_problems(phrase) == []
    two = texts(slack_http.command(('"' + "kv " * 40 + '" ') * 2).json())
    assert two.count("A phrase that long was searched by its first 32 words.") == 1
    # 40 unique words
    many = texts(slack_http.command("kv cache " + "-".join(f"w{n}" for n in range(40))).json())
    assert "Your query was long: searched its first 32 terms" in many


def test_a_40000_character_mention_gets_a_friendly_reply_in_the_thread(slack_http: SlackHttp, fake: FakeSlack) -> None:
    # After "<@UBOT> ": 40,000
    pasted = ("Has anyone seen work on speculative decoding? " * 900)[:39_991] + "?"
    slack_http.event(mention_event(pasted, ts="1700000000.000100"))
    (post,) = fake.wait_for("chat.postMessage")
    assert post.params["thread_ts"] == "1700000000.000100"
    assert "That is 40,000 characters" in texts(post.params)
    assert "`@icml-bot kv cache`" in texts(post.params)


def test_a_40000_character_thread_is_read_only_as_far_as_needed(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.set_thread(
        "C1",
        "1700000000.000100",
        [{"user": "U2", "text": "speculative decoding " * 2000}, {"user": "U3", "text": "kv cache " * 2000}],
    )
    assert slack_http.event(mention_event("", ts="1700000009.000300", thread_ts="1700000000.000100")).status == 200
    (post,) = fake.wait_for("chat.postMessage")
    (replies,) = fake.calls("conversations.replies")
    assert str(replies.params["limit"]) == "1"  # the parent only, not the 2,000-word reply
    intro = post.params["blocks"][0]["elements"][0]["text"]
    assert intro == "Papers related to this discussion (*speculative decoding*):"
    assert message_problems(post.params) == []


# 40,000 characters posted through the API (unescaped): each "<" opens a channel link
RAW_MARKUP = "<#C1|" * 8_000
# Generous, and still well below what parsing the whole text with `<[^>]*>` took (docs/benchmarks.md).
MARKUP_CPU_SECONDS = 0.3


def cpu_for_reply(slack_http: SlackHttp, fake: FakeSlack, event: dict[str, Any]) -> tuple[Call, float]:
    """The reply to a mention and the CPU the process spent from the signed event until that reply was posted."""
    started = time.process_time()
    assert slack_http.event(event).status == 200
    (post,) = fake.wait_for("chat.postMessage")
    return post, time.process_time() - started


def test_a_40000_character_raw_markup_mention_is_refused_unread(slack_http: SlackHttp, fake: FakeSlack) -> None:
    post, cpu = cpu_for_reply(slack_http, fake, mention_event(RAW_MARKUP, ts="1700000000.000100"))
    assert cpu < MARKUP_CPU_SECONDS
    # with "<@UBOT> "
    assert "That is 40,008 characters: I search for up to 500" in texts(post.params)


def test_a_40000_character_raw_markup_thread_parent_is_read_only_as_far_as_needed(
    slack_http: SlackHttp, fake: FakeSlack
) -> None:
    fake.set_thread("C1", "1700000000.000100", [{"user": "U2", "text": RAW_MARKUP}])
    bare = mention_event("", ts="1700000009.000300", thread_ts="1700000000.000100")
    post, cpu = cpu_for_reply(slack_http, fake, bare)
    assert "I couldn't tell what this thread is about." in texts(post.params)
    assert cpu < MARKUP_CPU_SECONDS


def test_long_digest_topics_are_refused_with_a_hint(slack_http: SlackHttp) -> None:
    reply = slack_http.command("digest subscribe " + "kv cache " * 34, channel_id="C0LONG00001").json()
    assert "Those topics are 305 characters long; use a few words (at most 200)" in texts(reply)
    assert slack_http.state.digests.subscription("C0LONG00001", "T1") is None


def test_a_config_in_a_log_or_a_traceback_shows_no_secret() -> None:
    """repr(Config) printed the bot token, app token and signing secret: every secret is only set or empty."""
    secrets: dict[str, Any] = {
        "state_url": "postgresql://bot:Xy7%zQw9@db/icml",
        "bot_token": "xoxb-1-secret",
        "app_token": "xapp-1-secret",
        "signing_secret": "0123456789abcdef",
        "client_secret": "cs-secret",
        "openreview_password": "or-secret",
    }
    assert set(secrets) == SECRET_FIELDS
    shown = repr(Config(db_path=Path("p.db"), state_path=Path("s.db"), **secrets))
    for value in secrets.values():
        assert value not in shown
    assert "bot_token=<set>" in shown
    assert "client_id=''" in shown  # (what is no secret is shown as it is)


def test_the_state_password_is_masked_in_logs_as_written_and_decoded() -> None:
    config = Config(db_path=Path("p.db"), state_path=Path("s.db"), state_url="postgresql://bot:Xy7%25zQ%20w9@db/icml")
    root = logging.getLogger()
    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    root.addHandler(handler)
    try:
        setup_logging(config)
        logging.getLogger("bot.test").error("libpq said: Xy7%%25zQ%%20w9, that is %s", "Xy7%zQ w9")
        # Any URL's, any length
        logging.getLogger("bot.test").error("a URL: postgresql+psycopg://u:pw@other/db")
    finally:
        root.removeHandler(handler)
        for h in root.handlers:
            h.filters = [f for f in h.filters if not isinstance(f, RedactSecrets)]
    log = captured.getvalue()
    assert "libpq said: [redacted], that is [redacted]" in log
    assert "a URL: postgresql+psycopg://u:[redacted]@other/db" in log
