"""Checks on a built Slack message: Slack's size limits and our escaping rules, for tests and benchmarks.

`problems(msg)` lists every way a message breaks them (empty when Slack will accept it); tests/support/robust.py's
`message_problems` adds slack_sdk's own model checks and the mention rules on top.
"""

from __future__ import annotations

import re
from typing import Any

from bot.slack.blocks import (
    MAX_ACTION_ID,
    MAX_ACTIONS_ELEMENTS,
    MAX_BLOCKS,
    MAX_BUTTON_TEXT,
    MAX_BUTTON_VALUE,
    MAX_CONTEXT_ELEMENTS,
    MAX_HEADER_TEXT,
    MAX_SECTION_TEXT,
    MAX_TEXT_OBJECT,
    Message,
)

__all__ = ["problems", "unsafe_markup"]


def problems(msg: Message) -> list[str]:
    """Every way `msg` breaks Slack's limits or our escaping rules; empty when Slack will accept it."""
    found: list[str] = []
    blocks = msg.get("blocks") or []
    if not msg.get("text"):
        found.append("no fallback text")
    if len(blocks) > MAX_BLOCKS:
        found.append(f"{len(blocks)} blocks > {MAX_BLOCKS}")
    for i, block in enumerate(blocks):
        kind = block.get("type")
        texts: list[dict[str, Any]] = []
        if kind == "section":
            texts.append(block["text"])
            if len(block["text"]["text"]) > MAX_SECTION_TEXT:
                found.append(f"block {i}: section text {len(block['text']['text'])} > {MAX_SECTION_TEXT}")
            if block.get("accessory"):
                found.extend(_element_problems(i, block["accessory"]))
        elif kind == "header":
            if block["text"]["type"] != "plain_text" or len(block["text"]["text"]) > MAX_HEADER_TEXT:
                found.append(f"block {i}: bad header")
        elif kind == "context":
            if not 0 < len(block["elements"]) <= MAX_CONTEXT_ELEMENTS:
                found.append(f"block {i}: {len(block['elements'])} context elements")
            texts.extend(block["elements"])
        elif kind == "actions":
            if not 0 < len(block["elements"]) <= MAX_ACTIONS_ELEMENTS:
                found.append(f"block {i}: {len(block['elements'])} actions elements")
            for element in block["elements"]:
                found.extend(_element_problems(i, element))
        for text in texts:
            if len(text["text"]) > MAX_TEXT_OBJECT:
                found.append(f"block {i}: text object too long")
            if text["type"] == "mrkdwn":
                found.extend(f"block {i}: unsafe markup {m!r}" for m in unsafe_markup(text["text"]))
    return found


def _element_problems(i: int, element: dict[str, Any]) -> list[str]:
    found = []
    if element.get("type") == "button":
        if len(element["text"]["text"]) > MAX_BUTTON_TEXT:
            found.append(f"block {i}: button text > {MAX_BUTTON_TEXT}")
        if len(element.get("value", "")) > MAX_BUTTON_VALUE:
            found.append(f"block {i}: button value > {MAX_BUTTON_VALUE}")
        if len(element.get("action_id", "")) > MAX_ACTION_ID:
            found.append(f"block {i}: action_id > {MAX_ACTION_ID}")
    return found


_MARKUP = re.compile(r"<([^>]*)>")
_ALLOWED_MARKUP = re.compile(r"^(https?://[^|\s]+(\|[^|]*)?|@[UW][A-Z0-9]+|#[CG][A-Z0-9]+)$")


def unsafe_markup(text: str) -> list[str]:
    """Slack `<…>` sequences in mrkdwn other than the http(s) links, user and channel mentions we build ourselves."""
    return [m.group(0) for m in _MARKUP.finditer(text) if not _ALLOWED_MARKUP.match(m.group(1))]
