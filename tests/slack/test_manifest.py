"""manifest.yml is valid for Slack and declares exactly what the app listens to."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.slack import app as slack_app
from bot.slack import commands, oauth
from tests.support.fake_slack import FakeSlack
from tests.support.paths import ROOT, SHARED
from tests.support.seed_ids import DEFENSIVE_KV
from tests.support.slack_calls import Call
from tests.support.slack_harness import SlackHttp
from tests.support.slack_requests import block_action_payload, mention_event
from tests.support.slack_shortcuts import global_shortcut, message_action

SCHEMA = SHARED / "slack" / "manifest.schema.1.0.0.json"


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "manifest.yml").read_text(encoding="utf-8"))
    return loaded


def test_manifest_matches_slacks_schema(manifest: dict[str, Any]) -> None:
    if not SCHEMA.exists():
        pytest.skip("../shared/slack/manifest.schema.1.0.0.json is not available")
    import jsonschema

    jsonschema.validate(manifest, json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_manifest_is_socket_mode_with_exactly_the_scopes_needed(manifest: dict[str, Any]) -> None:
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert "request_url" not in manifest["settings"]["event_subscriptions"]
    assert all("url" not in c for c in manifest["features"]["slash_commands"])
    assert sorted(manifest["oauth_config"]["scopes"]["bot"]) == sorted(
        [
            "commands",
            "chat:write",
            "app_mentions:read",
            "channels:history",
            "groups:history",
            "files:write",
            "im:write",
            "links:read",
            "links:write",
            "users:read",
            "channels:read",
            "groups:read",
        ]
    )
    # Every scope carries its reason in a comment right above it.
    lines = (ROOT / "manifest.yml").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("- ") and line.strip()[2:] in manifest["oauth_config"]["scopes"]["bot"]:
            assert lines[i - 1].strip().startswith("#"), f"scope {line.strip()} needs a comment saying why"


def test_manifest_declares_what_the_app_registers(manifest: dict[str, Any]) -> None:
    declared_commands = {c["command"] for c in manifest["features"]["slash_commands"]}
    assert declared_commands == set(slack_app.COMMANDS)
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == set(slack_app.EVENTS)
    assert manifest["settings"]["interactivity"]["is_enabled"] is True  # buttons and shortcuts
    assert slack_app.ACTIONS
    assert slack_app.SHORTCUTS
    declared_shortcuts = {s["callback_id"]: s["type"] for s in manifest["features"]["shortcuts"]}
    assert declared_shortcuts == slack_app.SHORTCUTS
    domains = manifest["features"]["unfurl_domains"]
    assert ("link_shared" in slack_app.EVENTS) is bool(domains)
    assert len(domains) <= 5  # Slack's app settings take at most 5
    assert {"openreview.net", "icml.cc"} <= set(domains)  # where the index's paper links point


def test_usage_hint_names_every_subcommand(manifest: dict[str, Any]) -> None:
    (icml,) = manifest["features"]["slash_commands"]
    for sub in commands.SUBCOMMANDS:
        assert sub.name in icml["usage_hint"], f"add `{sub.name}` to the /icml usage_hint in manifest.yml"


def test_every_declared_listener_answers_through_the_real_app(
    manifest: dict[str, Any], slack_http: SlackHttp, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    for command in manifest["features"]["slash_commands"]:
        reply = slack_http.command("help", command=command["command"])
        assert reply.status == 200, command
        assert f"`{command['command']} help`" in reply.json()["blocks"][0]["text"]["text"], command
    declared = manifest["settings"]["event_subscriptions"]["bot_events"]
    # uninstall/revocation: handled, not answered
    lifecycle = [e for e in declared if e in oauth.LIFECYCLE_EVENTS]
    mentions = [e for e in declared if e not in ("app_home_opened", "link_shared") and e not in lifecycle]
    for n, event_type in enumerate(mentions):
        event = {**mention_event("diffusion", ts=f"1700000000.00010{n}"), "type": event_type}
        assert slack_http.event(event).status == 200
        post = fake.wait_for("chat.postMessage", count=n + 1)[-1]
        assert post.params["thread_ts"] == event["ts"], event_type  # answered in the event's thread
    home = {"type": "app_home_opened", "user": "U7", "channel": "D7", "tab": "home", "event_ts": "1700000001.1"}
    assert slack_http.event(home).status == 200
    assert fake.wait_for("views.publish", ok=True)[-1].params["user_id"] == "U7"
    # A link to no indexed paper: answered, nothing unfurled
    link = "https://openreview.net/forum?id=NotInTheIdx"
    shared = {"type": "link_shared", "channel": "C1", "user": "U1", "message_ts": "1700000002.1", "source": "x",
              "links": [{"domain": "openreview.net", "url": link}]}  # fmt: skip
    assert slack_http.event(shared).status == 200
    for n, action_id in enumerate(slack_app.ACTIONS):
        value = '{"q":"kv cache","o":0}' if action_id == "results_page" else DEFENSIVE_KV
        payload = block_action_payload(action_id, value, response_url=fake.response_url(f"a{n}"))
        assert slack_http.action(payload).status == 200
        # A Home tab button: the answer is the Home view, published again
        if action_id == "home_similar":
            fake.wait_for(
                lambda c: c.method == "views.publish" and "Papers similar to" in json.dumps(c.params), ok=True
            )
            continue

        def answered(c: Call, name: str = f"a{n}") -> bool:
            return c.method == "response" and c.name == name

        fake.wait_for(answered, ok=True)
    for callback_id, kind in ((s["callback_id"], s["type"]) for s in manifest["features"]["shortcuts"]):
        if kind == "message":  # answered in the message's thread
            click = message_action(callback_id, "speculative decoding with a small draft model", ts="1700000300.000300")
            assert slack_http.action(click).status == 200
            fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params.get("thread_ts") == "1700000300.000300")
        else:  # a modal opens for the click
            click = global_shortcut(callback_id)
            assert slack_http.action(click).status == 200
            opened = fake.wait_for("views.open", ok=True)[-1]
            assert opened.params["trigger_id"] == click["trigger_id"]
    unknown = block_action_payload("not_ours", "x", response_url=fake.response_url("zz"))
    assert slack_http.action(unknown).status == 404  # Bolt's answer for an action nobody listens to
    with caplog.at_level(logging.WARNING):
        for event_type in lifecycle:
            assert slack_http.event({"type": event_type, "tokens": {"bot": ["UBOT"]}}).status == 200

        def handled() -> list[str]:  # Bolt's listener loggers are named after the listener
            return sorted(r.funcName for r in caplog.records if r.name.startswith("icml-bot:"))

        deadline = time.monotonic() + 10  # the listeners run after the ack, in Bolt's pool
        while len(handled()) < len(lifecycle) and time.monotonic() < deadline:
            time.sleep(0.02)
    # Single workspace: no token to delete, one line
    assert handled() == ["_single_revoked", "_single_uninstalled"]
    slack_http.drain()
    assert fake.calls("chat.unfurl") == []


def test_schema_path_is_beside_the_repo() -> None:
    assert Path(SCHEMA).parts[-3:] == ("shared", "slack", "manifest.schema.1.0.0.json")
