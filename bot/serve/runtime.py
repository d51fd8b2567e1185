"""What one serving process runs (state, digests, the Bolt app, Home views, the refresher) and its bounded stop."""

from __future__ import annotations

import gc
import logging
import threading
from dataclasses import dataclass

from slack_bolt import App

from bot import wiring
from bot.config import Config
from bot.digest.scheduler import run_within
from bot.digest.service import DigestService
from bot.serve import refresh
from bot.slack.app import build_app
from bot.slack.home_publisher import HomePublisher
from bot.slack.reminders import ReminderDesk
from bot.state import State

# At shutdown, how long each kind of work in progress gets to finish: requests, replies started by listeners (they
# post to Slack), and a digest being posted (its own timeout is 30 s; a claim keeps it from doubling).
STOP_REQUESTS_SECONDS = 5
STOP_LISTENERS_SECONDS = 10
STOP_DIGEST_SECONDS = 20

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """What one serving process runs: its state connection, the digest desk and the Bolt app built on them."""

    state: State
    digests: DigestService
    app: App
    publisher: HomePublisher  # Home views, published off the listener threads
    # ICML_BOT_REFRESH: fetch again and load in one transaction
    refresher: refresh.Refresher | None = None
    # conference-day DMs (one process per state database sends them)
    reminders: ReminderDesk | None = None

    @classmethod
    def build(cls, config: Config) -> Runtime:
        """Open the state database and build the app (auth.test); nothing runs yet."""
        parts = wiring.build(config)  # checks ICML_DIGEST_CHANNEL first
        publisher = HomePublisher()
        app = build_app(config, parts.services, publisher=publisher)
        return cls(parts.state, parts.digests, app, publisher, reminders=parts.reminders)

    @classmethod
    def start(cls, config: Config) -> Runtime:
        """Build it and start the digest scheduler (one process per state database schedules; the others log so)."""
        runtime = cls.build(config)
        warming = runtime.digests.builder.papers.warm()
        threading.Thread(target=freeze_when_warm, args=(warming,), name="gc-freeze", daemon=True).start()
        runtime.digests.start_scheduler()
        if runtime.reminders is not None:
            runtime.reminders.start()
        # Several processes on one index: the first due one fetches
        runtime.refresher = refresh.start(config)
        return runtime

    @classmethod
    def check(cls, config: Config) -> None:
        """Fail before forking workers on what start() would refuse (state database, settings, a rejected token)."""
        cls.build(config).state.close()

    def stop(self) -> None:
        """Let replies in progress, the Home views they queued and a digest being posted finish (bounded), hand the
        lease back, close the state."""
        if self.refresher is not None:
            self.refresher.stop()
        if not drain_listeners(self.app, STOP_LISTENERS_SECONDS):
            log.warning(
                "replies still in progress after %ds; they finish before the process exits", STOP_LISTENERS_SECONDS
            )
        self.publisher.stop()
        if self.reminders is not None:
            self.reminders.stop()
        if not self.digests.stop(timeout=STOP_DIGEST_SECONDS):
            log.warning(
                "a digest post is still running after %ds; its claim stays in the state database, so it is "
                "checked in the channel history before anything posts it again",
                STOP_DIGEST_SECONDS,
            )
        self.state.close()


def freeze_when_warm(warming: threading.Thread) -> None:
    """Once the index is warm, take what the process keeps for good (modules, the app, the index's caches) out of
    Python's cycle collector: its full passes walked all of it with every request waiting (how long and how often
    under python -m bench serve's load: docs/benchmarks.md). Frozen objects are still freed when nothing
    refers to them (a new index's caches replace the old ones); only a reference cycle among them would stay."""
    warming.join()
    gc.freeze()


def drain_listeners(app: App, timeout: float) -> bool:
    """Let the listener threads finish what they started (mention replies, button answers); True if they did."""
    executor = getattr(app.listener_runner, "listener_executor", None)
    if executor is None:
        return True
    return run_within(timeout, lambda: executor.shutdown(wait=True))
