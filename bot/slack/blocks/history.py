"""A paper's history in the workspace as mrkdwn: one line on an unfurl card ("saved by 2 people here · on #nlp's list ·
shared here on 3 Nov"), the lines of `/icml paper`, and the Home tab's. Pure text builders; `now` is passed in."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from bot.slack.blocks.kit import link, mention
from bot.team.history import Event, PaperMemory

NAMES_SHOWN = 10  # savers and lists named in /icml paper before "and N more"
MESSAGES_SHOWN = 5  # messages that showed the paper, named in /icml paper
_CHANNEL_ID = re.compile(r"^[CG][A-Z0-9]{2,}$")


def channel_ref(channel: str) -> str:
    """`<#C…>` for a real channel id (Slack shows its name, or "private channel" to those outside it)."""
    return f"<#{channel}>" if _CHANNEL_ID.match(channel) else "a channel"


def short_day(at: float, now: float) -> str:
    """`3 Nov` in the current year, `3 Nov 2025` before it (UTC)."""
    moment, today = datetime.fromtimestamp(at, UTC), datetime.fromtimestamp(now, UTC)
    return f"{moment.day} {moment:%b}" + ("" if moment.year == today.year else f" {moment.year}")


def _people(n: int) -> str:
    return f"{n} person" if n == 1 else f"{n} people"


def _where(event: Event, here: str, now: float, verb: str = "shared ") -> str:
    """`shared here on 3 Nov` or `shared in #c on 3 Nov`: the date (or all of it, here) linked to the message when its
    permalink is known."""
    when = f"on {short_day(event.at, now)}"
    if event.channel == here:
        said = f"{verb}here {when}"
        return link(event.permalink, said) if event.permalink else said
    return f"{verb}in {channel_ref(event.channel)} {link(event.permalink, when) if event.permalink else when}"


def _lists(channels: tuple[str, ...], here: str) -> str:
    """`on this channel's list`, `on #a's list`, `on #a's and #b's lists`, `on #a's list and 2 more`."""
    if here in channels:
        others = len(channels) - 1
        return "on this channel's list" + (f" and {others} more" if others else "")
    if len(channels) == 1:
        return f"on {channel_ref(channels[0])}'s list"
    if len(channels) == 2:
        return f"on {channel_ref(channels[0])}'s and {channel_ref(channels[1])}'s lists"
    return f"on {channel_ref(channels[0])}'s list and {len(channels) - 1} more"


def card_line(memory: PaperMemory, here: str, now: float, message_ts: str = "") -> str:
    """The unfurl card's team memory; empty when the workspace has none. The message being unfurled (`message_ts`) is
    not its own history: the first time here is shown, else the latest elsewhere."""
    parts = []
    if memory.savers:
        parts.append(f"saved by {_people(len(memory.savers))} here")
    if memory.lists:
        parts.append(_lists(memory.lists, here))
    shown = [e for e in memory.discussed if not (message_ts and e.channel == here and e.ts == message_ts)]
    in_here = [e for e in shown if e.channel == here]
    if in_here or shown:
        parts.append(_where(in_here[-1] if in_here else shown[0], here, now))
    return " · ".join(parts)


def paper_lines(memory: PaperMemory, here: str, now: float) -> list[str]:
    """`/icml paper`'s lines for the one who asked: who saved it, which lists hold it, where it was shared."""
    if not memory:
        return ["Nobody in this workspace has shared, saved or listed it yet."]
    lines = []
    if memory.savers:
        lines.append("Saved here by " + _named([mention(u) for u in memory.savers]))
    if memory.lists:
        lines.append("On the reading list of " + _named([channel_ref(c) for c in memory.lists]))
    if memory.discussed:
        said = [f"{_where(e, here, now, verb='')} by {mention(e.user)}" for e in memory.discussed[:MESSAGES_SHOWN]]
        more = len(memory.discussed) - MESSAGES_SHOWN
        lines.append("Shared " + "; ".join(said) + (f"; {more} more times" if more > 0 else ""))
    return lines


def home_line(memory: PaperMemory, user: str, now: float) -> str:
    """A saved paper's history on the Home tab: who else saved it and where it was last shared."""
    parts = []
    others = [u for u in memory.savers if u != user]
    if others:
        parts.append("also saved by " + _named([mention(u) for u in others], 3))
    if memory.discussed:
        parts.append(_where(memory.discussed[0], "", now))
    return " · ".join(parts)


def discussed_line(memory: PaperMemory, now: float) -> str:
    """A paper the workspace talked about lately, on the Home tab: where and when, and how many saved it."""
    parts = [_where(memory.discussed[0], "", now)] if memory.discussed else []
    if len(memory.discussed) > 1:
        parts[0] += f" ({len(memory.discussed)} times in all)"
    if memory.savers:
        parts.append(f"saved by {_people(len(memory.savers))}")
    return " · ".join(parts)


def _named(names: list[str], most: int = NAMES_SHOWN) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")
