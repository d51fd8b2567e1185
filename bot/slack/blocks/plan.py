"""`/icml plan` as Block Kit: a person's or a channel's papers of a venue by day and session, in the reader's time zone
with the venue's time beside it, rooms and poster numbers, clashes flagged, papers without a known time apart."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta, tzinfo

from bot.papers.venues import venue_label
from bot.slack.blocks.kit import (
    MAX_BLOCKS,
    Block,
    Message,
    context,
    divider,
    escape,
    header,
    link,
    message,
    notice,
    plain_truncate,
    section,
    split_text,
)
from bot.slack.blocks.papers import display_title
from bot.team import plan as plans
from bot.team.plan import Clash, Plan, Presentation, Session, Wanted

PLAN_TITLE_CHARS = 90  # titles in a plan line: the time, room and poster number matter more here
MOST_WANTED = 5  # "3 of you saved #1234 (Tue 11:00, Hall B)" lines on a channel's plan
UNPLACED_SHOWN = 15
# blocks kept free for what follows the days (papers without a time, other venues)
ROOM_FOR_TAIL = 4


def _title(w: Wanted, p: Presentation | None = None) -> str:
    paper = p.paper if p else w.paper
    if paper is None:
        return f"`{escape(w.paper_id)}`"
    label = plain_truncate(display_title(paper), PLAN_TITLE_CHARS)
    return link((p.url if p else None) or paper.get("url") or paper.get("site_url"), label)


def _who(w: Wanted, team: bool) -> str:
    if not team:
        return ""
    parts = [f"saved by {len(w.savers)}" if w.savers else "", "on the list" if w.listed else ""]
    said = " · ".join(p for p in parts if p)
    return f" _({said})_" if said else ""


def _item(p: Presentation, team: bool) -> str:
    board = f"{escape(p.position)} " if p.position else ""
    return f"• {board}{_title(p.wanted, p)}{_who(p.wanted, team)}"


def session_text(s: Session, tz: tzinfo, team: bool) -> str:
    """A session in `tz` (the venue's time beside when it differs), its room, and its papers with poster numbers;
    `team`: how many saved each and whether the channel's list holds it."""
    head = f"*{plans.hours(s, tz)}* {escape(s.name)}"
    rooms = ", ".join(s.rooms)
    if rooms:
        head += f" · {escape(rooms)}"
    there = plans.venue_time(s, tz)
    if there:
        head += f" _({escape(there)})_"
    return "\n".join([head, *(_item(p, team) for p in s.items)])


def clash_line(clash: Clash, tz: tzinfo, noun: str = "saved") -> str:
    """`2 saved posters in Poster Session 3, Hall B #112 and #410`, or two sessions at once."""
    if clash.within_one:
        (s,) = clash.sessions
        boards = [p.position or f"“{plain_truncate(display_title(p.paper), 40)}”" for p in s.items]
        room = f", {', '.join(s.rooms)}" if s.rooms else ""
        listed = ", ".join(boards[:-1]) + f" and {boards[-1]}" if len(boards) > 1 else boards[0]
        return f":warning: {len(s.items)} {noun} posters in {escape(s.name)}{escape(room)} {escape(listed)}"
    a, b = clash.sessions
    return (
        f":warning: {escape(a.name)} ({escape(plans.where(a) or 'room not given')}, {plans.hours(a, tz)}) overlaps "
        f"{escape(b.name)} ({escape(plans.where(b) or 'room not given')}, {plans.hours(b, tz)})"
    )


def wanted_line(w: Wanted, s: Session | None, tz: tzinfo) -> str:
    """`3 of you saved #1234 Title (Tue 11:00, Hall B)`."""
    p = next((p for p in s.items if p.wanted is w), None) if s else None
    board = f"{escape(p.position)} " if p and p.position else ""
    when = ""
    if s is not None:
        local = s.start.astimezone(tz)
        room = plans.where(s, p).removesuffix(p.position or "").strip() if p else ", ".join(s.rooms)
        when = f" ({local:%a %H:%M}{', ' + escape(room) if room else ''})"
    return f"{len(w.savers)} of you saved {board}{_title(w, p)}{when}"


def plan_message(
    plan: Plan,
    *,
    team: bool = False,
    channel: str = "",
    tz_note: str = "",
) -> Message:
    """The plan: a header, how times are shown, the most wanted papers (a channel's), then each day's sessions and
    clashes, then papers without a known time and why."""
    tz = plan.tz
    whose = f"<#{channel}>'s plan" if team and channel else ("The team's plan" if team else "Your plan")
    total = plan.placed
    sessions = len(plan.sessions)
    summary = (
        f"{total} paper{'s' * (total != 1)} in {sessions} session{'s' * (sessions != 1)} over {len(plan.days)} "
        f"day{'s' * (len(plan.days) != 1)}"
    )
    if plan.clashes:
        summary += f", {len(plan.clashes)} clash{'es' * (len(plan.clashes) != 1)}"
    zone_name = getattr(tz, "key", str(tz))
    beside = ", the venue's beside them" if any(plans.venue_time(s, tz) for s in plan.sessions) else ""
    blocks: list[Block] = [
        header(f"{'The channel' if team else 'Your'} plan for {plan.venue_label}"),
        context(f"{whose}: {summary}. Times in {escape(zone_name)}{escape(tz_note)}{beside}."),
    ]
    if team:
        lines = [wanted_line(w, s, tz) for w, s in plans.most_wanted(plan)[:MOST_WANTED]]
        if lines:
            blocks.append(section("*Most wanted*\n" + "\n".join(lines)))
    noun = "of the team's" if team else "saved"
    shown_days = 0
    for d in plan.days:
        text = f"*{plans.day_label(d.date)}*\n" + "\n".join(session_text(s, tz, team) for s in d.sessions)
        day_blocks = [section(piece) for piece in split_text(text)]
        if d.clashes:
            day_blocks.append(context(*(clash_line(c, tz, noun) for c in d.clashes)))
        if len(blocks) + len(day_blocks) > MAX_BLOCKS - ROOM_FOR_TAIL:
            break
        blocks.extend(day_blocks)
        shown_days += 1
    if shown_days < len(plan.days):
        blocks.append(context(f"…and {len(plan.days) - shown_days} more days: `/icml plan ics` holds them all."))
    if plan.unplaced:
        lines = [f"• {_title(u.wanted)}: {escape(u.why)}" for u in plan.unplaced[:UNPLACED_SHOWN]]
        more = len(plan.unplaced) - UNPLACED_SHOWN
        if more > 0:
            lines.append(f"…and {more} more")
        text = f"*Without a known time* ({len(plan.unplaced)})\n" + "\n".join(lines)
        blocks.extend(section(piece) for piece in split_text(text))
    if plan.other_venues:
        others = ", ".join(
            f"{n} of {escape(venue_label(v))} (`/icml plan {escape(v)}`)" for v, n in sorted(plan.other_venues.items())
        )
        blocks.append(context(f"Not in this plan: {others}."))
    fallback = f"{'The channel' if team else 'Your'} plan for {plan.venue_label}: {summary}"
    return message(escape(fallback), blocks)


def empty_plan(team: bool, venue: str | None) -> Message:
    """What an empty plan says, and how to fill it."""
    at = f" of {escape(venue_label(venue))}" if venue else ""
    if team:
        return notice(
            f"Nothing to plan{at} here yet: add papers to this channel's reading list (`/icml list add <id>`) or "
            "save some (*Save* under any paper)."
        )
    return notice(f"You have no saved papers{at} to plan yet: press *Save* under any paper I show.")


def remind_reply(minutes: int, next_up: Sequence[Session], tz: tzinfo, tz_note: str = "") -> Message:
    """What `/icml remind N` answers: when the DMs come, and the next few."""
    lines = []
    for s in next_up:
        due = s.start.astimezone(tz) - timedelta(minutes=minutes)
        rooms = ", ".join(s.rooms)
        at = f", {escape(rooms)}" if rooms else ""
        lines.append(f"• {plans.day_label(due.date())} *{due:%H:%M}* for {escape(s.name)} ({plans.hours(s, tz)}{at})")
    head = (
        f"I'll DM you {minutes} minutes before each session of your saved papers, with the room and poster number "
        f"(times in {escape(getattr(tz, 'key', str(tz)))}{escape(tz_note)})."
    )
    body = "\n".join([head, *(["Next:", *lines] if lines else ["None of your saved papers has a session ahead yet."])])
    return notice(body + "\n`/icml remind off` stops them.")


def reminder_message(session: Session, minutes_left: int, tz: tzinfo) -> Message:
    """The DM before a session: when, where, and the saved papers in it with their poster numbers."""
    local = plans.hours(session, tz)
    room = ", ".join(session.rooms)
    head = f":alarm_clock: *{escape(session.name)}* starts in {minutes_left} minutes ({local}"
    head += f", {escape(room)})" if room else ")"
    items = "\n".join(_item(p, False) for p in session.items)
    text = f"{session.name} starts in {minutes_left} minutes ({local}{', ' + room if room else ''})"
    return message(escape(text), [section(f"{head}\n{items}"), context("`/icml remind off` stops these reminders.")])


def today_blocks(plan: Plan, day: date, tz_note: str = "") -> list[Block]:
    """The Home tab's plan for today: the person's saved papers' sessions on `day` in their zone, with rooms and
    poster numbers and the day's clashes; the next session when none is today."""
    tz = plan.tz
    zone_name = getattr(tz, "key", str(tz))
    out: list[Block] = [
        section(f"*Today at {escape(plan.venue_label)}* · {plans.day_label(day)}"),
        context(f"Your saved papers in today's sessions. Times in {escape(zone_name)}{escape(tz_note)}."),
    ]
    found = next((d for d in plan.days if d.date == day), None)
    if found is None:
        later = [s for s in plan.sessions if s.start.astimezone(tz).date() > day]
        nxt = (
            f" Next: {plans.day_label(later[0].start.astimezone(tz).date())} {later[0].start.astimezone(tz):%H:%M} "
            f"{escape(later[0].name)}."
            if later
            else ""
        )
        out.append(context(f"None of your saved papers is presented today.{nxt}"))
    else:
        text = "\n".join(session_text(s, tz, False) for s in found.sessions)
        out.extend(section(piece) for piece in split_text(text))
        if found.clashes:
            out.append(context(*(clash_line(c, tz) for c in found.clashes)))
    out.append(context("`/icml plan` has your whole plan; `/icml plan ics` puts it in your calendar."))
    out.append(divider())
    return out
