"""Logging for every command, set up once: stderr at ICML_BOT_LOG_LEVEL, secrets masked, chatty loggers thinned."""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
from collections.abc import Iterable

from bot.config import SECRET_FIELDS, Config
from bot.state import postgres


class RedactSecrets(logging.Filter):
    """Replace Slack tokens and the configured secrets in every log line, whatever library logged it."""

    PATTERN = re.compile(r"\b(xox[a-z]|xapp)-[\w-]+")
    # any length, in any URL
    URL_PASSWORD = re.compile(r"\b(postgres(?:ql)?(?:\+\w+)?://[^:@/\s]*:)[^@\s]*@")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if len(s) >= 6]

    def redact(self, text: str) -> str:
        """`text` with every Slack token and configured secret masked."""
        clean = self.URL_PASSWORD.sub(r"\1[redacted]@", self.PATTERN.sub(r"\1-[redacted]", text))
        for secret in self.secrets:
            clean = clean.replace(secret, "[redacted]")
        return clean

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the formatted message, traceback and stack with secrets masked (always keeps the record)."""
        text = record.getMessage()
        clean = self.redact(text)
        if clean != text:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info, record.exc_text = None, self.redact(exc_text)
        elif record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


class RateLimit(logging.Filter):
    """At most one record per `seconds` from a chatty logger; the next one says how many were left out."""

    def __init__(self, seconds: float = 60.0) -> None:
        super().__init__()
        self.seconds = seconds
        self._next = 0.0
        self._dropped = 0
        self._lock = threading.Lock()

    def allow(self) -> int | None:
        """None while within `seconds` of the last allowed event; else how many were left out since then."""
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                self._dropped += 1
                return None
            self._next = now + self.seconds
            dropped, self._dropped = self._dropped, 0
            return dropped

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep the record if the last kept one is older than `seconds`."""
        dropped = self.allow()
        if dropped is None:
            return False
        if dropped:
            record.msg, record.args = f"{record.getMessage()} ({dropped} similar messages left out)", None
        return True


def setup_logging(config: Config) -> None:
    """Log lines to stderr at the configured level, with tokens and the signing secret masked."""
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    logging.getLogger().setLevel(config.log_level)
    redact = RedactSecrets(
        (
            *(getattr(config, name) for name in sorted(SECRET_FIELDS - {"state_url"})),
            *postgres.passwords(
                config.state_url
            ),  # the URL's password, as written and percent-decoded (libpq quotes either)
        )
    )
    for handler in logging.getLogger().handlers:
        for old in [f for f in handler.filters if isinstance(f, RedactSecrets)]:
            # Set up again (tests, a second command in one process): the newest secrets
            handler.removeFilter(old)
        handler.addFilter(redact)
    # waitress warns once per queued request when every thread is busy: thousands of lines a minute under load.
    queue_log = logging.getLogger("waitress.queue")
    if not any(isinstance(f, RateLimit) for f in queue_log.filters):
        queue_log.addFilter(RateLimit())
