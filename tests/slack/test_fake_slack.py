"""Prove FakeSlack behaves like Slack for the real slack_sdk / slack_bolt clients."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.error import URLError

import pytest
from slack_bolt import App, BoltRequest
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry import RateLimitErrorRetryHandler
from slack_sdk.signature import SignatureVerifier
from slack_sdk.webhook import WebhookClient
from websockets.sync.client import connect as ws_connect

from tests.support.fake_slack import FakeSlack, serve_fake_slack
from tests.support.slack_requests import (
    block_action_payload,
    event_body,
    form_body,
    interactive_body,
    mention_event,
    sign,
    slash_form,
)
from tests.support.slack_socket_mode import close_socket_mode

SECRET = "test-signing-secret"
BLOCKS = [{"type": "section", "text": {"type": "mrkdwn", "text": "*Attention Is All You Need*"}}]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep real Slack credentials and proxies out of the tests (SLACK_CLIENT_ID/SECRET switch Bolt to OAuth)."""
    for var in (
        "SLACK_BOT_TOKEN",
        "SLACK_APP_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_CLIENT_ID",
        "SLACK_CLIENT_SECRET",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    """A started FakeSlack, stopped after the test; also checks that no server thread survives."""
    yield from serve_fake_slack()
    leftovers = [t.name for t in threading.enumerate() if t.name.startswith("fake-slack")]
    assert not leftovers


@contextmanager
def socket_mode(app: App, fake: FakeSlack, **kwargs: Any) -> Iterator[SocketModeHandler]:
    """Connect ``app`` to the fake over Socket Mode and close it (fast, without reconnecting) afterwards."""
    handler = SocketModeHandler(app, app_token="xapp-test", **kwargs)
    handler.connect()
    try:
        assert fake.socket_connected(timeout=5)
        yield handler
    finally:
        close_socket_mode(handler, fake)


def bolt_app(fake: FakeSlack, **kwargs: Any) -> App:
    """A Bolt app whose WebClient talks to the fake (no auth.test at construction)."""
    return App(client=fake.web_client(), token_verification_enabled=False, **kwargs)


# --------------------------------------------------------------------------- Web API


def test_post_message_with_blocks_is_recorded_and_readable(fake: FakeSlack) -> None:
    client = WebClient(token="xoxb-test", base_url=fake.api_url)
    first = client.chat_postMessage(channel="C1", text="fallback", blocks=BLOCKS)
    second = client.chat_postMessage(channel="C1", text="second")
    client.chat_postMessage(channel="C2", text="elsewhere")

    assert first["ok"]
    assert first["channel"] == "C1"
    assert first["message"]["blocks"] == BLOCKS
    assert first["message"]["bot_id"] == "BBOT"
    assert float(second["ts"]) > float(first["ts"])
    assert len(first["ts"].split(".")[1]) == 6
    assert [p["text"] for p in fake.posts()] == ["fallback", "second", "elsewhere"]
    assert fake.posts("C1")[0]["blocks"] == BLOCKS
    call = fake.calls("chat.postMessage")[0]
    # slack_sdk sends chat.* as JSON
    assert call.headers["content-type"].startswith("application/json")
    assert call.token == "xoxb-test"
    assert call.ok
    assert call.status == 200

    # GET-style: params travel in the query string
    history = client.conversations_history(channel="C1")
    assert [m["text"] for m in history["messages"]] == ["second", "fallback"]  # newest first
    assert client.conversations_history(channel="C1", limit=1)["has_more"] is True
    assert client.conversations_history(channel="C1", oldest=first["ts"])["messages"][0]["ts"] == second["ts"]
    inclusive = client.conversations_history(channel="C1", oldest=first["ts"], inclusive=True)
    assert len(inclusive["messages"]) == 2
    assert client.conversations_history(channel="C1", latest=first["ts"])["messages"] == []
    assert fake.calls("conversations.history")[0].params == {"channel": "C1"}


def test_form_encoded_blocks_string_is_decoded(fake: FakeSlack) -> None:
    client = fake.web_client()
    client.api_call("chat.postMessage", params={"channel": "C1", "text": "t", "blocks": json.dumps(BLOCKS)})
    call = fake.calls("chat.postMessage")[0]
    assert call.headers["content-type"] == "application/x-www-form-urlencoded"
    assert call.params["blocks"] == BLOCKS


def test_rate_limit_then_success_through_retry_handler(fake: FakeSlack) -> None:
    fake.fail_next("chat.postMessage", "ratelimited", retry_after=1)
    client = fake.web_client(retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)])
    # Waits the Retry-After second, then retries
    resp = client.chat_postMessage(channel="C1", text="digest")
    assert resp["ok"]
    calls = fake.calls("chat.postMessage")
    assert [(c.status, c.ok, c.injected) for c in calls] == [(429, False, True), (200, True, False)]
    assert len(fake.posts()) == 1


def test_rate_limit_without_retry_handler_raises_with_retry_after(fake: FakeSlack) -> None:
    fake.fail_next("chat.postMessage", retry_after=7)
    with pytest.raises(SlackApiError) as err:
        fake.web_client().chat_postMessage(channel="C1", text="x")
    assert err.value.response.status_code == 429
    assert err.value.response.headers["Retry-After"] == "7"
    assert err.value.response["error"] == "ratelimited"
    assert fake.posts() == []


def test_wrong_token_is_invalid_auth(fake: FakeSlack) -> None:
    with pytest.raises(SlackApiError) as err:
        WebClient(token="xoxb-wrong", base_url=fake.api_url).chat_postMessage(channel="C1", text="x")
    assert err.value.response["error"] == "invalid_auth"
    with pytest.raises(SlackApiError):
        WebClient(base_url=fake.api_url).auth_test()
    assert [c.error for c in fake.calls()] == ["invalid_auth", "invalid_auth"]


def test_token_types_are_checked(fake: FakeSlack) -> None:
    with pytest.raises(SlackApiError) as err:
        fake.web_client().apps_connections_open(app_token="xoxb-test")
    assert err.value.response["error"] == "not_allowed_token_type"
    with pytest.raises(SlackApiError) as err:
        fake.web_client(token="xapp-test").chat_postMessage(channel="C1", text="x")
    assert err.value.response["error"] == "not_allowed_token_type"
    url = fake.web_client().apps_connections_open(app_token="xapp-test")["url"]
    assert url.startswith(fake.ws_url + "/?ticket=")


def test_auth_test_identity_and_scopes(fake: FakeSlack) -> None:
    resp = fake.web_client().auth_test()
    assert (resp["user_id"], resp["bot_id"], resp["team_id"], resp["user"]) == ("UBOT", "BBOT", "T1", "icml-bot")
    assert "chat:write" in resp.headers["x-oauth-scopes"]


@pytest.mark.parametrize("error", ["channel_not_found", "not_in_channel", "invalid_auth"])
def test_slack_errors_are_http_200_ok_false(fake: FakeSlack, error: str) -> None:
    fake.fail_next("chat.postMessage", error)
    with pytest.raises(SlackApiError) as err:
        fake.web_client().chat_postMessage(channel="C1", text="x")
    assert err.value.response.status_code == 200
    assert err.value.response["error"] == error
    (call,) = fake.calls("chat.postMessage")
    assert not call.ok
    assert call.injected
    assert call.error == error
    # Only the next call failed
    assert fake.web_client().chat_postMessage(channel="C1", text="again")["ok"]


def test_http_500_and_wildcard(fake: FakeSlack) -> None:
    fake.fail_next("*", "internal_error", status=500, times=2)
    client = fake.web_client()
    for _ in range(2):
        with pytest.raises(SlackApiError) as err:
            client.conversations_info(channel="C1")
        assert err.value.response.status_code == 500
    assert client.conversations_info(channel="C1")["channel"]["is_member"] is True


def test_delay_makes_the_client_time_out_but_slack_still_posts(fake: FakeSlack) -> None:
    fake.delay_next("chat.postMessage", 0.5)
    with pytest.raises(TimeoutError):
        fake.web_client(timeout=0.1).chat_postMessage(channel="C1", text="slow")
    (call,) = fake.wait_for("chat.postMessage", timeout=3)
    assert call.delayed == 0.5
    assert call.ok
    # Like Slack: a client timeout doesn't unpost it
    assert [p["text"] for p in fake.posts()] == ["slow"]


def test_a_held_call_is_in_flight_until_released(fake: FakeSlack) -> None:
    slack_answers = fake.hold_next("chat.postMessage")
    answers: list[Any] = []
    poster = threading.Thread(target=lambda: answers.append(fake.web_client().chat_postMessage(channel="C1", text="x")))
    poster.start()
    fake.wait_arrived("chat.postMessage")
    assert fake.arrived("chat.postMessage") == 1
    assert fake.calls() == []  # it arrived, and is not answered yet
    slack_answers.set()
    poster.join(timeout=10)
    assert [a["ok"] for a in answers] == [True]
    assert [p["text"] for p in fake.posts()] == ["x"]
    fake.web_client().chat_postMessage(channel="C1", text="y")  # only the next call was held
    assert fake.arrived("chat.postMessage") == 2


def test_a_hold_for_one_channel_lets_posts_to_other_channels_through(fake: FakeSlack) -> None:
    slack_answers = fake.hold_next("chat.postMessage", channel="C2")
    fake.delay_next("chat.postMessage", 5.0, channel="C3")
    # Answered at once: neither is used up
    fake.web_client().chat_postMessage(channel="C1", text="other")
    answers: list[Any] = []
    poster = threading.Thread(target=lambda: answers.append(fake.web_client().chat_postMessage(channel="C2", text="x")))
    poster.start()
    fake.wait_arrived("chat.postMessage", channel="C2")
    assert (fake.arrived("chat.postMessage"), fake.arrived("chat.postMessage", "C2")) == (2, 1)
    assert [p["text"] for p in fake.posts()] == ["other"]  # the C2 post is in flight
    slack_answers.set()
    poster.join(timeout=10)
    assert [a["ok"] for a in answers] == [True]
    held = [(c.params["text"], c.delayed > 0) for c in fake.calls("chat.postMessage")]
    assert held == [("other", False), ("x", True)]


def test_stopping_answers_calls_still_held() -> None:
    fake = FakeSlack().start()
    fake.hold_next("chat.postMessage")
    poster = threading.Thread(target=lambda: fake.web_client().chat_postMessage(channel="C1", text="x"))
    poster.start()
    fake.wait_arrived("chat.postMessage")
    fake.stop()
    poster.join(timeout=10)
    assert not poster.is_alive()
    assert [c.ok for c in fake.calls("chat.postMessage")] == [True]


def test_threads_replies_and_history(fake: FakeSlack) -> None:
    fake.set_thread(
        "C1",
        "1700000000.000100",
        [
            {"user": "U1", "text": "<@UBOT> what is new in diffusion?"},
            {"user": "U2", "text": "me too", "ts": "1700000001.000100"},
        ],
    )
    client = fake.web_client()
    client.chat_postMessage(channel="C1", text="Here you go", thread_ts="1700000000.000100")
    replies = client.conversations_replies(channel="C1", ts="1700000000.000100")["messages"]
    assert [m["text"] for m in replies] == ["<@UBOT> what is new in diffusion?", "me too", "Here you go"]
    assert replies[0]["reply_count"] == 1
    assert all(m["thread_ts"] == "1700000000.000100" for m in replies)
    history = client.conversations_history(channel="C1")["messages"]
    # replies stay in the thread
    assert [m["text"] for m in history] == ["<@UBOT> what is new in diffusion?"]
    with pytest.raises(SlackApiError) as err:
        client.conversations_replies(channel="C1", ts="1.2")
    assert err.value.response["error"] == "thread_not_found"


def test_ephemeral_update_and_channel_info(fake: FakeSlack) -> None:
    client = fake.web_client()
    assert client.chat_postEphemeral(channel="C1", user="U1", text="only you")["message_ts"]
    posted = client.chat_postMessage(channel="C1", text="v1")
    updated = client.chat_update(channel="C1", ts=posted["ts"], text="v2")
    assert updated["message"]["text"] == "v2"
    assert [m["text"] for m in client.conversations_history(channel="C1")["messages"]] == ["v2"]
    assert fake.ephemerals()[0]["user"] == "U1"
    assert fake.updates()[0]["text"] == "v2"
    fake.set_channel("C9", name="icml", is_member=False)
    info = client.conversations_info(channel="C9")["channel"]
    assert (info["id"], info["name"], info["is_member"]) == ("C9", "icml", False)
    # Anything else: ok
    assert client.reactions_add(channel="C1", timestamp=posted["ts"], name="eyes")["ok"]


def test_posting_where_the_bot_is_not_a_member_fails_as_slack_does(fake: FakeSlack) -> None:
    client = fake.web_client()
    fake.set_channel("C9", is_member=False)
    fake.set_channel("G9", is_member=False, is_private=True)
    for channel, error in (("C9", "not_in_channel"), ("G9", "channel_not_found")):
        with pytest.raises(SlackApiError) as err:
            client.chat_postMessage(channel=channel, text="hello")
        assert err.value.response["error"] == error
    assert client.chat_postMessage(channel="D7", text="a DM needs no membership")["ok"]
    assert client.chat_postMessage(channel="C1", text="a member")["ok"]


def test_views_open_opens_one_modal_per_trigger(fake: FakeSlack) -> None:
    client = fake.web_client()
    view = {"type": "modal", "title": {"type": "plain_text", "text": "Find related papers"}, "blocks": BLOCKS}
    opened = client.views_open(trigger_id="123.456.abc", view=view)
    assert opened["view"]["id"].startswith("V")
    assert fake.modals() == [view]
    with pytest.raises(SlackApiError) as err:
        client.views_open(trigger_id="123.456.abc", view=view)
    assert err.value.response["error"] == "exchanged_trigger_id"
    long_title = {**view, "title": {"type": "plain_text", "text": "A title longer than Slack allows"}}
    with pytest.raises(SlackApiError) as err:
        client.views_open(trigger_id="123.456.def", view=long_title)
    assert err.value.response["error"] == "invalid_arguments"


def test_app_can_check_whether_it_already_posted(fake: FakeSlack) -> None:
    clock = [1_700_000_000.0]
    with FakeSlack(clock=lambda: clock[0]) as timed:
        client = timed.web_client()
        assert client.chat_postMessage(channel="C1", text="digest day 1")["ts"] == "1700000000.000000"
        clock[0] += 86_400
        midnight = str(clock[0] - 3600)
        assert client.conversations_history(channel="C1", oldest=midnight)["messages"] == []
        client.chat_postMessage(channel="C1", text="digest day 2")
        assert [m["text"] for m in client.conversations_history(channel="C1", oldest=midnight)["messages"]] == [
            "digest day 2"
        ]


# --------------------------------------------------------------------------- response_url


def test_webhook_client_response_url_is_recorded(fake: FakeSlack) -> None:
    hook = WebhookClient(fake.response_url("x"))
    resp = hook.send(text="Results", blocks=BLOCKS, response_type="in_channel")
    assert (resp.status_code, resp.body) == (200, "ok")
    assert fake.responses("x") == [{"text": "Results", "blocks": BLOCKS, "response_type": "in_channel"}]
    assert fake.responses("other") == []

    fake.fail_response("x", status=404, body="expired_url")
    resp = hook.send(text="late")
    assert (resp.status_code, resp.body) == (404, "expired_url")  # WebhookClient does not raise
    fake.fail_response(status=500, body="internal_error")
    assert hook.send(text="boom").status_code == 500
    assert len(fake.responses()) == 1
    assert len(fake.calls("response")) == 3


def test_response_url_allows_five_uses(fake: FakeSlack) -> None:
    hook = WebhookClient(fake.response_url("r"))
    assert [hook.send(text=str(i)).status_code for i in range(6)] == [200] * 5 + [404]
    assert len(fake.responses("r")) == 5


def test_wait_for_times_out_with_what_was_received(fake: FakeSlack) -> None:
    fake.web_client().chat_postMessage(channel="C1", text="hello")
    with pytest.raises(AssertionError, match=r"chat\.postMessage status=200"):
        fake.wait_for("response", timeout=0.2)
    assert fake.wait_for(lambda c: c.params.get("text") == "hello")[0].method == "chat.postMessage"
    fake.reset()
    assert fake.calls() == []
    assert fake.posts() == []


# --------------------------------------------------------------------------- request helpers with Bolt (HTTP mode)


def test_sign_matches_slack_sdk_verifier() -> None:
    body = form_body(slash_form("diffusion"))
    headers = sign(SECRET, body, timestamp=int(time.time()))
    verifier = SignatureVerifier(SECRET)
    assert verifier.is_valid(body, headers["X-Slack-Request-Timestamp"], headers["X-Slack-Signature"])
    old = sign(SECRET, body, timestamp=int(time.time()) - 301)
    assert not verifier.is_valid(body, old["X-Slack-Request-Timestamp"], old["X-Slack-Signature"])


def _signed(body: bytes, content_type: str) -> BoltRequest:
    headers: dict[str, str | Sequence[str]] = {k.lower(): v for k, v in sign(SECRET, body).items()}
    headers["content-type"] = content_type
    return BoltRequest(body=body.decode("utf-8"), headers=headers)


def test_helpers_dispatch_through_bolt_http_mode(fake: FakeSlack) -> None:
    app = bolt_app(fake, signing_secret=SECRET, process_before_response=True)
    seen: dict[str, Any] = {}

    @app.command("/icml")
    def icml(ack: Any, respond: Any, command: dict[str, Any]) -> None:
        seen["command"] = command
        ack()
        respond(text=f"Results for {command['text']}")

    @app.action("more")
    def more(ack: Any, respond: Any, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        seen["action"] = action
        respond(text="more", replace_original=False)

    @app.event("app_mention")
    def mention(event: dict[str, Any], say: Any) -> None:
        say(text="hi", thread_ts=event.get("thread_ts") or event["ts"])

    form = slash_form("diffusion models", response_url=fake.response_url("cmd"))
    resp = app.dispatch(_signed(form_body(form), "application/x-www-form-urlencoded"))
    assert resp.status == 200
    assert set(seen["command"]) == set(form)
    assert fake.responses("cmd") == [{"text": "Results for diffusion models"}]

    payload = block_action_payload("more", "page-2", response_url=fake.response_url("btn"))
    resp = app.dispatch(_signed(interactive_body(payload), "application/x-www-form-urlencoded"))
    assert resp.status == 200
    assert seen["action"]["value"] == "page-2"
    assert fake.responses("btn") == [{"text": "more", "replace_original": False}]

    event = mention_event("hello", thread_ts="1700000000.000100")
    resp = app.dispatch(_signed(json.dumps(event_body(event)).encode(), "application/json"))
    assert resp.status == 200
    (post,) = fake.wait_for("chat.postMessage")
    assert post.params["thread_ts"] == "1700000000.000100"
    assert fake.calls("auth.test")  # token_verification_enabled=False: auth.test happens lazily


# --------------------------------------------------------------------------- Socket Mode


def test_raw_websocket_client_sees_hello_and_envelopes(fake: FakeSlack) -> None:
    url = fake.web_client().apps_connections_open(app_token="xapp-test")["url"]
    with ws_connect(url, open_timeout=5) as ws:
        hello = json.loads(ws.recv(timeout=5))
        assert hello["type"] == "hello"
        assert hello["connection_info"] == {"app_id": "A1"}
        assert hello["num_connections"] == 1
        assert "debug_info" in hello
        assert fake.socket_connected(timeout=5)

        eid = fake.socket_send("slash_commands", slash_form("x"))
        envelope = json.loads(ws.recv(timeout=5))
        assert envelope["envelope_id"] == eid
        assert envelope["accepts_response_payload"] is True
        assert envelope["type"] == "slash_commands"
        assert "retry_attempt" not in envelope
        ws.send(json.dumps({"envelope_id": eid, "payload": {"text": "ok"}}))
        assert fake.socket_ack(eid) == {"envelope_id": eid, "payload": {"text": "ok"}}

        eid = fake.socket_send("events_api", event_body(mention_event("hi")), retry_attempt=2, retry_reason="timeout")
        envelope = json.loads(ws.recv(timeout=5))
        assert envelope["accepts_response_payload"] is False
        assert (envelope["retry_attempt"], envelope["retry_reason"]) == (2, "timeout")
        with pytest.raises(AssertionError, match="no ack"):
            fake.socket_ack(eid, timeout=0.1)
    assert fake.socket_closed(timeout=5)
    assert fake.socket_connection_count == 1


def test_bolt_socket_mode_slash_command_ack_and_retry(fake: FakeSlack) -> None:
    app = bolt_app(fake)
    retry_headers: list[Any] = []

    @app.command("/icml")
    def icml(ack: Any, respond: Any, command: dict[str, Any], request: Any) -> None:
        retry_headers.append(request.headers.get("x-slack-retry-num"))
        ack(text="Searching…")
        respond(text=f"Results for {command['text']}")

    with socket_mode(app, fake):
        assert fake.calls("apps.connections.open")[0].token == "xapp-test"
        form = slash_form("diffusion", response_url=fake.response_url("r1"))
        eid = fake.socket_send("slash_commands", form)
        ack = fake.socket_ack(eid, timeout=5)
        assert ack == {"envelope_id": eid, "payload": {"text": "Searching…"}}
        fake.wait_for("response")
        assert fake.responses("r1") == [{"text": "Results for diffusion"}]

        eid = fake.socket_send("slash_commands", form, retry_attempt=1, retry_reason="timeout")
        assert fake.socket_ack(eid, timeout=5)["payload"] == {"text": "Searching…"}
        assert retry_headers == [None, ["1"]]


def test_bolt_socket_mode_events_and_reconnect(fake: FakeSlack) -> None:
    app = bolt_app(fake)
    retries: list[Any] = []

    @app.event("app_mention")
    def mention(event: dict[str, Any], say: Any, request: Any) -> None:
        retries.append(request.headers.get("x-slack-retry-num"))
        say(text=f"echo {event['text']}", thread_ts=event.get("thread_ts") or event["ts"])

    with socket_mode(app, fake):
        eid = fake.socket_send("events_api", event_body(mention_event("one")))
        assert fake.socket_ack(eid) == {"envelope_id": eid}  # events are acked without a payload
        fake.wait_for("chat.postMessage")

        # Slack's routine refresh: client opens a new URL at once
        fake.socket_disconnect("refresh_requested")
        assert fake.socket_connected(timeout=5, count=2)
        assert len(fake.calls("apps.connections.open")) == 2
        # The built-in client switches readers only after its 3 s receive timeout on the old socket.
        eid = fake.socket_send("events_api", event_body(mention_event("two")))
        assert fake.socket_ack(eid, timeout=8) == {"envelope_id": eid}
        fake.wait_for("chat.postMessage", count=2)
    # Socket Mode events always carry retry_attempt, so the header is "0"
    assert retries == [["0"], ["0"]]
    assert [p["text"] for p in fake.posts()] == ["echo <@UBOT> one", "echo <@UBOT> two"]


def test_bolt_socket_mode_reconnects_after_server_close(fake: FakeSlack) -> None:
    app = bolt_app(fake)

    @app.command("/icml")
    def icml(ack: Any) -> None:
        ack("pong")

    # The client only notices a server-side close via its monitor, which runs every ping_interval seconds.
    with socket_mode(app, fake, ping_interval=0.5):
        fake.socket_drop()
        assert fake.socket_connected(timeout=5, count=2)
        eid = fake.socket_send("slash_commands", slash_form("ping"))
        assert fake.socket_ack(eid, timeout=8)["payload"] == {"text": "pong"}


# ---------------------------------------------------------------------- opt-in: rate limits, an unreachable Slack


class _Seconds:
    """A clock for the rate limits that a test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_rate_limits_are_off_unless_enabled(fake: FakeSlack) -> None:
    client = fake.web_client()
    for n in range(12):
        assert client.chat_postMessage(channel="C1", text=f"burst {n}")["ok"]
    assert len(fake.posts("C1")) == 12


def test_a_channel_takes_about_one_message_a_second_and_a_refused_one_is_not_posted(fake: FakeSlack) -> None:
    clock = _Seconds()
    fake.limits.enable(clock=clock)
    client = fake.web_client()
    assert client.chat_postMessage(channel="C1", text="one")["ok"]
    assert client.chat_postMessage(channel="C1", text="two")["ok"]  # a short burst is tolerated
    with pytest.raises(SlackApiError) as err:
        client.chat_postMessage(channel="C1", text="three")
    assert err.value.response.status_code == 429
    assert err.value.response.headers["Retry-After"] == "1"
    assert err.value.response["error"] == "ratelimited"
    # Another channel has its own second
    assert client.chat_postMessage(channel="C2", text="elsewhere")["ok"]
    clock.now += 1.0
    assert client.chat_postMessage(channel="C1", text="three, later")["ok"]
    assert [p["text"] for p in fake.posts("C1")] == ["one", "two", "three, later"]
    assert fake.limits.refused == {"chat.postMessage": 1}


def test_a_workspace_has_a_burst_limit_across_its_channels_and_each_workspace_its_own(fake: FakeSlack) -> None:
    clock = _Seconds()
    fake.limits.enable(clock=clock)
    client = fake.web_client()
    for n in range(10):
        assert client.chat_postMessage(channel=f"C{n}", text="digest")["ok"]
    with pytest.raises(SlackApiError) as err:
        client.chat_postMessage(channel="C10", text="digest")
    assert err.value.response.status_code == 429
    other = fake.web_client(token=fake.oauth.installed("T2"))
    assert other.chat_postMessage(channel="C11", text="digest")["ok"]  # another workspace's budget
    clock.now += 0.2  # 300 a minute
    assert client.chat_postMessage(channel="C10", text="digest")["ok"]


def test_views_publish_is_limited_by_its_tier_per_workspace(fake: FakeSlack) -> None:
    clock = _Seconds()
    fake.limits.enable(clock=clock)
    client = fake.web_client()
    view = {"type": "home", "blocks": BLOCKS}
    for n in range(20):
        assert client.views_publish(user_id=f"U{n}", view=view)["ok"]
    with pytest.raises(SlackApiError) as err:
        client.views_publish(user_id="U99", view=view)
    assert (err.value.response.status_code, err.value.response.headers["Retry-After"]) == (429, "1")
    clock.now += 0.6  # Tier 4: 100 a minute
    assert client.views_publish(user_id="U99", view=view)["ok"]


def test_an_unreachable_slack_refuses_connections_until_it_is_back(fake: FakeSlack) -> None:
    client = fake.web_client()
    # Its connection's leftovers hold the port
    assert client.chat_postMessage(channel="C1", text="before")["ok"]
    fake.offline()
    with pytest.raises(URLError) as err:
        client.chat_postMessage(channel="C1", text="lost?")
    assert isinstance(err.value.reason, ConnectionRefusedError)
    fake.online()
    assert client.chat_postMessage(channel="C1", text="back")["ok"]  # the same URL
    assert [p["text"] for p in fake.posts("C1")] == ["before", "back"]


def test_a_5xx_may_come_after_slack_posted_the_message(fake: FakeSlack) -> None:
    fake.fail_next("chat.postMessage", "internal_error", status=500, carried_out=True)
    with pytest.raises(SlackApiError) as err:
        fake.web_client().chat_postMessage(channel="C1", text="there anyway")
    assert err.value.response.status_code == 500
    # No successful call, but the message is in the channel
    assert fake.posts("C1") == []
    assert [m["text"] for m in fake.history("C1")] == ["there anyway"]
