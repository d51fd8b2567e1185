"""Keeping the index fresh while the bot serves (ICML_BOT_REFRESH): fetch the indexed venues again, load in one go.

The load is `icml-bot fetch`'s: one transaction, so readers see the old index or the new one, and a failed fetch
changes nothing. The clock is the index's own `last_indexed`, so a restart does not fetch again early, and several
processes serving one index file fetch once between them (the first takes a lock file, the others find it fresh).
"""

from __future__ import annotations

import fcntl
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.config import Config
from bot.papers import fetching, index
from bot.papers.corpus import SourceError
from bot.papers.fetch.openreview import Credentials
from bot.papers.lookup import last_indexed as stamp_of
from bot.papers.lookup import source_names
from bot.papers.reading import Error
from bot.papers.venues import DEFAULT_VENUE, Scope, Venue, VenueError, parse_venue
from bot.search.cache import warm_file

log = logging.getLogger(__name__)
CHECK_SECONDS = 60.0  # how often the refresher looks at the index's age
KEPT_OUTCOMES = 10  # refresh outcomes a running bot keeps (the latest): it runs for months
_FETCHED = re.compile(r"^(?P<venue>[a-z]+\d{4}(?:-[a-z]+)?)\.(?:fetched|site|openreview)\.jsonl$")


def last_indexed(path: Path) -> datetime | None:
    """When the index was last loaded (meta.last_indexed), None when it has no stamp or cannot be read."""
    try:
        db = index.connect(path, readonly=True)
    except (index.IndexUnavailable, OSError):
        return None
    try:
        stamp = stamp_of(db)
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) if stamp else None
    except (ValueError, Error):
        return None
    finally:
        db.conn.close()


def due(stamp: datetime | None, now: datetime, every: int) -> bool:
    """Whether an index stamped `stamp` is older than `every` seconds at `now` (an unstamped one always is)."""
    return stamp is None or now - stamp >= timedelta(seconds=every)


def venues_to_fetch(path: Path, scope: Scope) -> list[Venue]:
    """The venues `icml-bot fetch` loaded into this index (from its sources table), else those ICML_BOT_VENUES
    names, else ICML 2026."""
    names: list[str] = []
    try:
        db = index.connect(path, readonly=True)
        try:
            names = [m["venue"] for name in source_names(db) if (m := _FETCHED.match(name))]
        finally:
            db.conn.close()
    except (index.IndexUnavailable, OSError, Error):
        pass
    if not names:
        names = [key if track is None else f"{key}-{track}" for key, track in scope.venues] or [DEFAULT_VENUE]
    out: list[Venue] = []
    for name in dict.fromkeys(names):
        try:
            out.append(parse_venue(name))
        except VenueError:
            log.warning("refresh: skipping %s, which fetch does not know", name)
    return out


def fetch_settings(config: Config) -> fetching.Settings:
    """What `icml-bot fetch` would use without flags: the cache, ICML_BOT_SITE_URL, OpenReview and its login."""
    user, password = config.openreview_username, config.openreview_password
    return fetching.Settings(
        cache_dir=config.cache_dir,
        site_url=config.site_url or None,
        openreview_url=config.openreview_url,
        credentials=Credentials(user, password) if user and password else None,
        missing=tuple(name for name, v in (("OPENREVIEW_USERNAME", user), ("OPENREVIEW_PASSWORD", password)) if not v),
    )


def start(config: Config) -> Refresher | None:
    """The refresher `icml-bot serve` runs when ICML_BOT_REFRESH is set; None when it is off."""
    if config.refresh is None:
        return None
    return Refresher(config.db_path, config.refresh, fetch_settings(config), config.venues).start()


@dataclass
class Outcome:
    """What one refresh did, as the one log line it writes."""

    ok: bool
    line: str


def refresh_once(path: Path, venues: Sequence[Venue], settings: fetching.Settings) -> Outcome:
    """Fetch and load the venues now; never raises for a fetch or load that fails (the old index stays)."""
    started = time.perf_counter()
    names = " ".join(v.name for v in venues)
    try:
        report = fetching.fetch_venues(path, venues, settings)
    except (SourceError, OSError, Error) as exc:
        return Outcome(False, f"refresh of {names} failed, the index is unchanged: {exc}")
    took = time.perf_counter() - started
    if report.index is None:
        return Outcome(False, f"refresh of {names}: {report.nothing_usable()}; the index is unchanged")
    r = report.index
    failed = "; ".join(s.line() for s in report.failed)
    line = (
        f"refreshed {names} in {took:.1f} s: {r.papers} papers ({r.added} added, {r.updated} updated, "
        f"{r.merged} merged, {r.unchanged} unchanged)"
    )
    return Outcome(not failed, line + (f"; {failed}" if failed else ""))


class Refresher:
    """A daemon thread that refreshes the index when it is older than `every` seconds; stop() ends it."""

    def __init__(
        self,
        path: Path,
        every: int,
        settings: fetching.Settings,
        scope: Scope | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        check: float = CHECK_SECONDS,
    ) -> None:
        self.path, self.every, self.settings, self.scope = path, every, settings, scope or Scope()
        self.clock, self.check = clock, check
        self.stopping = threading.Event()
        self.outcomes: deque[Outcome] = deque(maxlen=KEPT_OUTCOMES)  # newest last
        self._thread: threading.Thread | None = None

    def tick(self) -> Outcome | None:
        """Refresh if the index is due and no other process is refreshing it; the outcome, or None if not due."""
        if not due(last_indexed(self.path), self.clock(), self.every):
            return None
        lock_path = self.path.with_name(self.path.name + ".refresh.lock")
        with open(lock_path, "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return None  # another process serving this index is refreshing it
            if not due(last_indexed(self.path), self.clock(), self.every):
                return None  # it just did
            outcome = refresh_once(self.path, venues_to_fetch(self.path, self.scope), self.settings)
        (log.info if outcome.ok else log.warning)("%s", outcome.line)
        self.outcomes.append(outcome)
        # The index as loaded, read here: no search waits for it, nor for a rebuild
        warm_file(self.path)
        return outcome

    def start(self) -> Refresher:
        """Check now and then every `check` seconds, in a daemon thread."""
        self._thread = threading.Thread(target=self._loop, name="index-refresh", daemon=True)
        self._thread.start()
        log.info("refreshing the index every %s (ICML_BOT_REFRESH)", _every(self.every))
        return self

    def _loop(self) -> None:
        while not self.stopping.is_set():
            try:
                self.tick()
            except Exception:  # a bug must not end refreshing for the life of the process
                log.exception("refresh failed unexpectedly; the index is unchanged")
            self.stopping.wait(self.check)

    def stop(self, timeout: float = 5.0) -> None:
        """No further refreshes; a fetch under way is left to finish in its daemon thread (its load is atomic)."""
        self.stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)


def _every(seconds: int) -> str:
    return "day" if seconds == 86400 else f"{seconds // 3600} h" if seconds % 3600 == 0 else f"{seconds // 60} min"
