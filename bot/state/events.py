"""The seen_events table: Slack event ids already handled, so a retried delivery is answered once."""

from __future__ import annotations

import time

from bot.state.repository import Repository

# Slack retries within minutes; a week of ids is plenty and stays small
SEEN_EVENT_TTL = 7 * 24 * 3600
# Prune old ids on about one first sighting in this many (by the second it lands on)
PRUNE_EVERY = 97


class Events(Repository):
    """Event ids seen, shared by every thread and process on the state database."""

    def first_time(self, event_id: str, now: float | None = None) -> bool:
        """True the first time an event id is seen (atomic across threads and processes), False for retries."""
        now = time.time() if now is None else now
        cursor = self._db.execute(
            "INSERT INTO seen_events(event_id, seen_at) VALUES (?, ?) ON CONFLICT DO NOTHING", [event_id, now]
        )
        if cursor.rowcount and int(now) % PRUNE_EVERY == 0:
            self._db.execute("DELETE FROM seen_events WHERE seen_at < ?", [now - SEEN_EVENT_TTL])
        return cursor.rowcount == 1
