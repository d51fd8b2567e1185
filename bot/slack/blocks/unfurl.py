"""The card a paper link unfurls into: title, authors, venue, status, its sessions (day, time and room when the source
gives them), the headline, Save / Similar / Abstract, and a line of the workspace's memory of it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.papers.row import PaperRow
from bot.slack.blocks.kit import (
    Block,
    actions,
    button,
    context,
    escape,
    one_line,
    section,
    truncate,
)
from bot.slack.blocks.papers import (
    ACTION_ABSTRACT,
    ACTION_SIMILAR,
    HEADLINE_CHARS,
    authors_text,
    title_line,
    venue_name,
)
from bot.slack.blocks.team_buttons import save_button

SLOTS_SHOWN = 2  # a poster session and an oral at most
SESSION_CHARS = 300


def _time(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def slot_text(slot: dict[str, Any]) -> str:
    """`Poster Session 2, Tue 14 Jul 10:30–12:00, Hall A`: what of it the source gave, in the conference's own time."""
    start, end = _time(slot.get("start")), _time(slot.get("end"))
    when = ""
    if start is not None:
        when = f"{start:%a} {start.day} {start:%b} {start:%H:%M}"
        if end is not None and end.date() == start.date():
            when += f"–{end:%H:%M}"
    pieces = [one_line(str(slot.get("name") or "")), when, one_line(str(slot.get("room") or ""))]
    return ", ".join(p for p in pieces if p)


def sessions_text(paper: PaperRow) -> str:
    """The paper's sessions with day, time and room from its schedule; else its session and room as listed."""
    slots = [s for s in paper.get("schedule") or [] if isinstance(s, dict)]
    said = [t for t in (slot_text(s) for s in slots[:SLOTS_SHOWN]) if t]
    if not said:
        said = [", ".join(one_line(v) for v in (paper.get("session"), paper.get("room")) if v and one_line(v))]
    return truncate(escape("; ".join(t for t in said if t)), SESSION_CHARS)


def card(paper: PaperRow, memory: str = "") -> list[Block]:
    """The unfurl's blocks; `memory` is the workspace's line (mrkdwn, built by blocks/history.py), empty where none
    may be shown (a channel shared with another workspace). Everyone sees the card: its Save button answers each
    clicker alone, as on any message everyone sees."""
    lines = [title_line(paper)]
    authors = authors_text(paper.get("authors"))
    if authors:
        lines.append(authors)
    headline = one_line(paper.get("headline"))
    if headline:
        lines.append(f"_{truncate(escape(headline.replace('_', ' ')), HEADLINE_CHARS)}_")
    facts = [escape(venue_name(paper)) if paper.get("venue") else ""]
    facts += [escape(one_line(paper.get("status"))), sessions_text(paper)]
    pid = str(paper["id"])
    blocks: list[Block] = [section("\n".join(lines)), context(" · ".join(f for f in facts if f))]
    if memory:
        blocks.append(context(memory))
    blocks.append(
        actions(save_button(pid), button("Similar", ACTION_SIMILAR, pid), button("Abstract", ACTION_ABSTRACT, pid))
    )
    return blocks
