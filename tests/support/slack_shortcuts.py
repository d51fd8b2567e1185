"""Shortcut payloads as Slack sends them: a message shortcut (`message_action`: the message, its channel, a
response_url and a trigger_id), a global shortcut (`shortcut`: no channel, no response_url) and the submission of a
modal the app opened (`view_submission`, its input's value in `view.state.values`). Send them with
SignedClient.action (form field `payload=`), like button clicks."""

from __future__ import annotations

import time
import uuid
from typing import Any

from tests.support.slack_requests import UNSET_RESPONSE_URL


def _trigger_id() -> str:
    n = uuid.uuid4().int
    return f"{n % 10**11}.{n % 10**9}.{uuid.uuid4().hex}"


def _user(user_id: str, team_id: str) -> dict[str, Any]:
    return {"id": user_id, "username": f"user-{user_id.lower()}", "name": f"user-{user_id.lower()}", "team_id": team_id}


def message_action(
    callback_id: str,
    text: str,
    *,
    user_id: str = "U1",
    channel_id: str = "C1",
    team_id: str = "T1",
    user_team_id: str | None = None,
    author: str = "U2",
    ts: str = "1700000100.000100",
    thread_ts: str | None = None,
    response_url: str = UNSET_RESPONSE_URL,
) -> dict[str, Any]:
    """A message shortcut clicked by `user_id` (of workspace `user_team_id`, default `team_id`) on `author`'s
    message `text` in `channel_id`; `team_id` is the workspace whose installation gets the payload."""
    message: dict[str, Any] = {
        "client_msg_id": str(uuid.uuid4()),
        "type": "message",
        "text": text,
        "user": author,
        "ts": ts,
        "team": user_team_id or team_id,
        "blocks": [
            {
                "type": "rich_text",
                "block_id": "b1",
                "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}],
            }
        ],
    }
    if thread_ts:
        message["thread_ts"] = thread_ts
    return {
        "type": "message_action",
        "token": "verification-token",
        "action_ts": f"{time.time():.6f}",
        "team": {"id": team_id, "domain": "icml-test"},
        "user": _user(user_id, user_team_id or team_id),
        "channel": {"id": channel_id, "name": "general" if channel_id == "C1" else channel_id.lower()},
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": callback_id,
        "trigger_id": _trigger_id(),
        "response_url": response_url,
        "message_ts": ts,
        "message": message,
    }


def global_shortcut(
    callback_id: str, *, user_id: str = "U1", team_id: str = "T1", user_team_id: str | None = None
) -> dict[str, Any]:
    """A global shortcut (the shortcuts menu): no channel, no message, no response_url."""
    return {
        "type": "shortcut",
        "token": "verification-token",
        "action_ts": f"{time.time():.6f}",
        "team": {"id": team_id, "domain": "icml-test"},
        "user": _user(user_id, user_team_id or team_id),
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": callback_id,
        "trigger_id": _trigger_id(),
    }


def view_submission(
    view: dict[str, Any],
    values: dict[str, str],
    *,
    user_id: str = "U1",
    team_id: str = "T1",
    user_team_id: str | None = None,
) -> dict[str, Any]:
    """The submission of a modal the app opened (`view` as views.open sent it), each input block's plain-text value
    from `values` (block_id → text, the action_id being the block_id's single input)."""
    state = {
        block["block_id"]: {
            block["element"]["action_id"]: {"type": "plain_text_input", "value": values[block["block_id"]]}
        }
        for block in view.get("blocks") or []
        if block.get("type") == "input" and block["block_id"] in values
    }
    return {
        "type": "view_submission",
        "team": {"id": team_id, "domain": "icml-test"},
        "user": _user(user_id, user_team_id or team_id),
        "api_app_id": "A1",
        "token": "verification-token",
        "trigger_id": _trigger_id(),
        "view": {
            "id": "V00000001",
            "team_id": team_id,
            "app_installed_team_id": team_id,
            "bot_id": "BBOT",
            "hash": uuid.uuid4().hex,
            "previous_view_id": None,
            "root_view_id": "V00000001",
            **view,
            "state": {"values": state},
        },
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }
