"""The plan_reminders tables: who asked for a DM before their saved papers' sessions, and each reminder's claim."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.state.repository import Repository


class Sent(StrEnum):
    """Where one reminder stands: claimed (being sent), sent, or uncertain (maybe sent: never sent again)."""

    CLAIMED = "claimed"
    SENT = "sent"
    UNCERTAIN = "uncertain"


@dataclass(frozen=True)
class OptIn:
    """A person's reminders: how many minutes before each session, in which time zone."""

    team: str
    user: str
    minutes: int
    tz: str


@dataclass(frozen=True)
class Reminder:
    """One reminder as claimed: the session (its start and name), when it was due, where it stands."""

    team: str
    user: str
    session: str
    due_at: float
    status: Sent
    owner: str
    channel: str | None
    ts: str | None


class Reminders(Repository):
    """Opt-ins and claims; times are passed in, never read from the clock here."""

    def opt_in(self, team: str, user: str, minutes: int, tz: str, at: float) -> None:
        """Ask for reminders (again: the new number of minutes and zone replace the old)."""
        self._db.execute(
            'INSERT INTO plan_reminders (team, "user", minutes, tz, created_at) VALUES (?, ?, ?, ?, ?) '
            'ON CONFLICT (team, "user") DO UPDATE SET minutes = excluded.minutes, tz = excluded.tz',
            [team, user, minutes, tz, at],
        )

    def opt_out(self, team: str, user: str) -> bool:
        """Stop reminders; False when there were none."""
        cursor = self._db.execute('DELETE FROM plan_reminders WHERE team = ? AND "user" = ?', [team, user])
        return cursor.rowcount == 1

    def forget(self, team: str) -> int:
        """Every opt-in of a workspace that uninstalled the app (its claims stay: none is sent twice)."""
        return int(self._db.execute("DELETE FROM plan_reminders WHERE team = ?", [team]).rowcount)

    def of(self, team: str, user: str) -> OptIn | None:
        """A person's opt-in, or None."""
        row = self._one(
            'SELECT team, "user", minutes, tz FROM plan_reminders WHERE team = ? AND "user" = ?', [team, user]
        )
        return OptIn(**row) if row else None

    def everyone(self) -> list[OptIn]:
        """Every opt-in of every workspace (what a tick looks at)."""
        return [OptIn(**row) for row in self._all('SELECT team, "user", minutes, tz FROM plan_reminders', [])]

    def claim(self, team: str, user: str, session: str, due_at: float, owner: str, now: float) -> bool:
        """Take the reminder of a session for a person: True for the one caller that made the row (send it), False
        when any process claimed it before, this run or an earlier one."""
        cursor = self._db.execute(
            'INSERT INTO plan_reminders_sent (team, "user", session, due_at, status, owner, claimed_at) '
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [team, user, session, due_at, Sent.CLAIMED, owner, now],
        )
        return cursor.rowcount == 1

    def sent(self, team: str, user: str, session: str, channel: str, ts: str) -> None:
        """Record that Slack took the DM."""
        self._db.execute(
            'UPDATE plan_reminders_sent SET status = ?, channel = ?, ts = ? WHERE team = ? AND "user" = ? '
            "AND session = ?",
            [Sent.SENT, channel, ts, team, user, session],
        )

    def release(self, team: str, user: str, session: str) -> None:
        """Give a claim back after Slack said no (nothing was sent): a later tick may try again."""
        self._db.execute(
            'DELETE FROM plan_reminders_sent WHERE team = ? AND "user" = ? AND session = ? AND status = ?',
            [team, user, session, Sent.CLAIMED],
        )

    def uncertain(self, team: str, user: str, session: str, error: str) -> None:
        """Record that the DM may have gone out (a timeout, a 5xx): it is never sent again."""
        self._db.execute(
            'UPDATE plan_reminders_sent SET status = ?, error = ? WHERE team = ? AND "user" = ? AND session = ?',
            [Sent.UNCERTAIN, error[:500], team, user, session],
        )

    def claims(self, team: str, user: str) -> list[Reminder]:
        """A person's reminders claimed or sent, oldest due first."""
        rows = self._all(
            'SELECT team, "user", session, due_at, status, owner, channel, ts FROM plan_reminders_sent '
            'WHERE team = ? AND "user" = ? ORDER BY due_at, session',
            [team, user],
        )
        return [Reminder(**{**row, "status": Sent(row["status"])}) for row in rows]
