"""A channel's "today at <venue>" digest: on a day of a venue's sessions, the team's saved and listed papers in that
day's sessions in time order, then the day's orals on the channel's topics.

Plain functions over the plan (bot/team/plan.py) and the paper index; the day and the channel's zone come in as
arguments, nothing reads the clock. The rules of posting it (once per channel and date) are bot/digest/channels.py's,
the same as for every digest: only what the day's digest holds differs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from datetime import date, tzinfo

from bot.digest.model import Today
from bot.papers.lookup import ids_with_status
from bot.papers.reading import Reader
from bot.papers.venues import Status
from bot.team import plan as plans
from bot.team.listing import PaperLookup
from bot.team.plan import Session, Wanted

# The team's papers in one "today" digest; the rest are counted (`/icml plan channel` has all)
TEAM_PAPERS_SHOWN = 30
ORAL = Status.ORAL.value  # papers with a talk: their status, and the kind of their talk's session


def starts_on(session: Session, day: date, tz: tzinfo) -> bool:
    """Whether the session starts on `day` in the zone `tz`."""
    return session.start.astimezone(tz).date() == day


def orals_on(db: Reader, papers: PaperLookup, day: date, tz: tzinfo) -> list[Wanted]:
    """Papers whose talk is on `day` in `tz`, as wanted papers nobody saved (from the status index: the orals)."""
    found = []
    for pid in ids_with_status(db, ORAL):
        paper = papers.get(pid)
        if paper is None:
            continue
        for slot in paper.get("schedule") or []:
            start = plans.parse_time(slot.get("start"))
            if str(slot.get("kind") or "").lower() == ORAL.lower() and start and start.astimezone(tz).date() == day:
                found.append(Wanted(str(paper["id"]), paper))
                break
    return found


def _venue(candidates: Iterable[Wanted], day: date, tz: tzinfo) -> str | None:
    """The venue most of the day's papers are at (several venues on one day: the busiest one)."""
    counts: Counter[str] = Counter()
    for w in candidates:
        venue = plans.venue_of(w)
        if venue and any(starts_on(s, day, tz) for s in plans.build([w], tz, venue).sessions):
            counts[venue] += 1
    return max(counts, key=lambda v: (counts[v], v)) if counts else None


def build(
    team: Sequence[Wanted],
    orals: Sequence[Wanted],
    day: date,
    tz: tzinfo,
    on_topics: Collection[str] | None,
    size: int,
    venue: str | None = None,
) -> Today | None:
    """The day's "today" digest, or None when the day has none of the team's papers and no oral on the topics.

    `on_topics`: ids matching the channel's topics (None: the channel has none, so every oral counts); `size`: how
    many orals at most; `venue`: the venue to keep to (a digest rebuilt after a crash), else the day's busiest.
    """
    talks = [w for w in orals if on_topics is None or w.paper_id in on_topics]
    chosen = venue or _venue([*team, *talks], day, tz)
    if chosen is None:
        return None
    mine = [s for s in plans.build(team, tz, chosen).sessions if starts_on(s, day, tz)]
    shown, more = _cut(mine, TEAM_PAPERS_SHOWN)
    seen = {p.paper_id for s in mine for p in s.items}
    oral_sessions = [
        s
        for s in plans.build([w for w in talks if w.paper_id not in seen], tz, chosen).sessions
        if starts_on(s, day, tz) and not s.is_poster and s.kind.lower() == ORAL.lower()
    ]
    said, _ = _cut(oral_sessions, size)
    if not shown and not said:
        return None
    return Today(chosen, tz, tuple(shown), tuple(said), more)


def _cut(sessions: Sequence[Session], limit: int) -> tuple[list[Session], int]:
    """The sessions in time order holding at most `limit` distinct papers, and how many papers were left out."""
    kept: list[Session] = []
    ids: set[str] = set()
    left: set[str] = set()
    for s in sessions:
        items = []
        for p in s.items:
            if p.paper_id in ids or len(ids) < limit:
                ids.add(p.paper_id)
                items.append(p)
            else:
                left.add(p.paper_id)
        if items:
            kept.append(replace(s, items=tuple(items)))
    return kept, len(left - ids)


def paper_ids(today: Today) -> list[str]:
    """The ids a "today" digest shows, once each, in the order shown (what its run row records)."""
    return list(dict.fromkeys(p.paper_id for s in (*today.sessions, *today.orals) for p in s.items))
