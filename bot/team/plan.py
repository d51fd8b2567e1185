"""Conference days: saved or listed papers placed in their sessions, by day in a person's time zone, with clashes.

Plain functions over papers as the index gives them (their `schedule`: sessions with ISO times carrying the venue's
UTC offset, rooms, pages) and the saves or list entries that want them (read by bot/team/wants.py); the time zone is
passed in, never looked up, and nothing here reads the clock. The Slack blocks (bot/slack/blocks/plan.py), the
calendar file (bot/team/ics.py) and the reminders (bot/team/reminders.py) all read the same Plan.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.papers.row import PaperRow
from bot.papers.venues import venue_label

# a session whose end the list leaves out is taken to last this long
DEFAULT_LENGTH = timedelta(minutes=60)
POSTER = "Poster"
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Wanted:
    """A paper someone wants to see: by whom (user ids who saved it), whether the channel's list holds it; `paper` is
    None when the index no longer holds the id."""

    paper_id: str
    paper: PaperRow | None
    savers: tuple[str, ...] = ()
    listed: bool = False


@dataclass(frozen=True)
class Presentation:
    """One wanted paper in one session: its poster number (posters only), room and page."""

    wanted: Wanted
    paper: PaperRow
    position: str | None
    room: str | None
    url: str | None

    @property
    def paper_id(self) -> str:
        """The paper's id in the index."""
        return str(self.paper["id"])


@dataclass(frozen=True)
class Session:
    """A session of the venue (a poster session, an oral block) and the wanted papers presented in it."""

    name: str
    kind: str
    start: datetime  # aware, in the venue's own offset as the list gives it
    end: datetime
    items: tuple[Presentation, ...]

    @property
    def key(self) -> str:
        """What names this session among reminders: its start (UTC) and name; a moved session is a new one."""
        return f"{self.start.astimezone(ZoneInfo('UTC')):%Y-%m-%dT%H:%MZ} {self.name}"

    @property
    def rooms(self) -> tuple[str, ...]:
        """The rooms its wanted papers are in, in order, once each."""
        return tuple(dict.fromkeys(p.room for p in self.items if p.room))

    @property
    def is_poster(self) -> bool:
        """Whether it is a poster session (papers at numbered boards) rather than talks."""
        return self.kind.lower() == POSTER.lower()

    def overlaps(self, other: Session) -> bool:
        """Whether the two sessions run at the same time for a while."""
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class Clash:
    """Wanted papers one person cannot all see: several posters of one session, or sessions that overlap."""

    sessions: tuple[Session, ...]

    @property
    def within_one(self) -> bool:
        """Several wanted posters in a single session (rather than two sessions at once)."""
        return len(self.sessions) == 1


@dataclass(frozen=True)
class Day:
    """One day of the plan in the reader's time zone: its sessions by start time, and its clashes."""

    date: date
    sessions: tuple[Session, ...]
    clashes: tuple[Clash, ...]


@dataclass(frozen=True)
class Unplaced:
    """A wanted paper the plan cannot place, and why, in words."""

    wanted: Wanted
    why: str


@dataclass(frozen=True)
class Plan:
    """Wanted papers of one venue by day and session in `tz`; those without a known time apart, with why."""

    venue: str | None
    tz: tzinfo
    days: tuple[Day, ...]
    unplaced: tuple[Unplaced, ...]
    # venue → wanted papers there, not in this plan
    other_venues: Mapping[str, int] = field(default_factory=dict)

    @property
    def venue_label(self) -> str:
        """The venue as people say it (ICML 2026)."""
        return venue_label(self.venue) if self.venue else "the conference"

    @property
    def sessions(self) -> tuple[Session, ...]:
        """Every session of the plan, in time order."""
        return tuple(s for d in self.days for s in d.sessions)

    @property
    def clashes(self) -> tuple[Clash, ...]:
        """Every clash of the plan, day by day."""
        return tuple(c for d in self.days for c in d.clashes)

    @property
    def placed(self) -> int:
        """How many distinct papers have at least one session."""
        return len({p.paper_id for s in self.sessions for p in s.items})

    def first_session_of(self, paper_id: str) -> Session | None:
        """The earliest session presenting a paper (a poster rather than its talk when both start together)."""
        found = [s for s in self.sessions if any(p.paper_id == paper_id for p in s.items)]
        return min(found, key=lambda s: (s.start, not s.is_poster)) if found else None


def zone(name: str | None, fallback: str = "UTC") -> ZoneInfo:
    """The IANA zone a name means (Slack's `user.tz`), or `fallback` for an empty or unknown one."""
    for candidate in (name, fallback, "UTC"):
        if candidate:
            try:
                return ZoneInfo(candidate)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def parse_time(value: str | None) -> datetime | None:
    """An ISO 8601 time with its UTC offset (as the conference sites give them); None when missing, malformed or
    without an offset (its zone would be a guess)."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


def venue_of(wanted: Wanted) -> str | None:
    """The venue of a wanted paper (icml2026), None when unknown."""
    return wanted.paper.get("venue") if wanted.paper else None


def choose_venue(wanted: Sequence[Wanted], asked: str | None = None) -> str | None:
    """The venue a plan is for: the one asked for, else the one whose sessions end last (the coming conference), else
    the one with the most wanted papers."""
    if asked:
        return asked.lower()
    latest: dict[str, datetime] = {}
    counts: Counter[str] = Counter()
    for w in wanted:
        v = venue_of(w)
        if not v:
            continue
        counts[v] += 1
        for slot in (w.paper.get("schedule") if w.paper else None) or []:
            end = parse_time(slot.get("end")) or parse_time(slot.get("start"))
            if end is not None and (v not in latest or end > latest[v]):
                latest[v] = end
    if latest:
        return max(latest, key=lambda v: (latest[v], counts[v]))
    return max(counts, key=lambda v: (counts[v], v)) if counts else None


def build(wanted: Sequence[Wanted], tz: tzinfo, venue: str | None = None) -> Plan:
    """The plan of the wanted papers of `venue` (chosen as choose_venue does when None) in the time zone `tz`."""
    chosen = choose_venue(wanted, venue)
    slots: dict[tuple[datetime, datetime, str, str], list[Presentation]] = {}
    unplaced: list[Unplaced] = []
    others: Counter[str] = Counter()
    for w in wanted:
        if w.paper is None:
            unplaced.append(Unplaced(w, "the index no longer holds it (removed or replaced in a re-fetch)"))
            continue
        if chosen and venue_of(w) != chosen:
            others[venue_of(w) or "no venue"] += 1
            continue
        placed, why = _place(w, w.paper)
        if not placed:
            unplaced.append(Unplaced(w, why))
        for (start, end, name, kind), presentation in placed:
            slots.setdefault((start, end, name, kind), []).append(presentation)
    sessions = [
        Session(name, kind, start, end, tuple(sorted(items, key=_board_order)))
        for (start, end, name, kind), items in slots.items()
    ]
    return Plan(chosen, tz, _days(sessions, tz), tuple(unplaced), dict(others))


def _place(w: Wanted, paper: PaperRow) -> tuple[list[tuple[tuple[datetime, datetime, str, str], Presentation]], str]:
    """A paper's sessions with a known time, and why there are none when so."""
    schedule = paper.get("schedule") or []
    placed = []
    untimed: list[str] = []
    for slot in schedule:
        name = " ".join(str(slot.get("name") or "").split())
        start = parse_time(slot.get("start"))
        if not name or start is None:
            untimed.append(name or "a session")
            continue
        end = parse_time(slot.get("end"))
        end = end if end is not None and end > start else start + DEFAULT_LENGTH
        kind = str(slot.get("kind") or POSTER)
        poster = kind.lower() == POSTER.lower()
        room = slot.get("room") or (paper.get("room") if poster else None)
        position = paper.get("poster_position") if poster else None
        url = slot.get("url") or paper.get("site_url") or paper.get("url")
        placed.append(((start, end, name, kind), Presentation(w, paper, position, room, url)))
    if placed:
        return placed, ""
    if untimed:
        return [], f"{', '.join(dict.fromkeys(untimed))} has no time in the conference's list yet"
    if paper.get("session"):
        return [], f"the list names its session ({paper['session']}) but gives no time"
    return [], "the conference's list gives it no session (not on the conference site's schedule)"


def _board_order(p: Presentation) -> tuple[int, str, str]:
    digits = _DIGITS.search(p.position or "")
    return (int(digits[0]) if digits else 1 << 30, p.position or "", str(p.paper.get("title") or ""))


def _days(sessions: Iterable[Session], tz: tzinfo) -> tuple[Day, ...]:
    """Sessions grouped by the date they start on in `tz`, each day with its clashes."""
    by_day: dict[date, list[Session]] = {}
    for s in sorted(sessions, key=lambda s: (s.start, s.end, s.name)):
        by_day.setdefault(s.start.astimezone(tz).date(), []).append(s)
    return tuple(Day(d, tuple(ss), clashes(ss)) for d, ss in sorted(by_day.items()))


def clashes(sessions: Sequence[Session]) -> tuple[Clash, ...]:
    """Poster sessions with several wanted posters, then sessions that overlap (not when the only papers they share
    are one paper's talk and its poster: one of the two is enough)."""
    found = [Clash((s,)) for s in sessions if s.is_poster and len({p.paper_id for p in s.items}) > 1]
    for i, a in enumerate(sessions):
        for b in sessions[i + 1 :]:
            if a.overlaps(b) and _distinct_papers(a, b):
                found.append(Clash((a, b)))
    return tuple(found)


def _distinct_papers(a: Session, b: Session) -> bool:
    ids_a, ids_b = {p.paper_id for p in a.items}, {p.paper_id for p in b.items}
    return bool(ids_a - ids_b or ids_b - ids_a) or len(ids_a) > 1


def around(wanted: Sequence[Wanted], now: datetime, margin: timedelta = timedelta(days=1)) -> bool:
    """Whether `now` is within `margin` of the span of some venue's sessions of these papers (then some time zone's
    date is one of its days: worth reading the person's zone)."""
    for venue in sorted({v for w in wanted if (v := venue_of(w))}):
        sessions = build(wanted, ZoneInfo("UTC"), venue).sessions
        if sessions and sessions[0].start - margin <= now <= max(s.end for s in sessions) + margin:
            return True
    return False


def today(wanted: Sequence[Wanted], tz: tzinfo, now: datetime) -> tuple[Plan, date] | None:
    """The plan of the venue whose days (in `tz`, from the first to the last day of these papers' sessions) hold
    `now`'s date, and that date; None outside every venue's days."""
    day = now.astimezone(tz).date()
    for venue in sorted({v for w in wanted if (v := venue_of(w))}):
        made = build(wanted, tz, venue)
        if made.days and made.days[0].date <= day <= made.days[-1].date:
            return made, day
    return None


# ------------------------------------------------------------------ times in words (Slack, the DM reminders, the CLI)


def day_label(day: date) -> str:
    """`Tue 14 Jul`."""
    return f"{day:%a} {day.day} {day:%b}"


def hours(session: Session, tz: tzinfo) -> str:
    """`11:00–12:30` in `tz`."""
    return f"{session.start.astimezone(tz):%H:%M}–{session.end.astimezone(tz):%H:%M}"


def offset_label(moment: datetime) -> str:
    """`UTC+09:00`, `UTC−04:00`, `UTC`: the offset a time carries."""
    offset = moment.utcoffset() or timedelta(0)
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes > 0 else "−"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def venue_time(session: Session, tz: tzinfo) -> str | None:
    """The session's time at the venue (`Tue 11:00–12:30 venue time, UTC+09:00`) when it differs from `tz`'s."""
    if session.start.astimezone(tz).utcoffset() == session.start.utcoffset():
        return None
    there = session.start
    return f"{there:%a} {there:%H:%M}–{session.end:%H:%M} venue time, {offset_label(there)}"


def where(session: Session, presentation: Presentation | None = None) -> str:
    """`Hall B #1012`, `Hall A`: the room and the poster number."""
    room = (presentation.room if presentation else None) or (", ".join(session.rooms) or None)
    board = presentation.position if presentation else None
    return " ".join(part for part in (room, board) if part)


def most_wanted(plan: Plan, at_least: int = 2) -> list[tuple[Wanted, Session | None]]:
    """Papers saved by `at_least` people or more, most savers first, each with its first session."""
    seen: dict[str, Wanted] = {}
    for s in plan.sessions:
        for p in s.items:
            seen.setdefault(p.paper_id, p.wanted)
    chosen = sorted((w for w in seen.values() if len(w.savers) >= at_least), key=lambda w: (-len(w.savers), w.paper_id))
    return [(w, plan.first_session_of(str(w.paper["id"]) if w.paper else w.paper_id)) for w in chosen]


def text_lines(plan: Plan) -> list[str]:
    """The plan as plain text, as `icml-bot plan` prints it."""
    tz = plan.tz
    lines = [f"{plan.venue_label}: {plan.placed} papers in {len(plan.sessions)} sessions (times in {tz})"]
    for d in plan.days:
        lines.append("")
        lines.append(day_label(d.date))
        for s in d.sessions:
            there = venue_time(s, tz)
            room = ", ".join(s.rooms)
            lines.append(f"  {hours(s, tz)}  {s.name}{' · ' + room if room else ''}{f' ({there})' if there else ''}")
            for p in s.items:
                lines.append(f"    {p.position + ' ' if p.position else ''}{p.paper.get('title') or p.paper_id}")
        for c in d.clashes:
            if c.within_one:
                boards = " and ".join(p.position or str(p.paper.get("title")) for p in c.sessions[0].items)
                lines.append(f"  clash: {len(c.sessions[0].items)} posters in {c.sessions[0].name} {boards}")
            else:
                a, b = c.sessions
                lines.append(f"  clash: {a.name} ({hours(a, tz)}) overlaps {b.name} ({hours(b, tz)})")
    if plan.unplaced:
        lines += ["", "Without a known time"]
        for u in plan.unplaced:
            lines.append(f"  {u.wanted.paper['title'] if u.wanted.paper else u.wanted.paper_id}: {u.why}")
    return lines
