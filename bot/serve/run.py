"""`icml-bot serve`: one Socket Mode process here, or many processes (gunicorn for HTTP, a supervisor for Socket
Mode), until SIGTERM or Ctrl-C."""

from __future__ import annotations

import logging
import os
import signal
import threading

from bot.config import Config
from bot.serve.runtime import Runtime
from bot.serve.socket_mode import start_socket_mode

DEFAULT_PORT = 3000

log = logging.getLogger(__name__)


def serve(config: Config, http: bool = False, host: str = "0.0.0.0", port: int = DEFAULT_PORT, workers: int = 1) -> int:
    """`icml-bot serve` (tokens already checked by the CLI): build the app (auth.test), serve until SIGTERM or Ctrl-C.

    HTTP mode runs gunicorn with `workers` processes (bot/serve/http_workers.py); Socket Mode with more than one
    worker runs that many connected processes (bot/serve/socket_workers.py). On the first SIGTERM/SIGINT it stops
    taking requests, lets those in progress and a digest being posted finish (bounded), stops the scheduler and
    hands its lease back, and returns 0; a second signal ends it at once.
    """
    if http or workers > 1:
        # gunicorn and waitress only when they run
        from bot.serve import http_workers, socket_workers

        status = http_workers.serve(config, host, port, workers) if http else socket_workers.supervise(config, workers)
        log.info("stopped" if status == 0 else f"stopped (exit status {status})")
        return status
    stop = threading.Event()
    received: list[str] = []

    def on_signal(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        if stop.is_set():  # a second signal: the operator does not want to wait
            log.warning(
                "%s again: stopping at once (a digest being posted is checked in the channel history at "
                "the next start)",
                name,
            )
            os._exit(128 + signum)
        received.append(name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    runtime = Runtime.start(config)
    handler = start_socket_mode(runtime.app, config)
    log.info("connected to Slack over Socket Mode")
    stop.wait()
    log.info(
        "%s: stopping (closing Socket Mode; finishing replies in progress and any digest being posted)",
        received[0] if received else "stop",
    )
    handler.close()
    runtime.stop()
    log.info("stopped")
    return 0
