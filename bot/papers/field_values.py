"""Source field values made uniform: author and keyword lists, statuses, schedules, links, optional text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bot import text
from bot.papers import venues
from bot.text.controls import drop_controls

_STATUS = re.compile(r"\b(oral|spotlight|poster)\b", re.IGNORECASE)


def without_controls(value: Any) -> Any:
    """A field value (text, a list, a session) with every text in it free of control, bidi and tag characters."""
    if isinstance(value, str):
        return drop_controls(value)
    if isinstance(value, list):
        return [without_controls(v) for v in value]
    if isinstance(value, Mapping):
        return {k: without_controls(v) for k, v in value.items()}
    return value


def names_or_words(value: Any, split: str = "authors") -> list[str]:
    """A list field: a JSON list, or text split on ; | or , (authors also on "and"), each item as plain text."""
    if value is None:
        return []
    if isinstance(value, list):
        return [text.to_plain_text(str(v)).strip() for v in value if str(v).strip()]
    raw = str(value)
    sep = ";" if ";" in raw else ("|" if "|" in raw else ",")
    if split == "authors" and sep == "," and " and " in raw:
        raw = raw.replace(" and ", ", ")
    return [text.to_plain_text(part).strip() for part in raw.split(sep) if part.strip()]


def status(value: Any) -> str | None:
    """Oral, Spotlight, Poster from a decision or venue string (the venues' tables first), else the text, short."""
    if not value:
        return None
    known = venues.status_of(str(value))
    if known is not None:
        return str(known)
    m = _STATUS.search(str(value))
    return m[1].capitalize() if m else str(value).strip()[:40] or None


def optional_text(value: Any) -> str | None:
    """A text field stripped, or None when empty."""
    return str(value).strip() or None if value not in (None, "") else None


def aligned_list(value: Any) -> list[str]:
    """A list kept in step with another (institutions with authors): empty entries stay."""
    if not isinstance(value, list):
        return names_or_words(value)
    return [text.to_plain_text(str(v)).strip() if v else "" for v in value]


def schedule(value: Any) -> list[dict[str, str | None]]:
    """Sessions with a name, each with the same keys (missing ones None)."""
    keys = ("name", "kind", "start", "end", "room", "url")
    return [
        {k: str(s[k]).strip() if s.get(k) not in (None, "") else None for k in keys}
        for s in value or []
        if isinstance(s, Mapping) and s.get("name")
    ]


def first_url(value: Any) -> str | None:
    """The first link in a field's text, as the cleanup finds links."""
    found = text.urls(str(value)) if value else []
    return found[0] if found else None
