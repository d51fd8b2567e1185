"""Marked text as Slack shows it (*stars* around Strong pieces), so a test states what is stressed in one line."""

from __future__ import annotations

from typing import Any

from bot import text
from bot.slack.blocks.abstracts import to_mrkdwn
from bot.text.marked import Marked


def starred(text: Marked) -> str:
    """`4 papers by *Mohit Bansal*`: the text with each Strong piece between asterisks."""
    return text.render(lambda piece: f"*{piece}*")


def starred_notes(response: Any) -> list[str]:
    """A search response's notes, starred."""
    return [starred(note) for note in response.notes]


def mrkdwn(raw: str) -> str:
    """A raw title or abstract as Slack shows it: cleaned and stored as the index does, then rendered by the blocks."""
    return to_mrkdwn(*text.to_marked_text(raw))
