"""Search's marked text written with *stars* around its Strong pieces, so a test states what is stressed in one line."""

from __future__ import annotations

from typing import Any

from bot.text.marked import Marked


def starred(text: Marked) -> str:
    """`4 papers by *Mohit Bansal*`: the text with each Strong piece between asterisks."""
    return text.render(lambda piece: f"*{piece}*")


def starred_notes(response: Any) -> list[str]:
    """A search response's notes, starred."""
    return [starred(note) for note in response.notes]
