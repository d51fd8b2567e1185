"""Reminders before each saved paper's session: who opted in, which reminders are due at a given time, and sending
each exactly once.

Nothing is scheduled ahead: at every tick (bot/slack/reminders.py) the due reminders are worked out from the saves,
the opt-ins and the index as they are now, so unsaving a paper, opting out or a re-fetch that moves a session needs
no cancelling. A reminder is keyed by person and session (its start and name): a claim row made before the DM goes
out is what keeps it to one, across processes, replicas and restarts (bot/state/reminders.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from bot.state import State
from bot.state.reminders import OptIn
from bot.team import plan as plans
from bot.team import wants
from bot.team.listing import PaperLookup
from bot.team.plan import Plan, Session

log = logging.getLogger(__name__)

MAX_MINUTES = 240  # reminders at most four hours ahead; more is a plan, not a reminder
DEFAULT_MINUTES = 15


class NotSent(Exception):
    """Slack refused the DM, so nothing went out: the claim is given back and a later tick may try again."""


class Unsendable(Exception):
    """The DM cannot go out (the app left the workspace, the person is gone): given up, never retried."""


class Outcome(StrEnum):
    """What happened to one claimed reminder."""

    SENT = "sent"
    RETRY = "retry"  # Slack refused it: the claim is given back for a later tick
    GAVE_UP = "gave up"  # it can never go out
    UNCERTAIN = "uncertain"  # it may have arrived: never sent again


@dataclass(frozen=True)
class Delivery:
    """One reminder a tick handled: to whom, which session, and what happened."""

    team: str
    user: str
    session: Session
    outcome: Outcome


# (opt-in, session, minutes left) → (channel, ts)
Send = Callable[[OptIn, Session, int], tuple[str, str]]


def minutes_from(word: str) -> int | None:
    """`15` → 15; None for anything that is not a whole number of minutes from 1 to MAX_MINUTES."""
    word = word.strip().removesuffix("min").removesuffix("m").strip()
    if not word.isdigit():
        return None
    n = int(word)
    return n if 1 <= n <= MAX_MINUTES else None


def plans_of(state: State, papers: PaperLookup, team: str, user: str, tz: str) -> list[Plan]:
    """A person's plan for every venue they saved papers of."""
    wanted = wants.of_user(state, papers, team, user)
    venues = sorted({v for w in wanted if (v := plans.venue_of(w))})
    zone = plans.zone(tz)
    return [plans.build(wanted, zone, v) for v in venues]


def due(plan: Plan, minutes: int, now: datetime) -> list[Session]:
    """Sessions whose reminder time has come and that have not started yet (a late tick still reminds)."""
    ahead = timedelta(minutes=minutes)
    return [s for s in plan.sessions if s.start - ahead <= now < s.start]


def upcoming(found: Sequence[Plan], now: datetime, count: int = 3) -> list[Session]:
    """The next sessions to be reminded of, soonest first."""
    later = sorted((s for p in found for s in p.sessions if s.start > now), key=lambda s: (s.start, s.name))
    return later[:count]


def send_due(state: State, papers: PaperLookup, now: datetime, owner: str, send: Send) -> list[Delivery]:
    """Send every reminder due at `now` that no process claimed before; each claimed first, then sent."""
    done: list[Delivery] = []
    for person in state.reminders.everyone():
        for found in plans_of(state, papers, person.team, person.user, person.tz):
            for session in due(found, person.minutes, now):
                due_at = (session.start - timedelta(minutes=person.minutes)).timestamp()
                if not state.reminders.claim(person.team, person.user, session.key, due_at, owner, now.timestamp()):
                    continue
                done.append(Delivery(person.team, person.user, session, _send(state, person, session, now, send)))
    return done


def _send(state: State, person: OptIn, session: Session, now: datetime, send: Send) -> Outcome:
    """Send one claimed reminder and record what happened."""
    left = max(1, round((session.start - now).total_seconds() / 60))
    try:
        channel, ts = send(person, session, left)
    except NotSent:
        state.reminders.release(person.team, person.user, session.key)
        return Outcome.RETRY
    except Unsendable as exc:
        state.reminders.uncertain(person.team, person.user, session.key, f"not sent: {exc}")
        return Outcome.GAVE_UP
    except Exception as exc:  # a timeout, a dropped connection: it may have arrived, so never again
        log.warning("the reminder of %s for %s may not have arrived: %s", session.key, person.user, exc)
        state.reminders.uncertain(person.team, person.user, session.key, f"{type(exc).__name__}: {exc}")
        return Outcome.UNCERTAIN
    state.reminders.sent(person.team, person.user, session.key, channel, ts)
    return Outcome.SENT
