"""Conference-day reminders in Slack: a DM shortly before each saved paper's session, from a tick every 30 s.

Why the bot's own tick and not Slack's chat.scheduleMessage: a reminder worked out at the moment it is due, from the
saves, the opt-ins and the index as they are then, needs nothing cancelled or moved when a paper is unsaved, a person
opts out or a re-fetch moves a session; the one claim row per person and session (bot/state/reminders.py) is the
whole exactly-once story. Messages scheduled in Slack would each need their id kept, a delete that can fail, a sweep
after every re-fetch anyway, and a search of chat.scheduledMessages.list for the one Slack accepted just before a
crash. The price: no reminder while no process serves (a late tick still sends it, until the session starts).

One process per state database ticks (the `plan-reminders` lease, as the digests' scheduler holds its own); even two
ticking together send each reminder once, as the claim is taken before the DM.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.schedulers.background import BackgroundScheduler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.digest.scheduler import run_within, utcnow
from bot.slack.blocks import plan as plan_blocks
from bot.slack.digest_post import MAYBE_POSTED
from bot.state import ERRORS, State
from bot.state.reminders import OptIn
from bot.team import plan as plans
from bot.team import reminders
from bot.team.listing import PaperLookup
from bot.team.plan import Session

log = logging.getLogger(__name__)

LEASE = "plan-reminders"
LEASE_TTL = 90.0  # another process takes over this long after the ticking one stopped
TICK_SECONDS = 30.0  # a reminder goes out at most this long after its time
GONE = frozenset({"user_not_found", "user_disabled", "cannot_dm_bot", "account_inactive", "not_authed", "invalid_auth"})


class SlackReminders:
    """Sends one reminder as a DM (conversations.open, then chat.postMessage), sorting Slack's answers into sent,
    not sent (try again later) and maybe sent (never again)."""

    def __init__(self, client_for: Callable[[str], WebClient | None]) -> None:
        self.client_for = client_for  # workspace → the client posting there (None: the app left it)

    def send(self, person: OptIn, session: Session, minutes_left: int) -> tuple[str, str]:
        """DM the person about the session; (channel, ts) of the message."""
        client = self.client_for(person.team)
        if client is None:
            raise reminders.Unsendable("the app is not installed in this workspace")
        msg = plan_blocks.reminder_message(session, minutes_left, plans.zone(person.tz))
        try:
            channel = str(client.conversations_open(users=person.user)["channel"]["id"])
            resp = client.chat_postMessage(
                channel=channel, text=msg["text"], blocks=msg["blocks"], unfurl_links=False, unfurl_media=False
            )
        except SlackApiError as exc:
            status = exc.response.status_code
            error = str(exc.response.get("error") or f"HTTP {status}")
            if status >= 500 or error in MAYBE_POSTED:
                raise RuntimeError(f"{error} (HTTP {status})") from exc
            if error in GONE:
                raise reminders.Unsendable(error) from exc
            # 429 after the client's own retries, and Slack's other no's
            raise reminders.NotSent(error) from exc
        except OSError as exc:
            if isinstance(exc, ConnectionRefusedError):
                raise reminders.NotSent(str(exc)) from exc
            raise
        return channel, str(resp["ts"])


class ReminderDesk:
    """The reminders of one process: a tick that takes the lease and sends what is due; started by `serve`."""

    def __init__(
        self,
        state: State,
        papers: PaperLookup,
        sender: SlackReminders,
        *,
        clock: Callable[[], datetime] = utcnow,
        owner: str | None = None,
        tick_seconds: float = TICK_SECONDS,
        lease_ttl: float = LEASE_TTL,
    ) -> None:
        self.state, self.papers, self.sender, self.clock = state, papers, sender, clock
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.tick_seconds, self.lease_ttl = tick_seconds, lease_ttl
        self._lock = threading.Lock()
        self.scheduler: BackgroundScheduler | None = None

    def send_due(self, now: datetime) -> list[reminders.Delivery]:
        """Send the reminders due at `now` (claimed first: another process never sends them again)."""
        with self._lock:
            return reminders.send_due(self.state, self.papers, now.astimezone(UTC), self.owner, self.sender.send)

    def tick(self, now: datetime | None = None) -> list[reminders.Delivery] | None:
        """Take or renew the lease, then send what is due; None when another process holds the lease."""
        now = now or self.clock()
        try:
            if not self.state.leases.acquire(LEASE, self.owner, now.timestamp(), self.lease_ttl):
                return None
            return self.send_due(now)
        except ERRORS as exc:
            log.warning("reminders wait for the next tick: the state database is not usable now (%s)", exc)
            return None

    def start(self) -> None:
        """Tick every TICK_SECONDS in a background thread."""
        self.scheduler = BackgroundScheduler(timezone=UTC)
        self.scheduler.add_job(
            self.tick, "interval", seconds=self.tick_seconds, id="plan-reminders", next_run_time=utcnow()
        )
        self.scheduler.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop ticking (a DM being sent gets `timeout` s) and hand the lease back."""
        if self.scheduler is not None and self.scheduler.running:
            scheduler = self.scheduler
            run_within(timeout, lambda: scheduler.shutdown(wait=True))
        try:
            self.state.leases.release(LEASE, self.owner)
        except ERRORS as exc:
            log.warning("could not hand back the reminders lease (%s); it runs out by itself", exc)
