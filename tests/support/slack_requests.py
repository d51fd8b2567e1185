"""What Slack sends an app, built for tests: signed HTTP bodies, slash-command forms, events and button payloads.

The same dicts go over HTTP (``form_body``/``interactive_body``/``json.dumps(event_body(...))`` signed with ``sign``)
and over Socket Mode (``FakeSlack.socket_send("slash_commands", slash_form(...))``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode

__all__ = [
    "UNSET_RESPONSE_URL",
    "block_action_payload",
    "event_body",
    "form_body",
    "interactive_body",
    "mention_event",
    "sign",
    "slash_form",
]

# Unroutable local default for helpers used without a fake: a POST there fails fast instead of reaching slack.com.
UNSET_RESPONSE_URL = "http://127.0.0.1:9/response/unset"


def sign(secret: str, body: bytes | str, timestamp: int | None = None) -> dict[str, str]:
    """Slack request-signing headers for ``body`` (HMAC-SHA256 of ``v0:{ts}:{body}``)."""
    ts = str(int(time.time()) if timestamp is None else int(timestamp))
    raw = body.encode("utf-8") if isinstance(body, str) else body
    digest = hmac.new(secret.encode("utf-8"), b"v0:" + ts.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return {"X-Slack-Signature": f"v0={digest}", "X-Slack-Request-Timestamp": ts}


def form_body(fields: dict[str, Any]) -> bytes:
    """URL-encode a form (slash command) as Slack sends it."""
    return urlencode(fields).encode("utf-8")


def interactive_body(payload: dict[str, Any]) -> bytes:
    """HTTP body of an interactive request: ``payload=<url-encoded JSON>``."""
    return urlencode({"payload": json.dumps(payload)}).encode("utf-8")


def _trigger_id() -> str:
    n = uuid.uuid4().int
    return f"{n % 10**11}.{n % 10**9}.{uuid.uuid4().hex}"


def slash_form(
    text: str,
    command: str = "/icml",
    user_id: str = "U1",
    channel_id: str = "C1",
    response_url: str = UNSET_RESPONSE_URL,
    **extra: str,
) -> dict[str, str]:
    """The fields Slack sends for a slash command (HTTP form body or Socket Mode payload); ``extra`` overrides."""
    fields = {
        "token": "verification-token",
        "team_id": "T1",
        "team_domain": "icml-test",
        "channel_id": channel_id,
        "channel_name": "general" if channel_id == "C1" else channel_id.lower(),
        "user_id": user_id,
        "user_name": f"user-{user_id.lower()}",
        "command": command,
        "text": text,
        "api_app_id": "A1",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": _trigger_id(),
    }
    fields.update(extra)
    return fields


def mention_event(
    text: str,
    user: str = "U1",
    channel: str = "C1",
    ts: str | None = None,
    thread_ts: str | None = None,
    bot_user_id: str = "UBOT",
) -> dict[str, Any]:
    """An ``app_mention`` event; ``text`` gets ``<@bot_user_id>`` prepended unless it already mentions the bot."""
    ts = ts or f"{time.time():.6f}"
    if f"<@{bot_user_id}>" not in text:
        text = f"<@{bot_user_id}> {text}"
    event: dict[str, Any] = {
        "client_msg_id": str(uuid.uuid4()),
        "type": "app_mention",
        "text": text,
        "user": user,
        "ts": ts,
        "team": "T1",
        "channel": channel,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def event_body(
    event: dict[str, Any],
    event_id: str | None = None,
    team_id: str = "T1",
    api_app_id: str = "A1",
    bot_user_id: str = "UBOT",
) -> dict[str, Any]:
    """The ``event_callback`` envelope Slack sends (HTTP body or Socket Mode events_api payload)."""
    event_ts = event.get("event_ts") or event.get("ts")
    event_time = int(float(event_ts)) if event_ts else int(time.time())
    return {
        "token": "verification-token",
        "team_id": team_id,
        "context_team_id": team_id,
        "context_enterprise_id": None,
        "api_app_id": api_app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or "Ev" + uuid.uuid4().hex[:10].upper(),
        "event_time": event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": "4-" + uuid.uuid4().hex,
    }


def block_action_payload(
    action_id: str,
    value: str,
    user_id: str = "U1",
    channel_id: str = "C1",
    response_url: str = UNSET_RESPONSE_URL,
    message: dict[str, Any] | None = None,
    block_id: str = "actions",
    team_id: str = "T1",
    user_team: str = "",
) -> dict[str, Any]:
    """A realistic ``block_actions`` payload for a button click on ``message`` (a bot message by default).

    `team_id` is the workspace whose installation posted the message, `user_team` the clicker's (default the same);
    they differ in a Slack Connect channel, as Slack sends it (slackapi/java-slack-sdk#1041)."""
    if message is None:
        message = {
            "type": "message",
            "subtype": "bot_message",
            "text": "ICML results",
            "user": "UBOT",
            "bot_id": "BBOT",
            "app_id": "A1",
            "ts": "1700000000.000100",
            "team": team_id,
            "blocks": [],
        }
    return {
        "type": "block_actions",
        "user": {
            "id": user_id,
            "username": f"user-{user_id.lower()}",
            "name": f"user-{user_id.lower()}",
            "team_id": user_team or team_id,
        },
        "api_app_id": "A1",
        "token": "verification-token",
        "container": {
            "type": "message",
            "message_ts": message.get("ts", ""),
            "channel_id": channel_id,
            "is_ephemeral": False,
        },
        "trigger_id": _trigger_id(),
        "team": {"id": team_id, "domain": "icml-test"},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel_id, "name": "general" if channel_id == "C1" else channel_id.lower()},
        "message": message,
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [
            {
                "action_id": action_id,
                "block_id": block_id,
                "text": {"type": "plain_text", "text": "Button", "emoji": True},
                "value": value,
                "type": "button",
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }
