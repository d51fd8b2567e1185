"""`icml-bot serve --workers N` in Socket Mode: N processes, each `icml-bot serve` with its own WebSocket (Slack
spreads events over an app's connections, up to 10). This process only starts them, restarts one that dies, and
passes a stop on. What must happen once goes through the shared state database, as with HTTP workers.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time

from bot.config import Config, ConfigError
from bot.serve.runtime import Runtime

MAX_SOCKET_WORKERS = 10  # Slack refuses an app's 11th Socket Mode connection (too_many_websockets)
# A worker that ends within this long of starting failed to start: stop them all
BOOT_SECONDS = 30.0
RESTART_DELAY = 1.0  # a worker that died after starting is started again this much later
# Each worker gets this long after SIGTERM (its own stop is bounded at 35 s) before SIGKILL
STOP_SECONDS = 40.0

log = logging.getLogger(__name__)


class SocketWorkers:
    """The worker processes: started in their own sessions, so Ctrl-C reaches them once, through this process."""

    def __init__(self, count: int, argv: list[str]) -> None:
        self.count = count
        self.argv = argv
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.started: dict[int, float] = {}
        self.stop = threading.Event()
        self.failed: int | None = None

    def spawn(self, slot: int) -> None:
        """Start (or restart) worker `slot`."""
        self.procs[slot] = subprocess.Popen(self.argv, start_new_session=True)
        self.started[slot] = time.monotonic()
        log.info("Socket Mode worker %d started (pid %d)", slot + 1, self.procs[slot].pid)

    def watch(self) -> None:
        """Until a stop: restart a worker that died; stop everything when one fails at start."""
        while not self.stop.wait(0.2):
            for slot, proc in list(self.procs.items()):
                status = proc.poll()
                if status is None:
                    continue
                if time.monotonic() - self.started[slot] < BOOT_SECONDS and status != 0:
                    log.error("Socket Mode worker %d could not start (exit status %d): stopping", slot + 1, status)
                    self.failed = status
                    self.stop.set()
                    break
                log.warning("Socket Mode worker %d ended (exit status %d): starting it again", slot + 1, status)
                time.sleep(RESTART_DELAY)
                self.spawn(slot)

    def terminate(self, sig: int = signal.SIGTERM) -> None:
        """Send every running worker `sig`."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(sig)

    def wait(self, timeout: float) -> None:
        """Wait for every worker to end; SIGKILL those still running after `timeout` s."""
        deadline = time.monotonic() + timeout
        for proc in self.procs.values():
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def supervise(config: Config, workers: int) -> int:
    """Run `workers` Socket Mode processes until SIGTERM or Ctrl-C (a second signal stops them at once)."""
    if workers > MAX_SOCKET_WORKERS:
        raise ConfigError(
            f"--workers {workers} is more than Slack's {MAX_SOCKET_WORKERS} Socket Mode connections per app"
        )
    # The state database, settings and bot token once, before any worker starts
    Runtime.check(config)
    argv = [sys.executable, "-m", "bot", "serve", "--workers", "1", "--db", str(config.db_path)]
    pool = SocketWorkers(workers, argv)
    received: list[str] = []

    def on_signal(signum: int, frame: object) -> None:
        if received:
            log.warning("%s again: stopping the workers at once", signal.Signals(signum).name)
            pool.terminate(signal.SIGKILL)
            os._exit(128 + signum)
        received.append(signal.Signals(signum).name)
        pool.stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    for slot in range(workers):
        pool.spawn(slot)
    log.info("running %d Socket Mode workers", workers)
    pool.watch()
    if received:
        log.info("%s: stopping the Socket Mode workers", received[0])
    pool.terminate()
    pool.wait(STOP_SECONDS)
    return pool.failed or 0
