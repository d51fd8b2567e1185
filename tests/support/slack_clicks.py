"""Pressing a button of a message the app sent, as Slack sends the click: on an ephemeral message (no `message` in
the payload), on a channel message (the message's blocks come along) or on the Home tab (a `view` container)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import Reply, SlackHttp, buttons
from tests.support.slack_requests import block_action_payload


def find_button(message: dict[str, Any], label: str, value_has: str = "") -> dict[str, Any]:
    """The first button labelled `label` whose value contains `value_has` (AssertionError naming what there is)."""
    found = [b for b in buttons(message) if b["text"]["text"] == label and value_has in b["value"]]
    there = [(b["text"]["text"], b["value"]) for b in buttons(message)]
    assert found, f"no {label!r} button with {value_has!r}; buttons: {there}"
    return found[0]


def press(
    app: SlackHttp,
    fake: FakeSlack,
    message: dict[str, Any],
    label: str,
    value_has: str = "",
    *,
    user: str = "U1",
    channel: str = "C1",
    team: str = "T1",
    user_team: str = "",
    ephemeral: bool = True,
    name: str = "click",
) -> Reply:
    """Press a button of `message`; the click's response_url is recorded by the fake under `name`.

    `team` is the workspace whose installation posted `message`; `user_team` the clicker's, when it is another
    (a Slack Connect channel)."""
    button = find_button(message, label, value_has)
    payload = block_action_payload(
        button["action_id"],
        button["value"],
        user_id=user,
        channel_id=channel,
        team_id=team,
        user_team=user_team,
        response_url=fake.response_url(name),
        message=None if ephemeral else {**_channel_message(team), "blocks": message.get("blocks") or []},
    )
    if ephemeral:
        payload.pop("message")
        payload["container"] = {"type": "message", "message_ts": "1700000000.000200", "channel_id": channel}
        payload["container"]["is_ephemeral"] = True
    return app.action(payload)


def save_clicker(app: SlackHttp, fake: FakeSlack, results: list[dict[str, Any]]) -> Callable[[int], tuple[int, float]]:
    """Click n (from a flood) presses the Save buttons of these search answers in turn, on the channel message; it
    returns the click's HTTP status and how long the ack took."""
    saves = [(msg, b["value"]) for msg in results for b in buttons(msg) if b["text"]["text"] == "Save"]

    def click(n: int) -> tuple[int, float]:
        msg, value = saves[n % len(saves)]
        started = time.perf_counter()
        reply = press(app, fake, msg, "Save", value, ephemeral=False, name=f"s{n}")
        return reply.status, time.perf_counter() - started

    return click


def press_on_home(app: SlackHttp, view: dict[str, Any], label: str, value_has: str = "", user: str = "U1") -> Reply:
    """Press a button of a published Home view: no response_url, no channel, a `view` container."""
    button = find_button(view, label, value_has)
    payload = block_action_payload(button["action_id"], button["value"], user_id=user)
    for key in ("message", "channel", "response_url"):
        payload.pop(key)
    payload["container"] = {"type": "view", "view_id": f"V{user}"}
    payload["view"] = {"id": f"V{user}", "type": "home", "blocks": view.get("blocks") or []}
    return app.action(payload)


def _channel_message(team: str) -> dict[str, Any]:
    return {
        "type": "message",
        "user": "UBOT",
        "bot_id": "BBOT",
        "app_id": "A1",
        "text": "ICML papers",
        "ts": "1700000000.000100",
        "team": team,
    }
