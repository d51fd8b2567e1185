"""The app in Socket Mode (the default deployment), end to end against the fake Slack's WebSocket server."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import wiring
from bot.config import Config, ConfigError
from bot.serve.socket_mode import start_socket_mode
from bot.slack import blocks
from bot.slack.app import build_app
from tests.support import block_checks
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import VEGAS
from tests.support.slack_harness import buttons, slack_config, socket_mode_app, texts
from tests.support.slack_requests import block_action_payload, event_body, mention_event, slash_form


@pytest.fixture
def config(fake: FakeSlack, slack_index_path: Path, tmp_path: Path) -> Config:
    return slack_config(fake, slack_index_path, tmp_path / "state.db", signing_secret="")


def test_slash_command_is_acked_with_the_results(fake: FakeSlack, config: Config) -> None:
    with socket_mode_app(fake, config):
        assert fake.calls("apps.connections.open")[0].token == "xapp-test"
        envelope = fake.socket_send("slash_commands", slash_form("speculative decoding"))
        ack = fake.socket_ack(envelope)
    payload = ack["payload"]
    assert payload["response_type"] == "ephemeral"
    assert "*Vegas: A self-speculative decoding method with verification-guided sparse attention*" in texts(payload)
    assert block_checks.problems(payload) == []


def test_mentions_reply_in_thread_once_even_when_redelivered(fake: FakeSlack, config: Config) -> None:
    body = event_body(mention_event("kv cache", ts="1700000000.000100"), event_id="EvSocket1")
    with socket_mode_app(fake, config):
        first = fake.socket_send("events_api", body)
        assert fake.socket_ack(first) == {"envelope_id": first}
        (post,) = fake.wait_for("chat.postMessage")
        again = fake.socket_send("events_api", body, retry_attempt=1, retry_reason="timeout")
        # Acked, so Slack stops redelivering
        assert fake.socket_ack(again) == {"envelope_id": again}
        fake.socket_send("events_api", event_body(mention_event("sentinel", ts="1700000001.000100")))
        fake.wait_for("chat.postMessage", count=2)
    assert post.params["thread_ts"] == "1700000000.000100"
    assert [p["thread_ts"] for p in fake.posts()] == ["1700000000.000100", "1700000001.000100"]


def test_redelivery_after_a_reconnect_of_a_new_process_is_dropped(fake: FakeSlack, config: Config) -> None:
    body = event_body(mention_event("kv cache"), event_id="EvSocket2")
    with socket_mode_app(fake, config):
        fake.socket_ack(fake.socket_send("events_api", body))
        fake.wait_for("chat.postMessage")
    with socket_mode_app(fake, config):  # same state file, new app: as after a restart
        fake.socket_ack(fake.socket_send("events_api", body, retry_attempt=2, retry_reason="timeout"))
        fake.socket_send("events_api", event_body(mention_event("sentinel")))
        fake.wait_for("chat.postMessage", count=2)
    assert len(fake.posts()) == 2


def test_buttons_answer_through_the_response_url(fake: FakeSlack, config: Config) -> None:
    payload = block_action_payload(blocks.ACTION_SHARE, VEGAS, user_id="U9", response_url=fake.response_url("b"))
    with socket_mode_app(fake, config):
        envelope = fake.socket_send("interactive", payload)
        assert fake.socket_ack(envelope) == {"envelope_id": envelope}
        (call,) = fake.wait_for("response")
    assert call.params["response_type"] == "in_channel"
    assert "Shared by <@U9>" in texts(call.params)
    assert [b["text"]["text"] for b in buttons(call.params)] == ["Similar", "Abstract", "Save", "Add to channel list"]


def test_a_rejected_app_token_is_one_line_naming_the_variable(fake: FakeSlack, config: Config) -> None:
    bad = slack_config(fake, config.db_path, config.state_path, app_token="xapp-1-revoked")
    app = build_app(bad, wiring.build(bad).services)
    with pytest.raises(ConfigError) as err:
        start_socket_mode(app, bad)
    message = str(err.value)
    assert message.startswith("SLACK_APP_TOKEN was rejected by Slack (invalid_auth).")
    assert "Basic Information → App-Level Tokens" in message
    assert "xapp-1-revoked" not in message
