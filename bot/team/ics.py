"""A plan as an iCalendar file (RFC 5545), written by the `icalendar` library: one event per session, with the papers,
room, poster numbers and links; times in UTC, which every calendar shows in its reader's own zone."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from icalendar import Calendar, Event

from bot.papers.row import shown_title
from bot.team.links import web_url
from bot.team.plan import Plan, Session

PRODID = "-//icml-bot//conference plan//EN"
UID_DOMAIN = "icml-bot"


def filename(plan: Plan) -> str:
    """`icml2026-plan.ics`."""
    return f"{plan.venue or 'conference'}-plan.ics"


def uid(session: Session) -> str:
    """A stable id per session, so importing the file again updates the events instead of doubling them."""
    digest = hashlib.sha256(session.key.encode()).hexdigest()[:24]
    return f"{digest}@{UID_DOMAIN}"


def summary(session: Session) -> str:
    """The event's title: the session, and the paper when it is one."""
    if len(session.items) == 1:
        return f"{session.name}: {shown_title(session.items[0].paper)}"
    return f"{session.name}: {len(session.items)} papers"


def description(session: Session) -> str:
    """The papers of a session, one a line with the poster number, and each one's link below it."""
    lines = []
    for p in session.items:
        board = f"{p.position} " if p.position else ""
        lines.append(f"{board}{shown_title(p.paper)}")
        url = web_url(p.url) or web_url(p.paper.get("url"))
        if url:
            lines.append(f"  {url}")
    return "\n".join(lines)


def calendar(plan: Plan, stamp: datetime, name: str = "") -> str:
    """The iCalendar text of the plan's sessions; `stamp` is when it was made (DTSTAMP), passed in."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", name or f"{plan.venue_label} plan")
    for session in plan.sessions:
        event = Event()
        event.add("uid", uid(session))
        event.add("dtstamp", stamp.astimezone(UTC))
        event.add("dtstart", session.start.astimezone(UTC))
        event.add("dtend", session.end.astimezone(UTC))
        event.add("summary", summary(session))
        rooms = ", ".join(session.rooms)
        if rooms:
            event.add("location", rooms)
        event.add("description", description(session))
        url = next((u for p in session.items if (u := web_url(p.url))), None)
        if url:
            event.add("url", url)
        event.add("categories", [session.kind])
        cal.add_component(event)
    return str(cal.to_ical().decode("utf-8"))
