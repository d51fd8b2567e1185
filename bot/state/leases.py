"""The leases table: named, expiring locks, so one process among those sharing the state schedules digests."""

from __future__ import annotations

from dataclasses import dataclass

from bot.state.repository import Repository


@dataclass(frozen=True)
class Lease:
    """Who holds a lease and until when (unix seconds; possibly past)."""

    name: str
    owner: str
    acquired_at: float
    expires_at: float


class Leases(Repository):
    """Take, renew, give up and look at leases; times are passed in, never read from the clock here."""

    def acquire(self, name: str, owner: str, now: float, ttl: float) -> bool:
        """Take or renew a named lease for `ttl` seconds; False while another owner holds an unexpired one."""
        with self._write() as db:
            row = db.execute("SELECT owner, expires_at FROM leases WHERE name = ?", [name]).fetchone()
            if row and row[0] != owner and row[1] > now:
                return False
            if row and row[0] == owner:
                db.execute("UPDATE leases SET expires_at = ? WHERE name = ?", [now + ttl, name])
            else:
                db.execute(
                    "INSERT INTO leases (name, owner, acquired_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) "
                    "DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at, "
                    "expires_at = excluded.expires_at",
                    [name, owner, now, now + ttl],
                )
            return True

    def release(self, name: str, owner: str) -> None:
        """Give a lease up (only if `owner` holds it)."""
        self._db.execute("DELETE FROM leases WHERE name = ? AND owner = ?", [name, owner])

    def holder(self, name: str) -> Lease | None:
        """Who holds a lease and until when (possibly expired), or None."""
        row = self._one("SELECT name, owner, acquired_at, expires_at FROM leases WHERE name = ?", [name])
        return Lease(**row) if row else None
