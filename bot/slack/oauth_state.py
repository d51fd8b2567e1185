"""The OAuth state of "Add to Slack", signed instead of stored: the unauthenticated install page writes nothing.

A state is `<issued>.<nonce>.<signature>`, an HMAC-SHA256 keyed by the app's client secret (only this app and Slack
know it), so every replica can check a state any other one issued. /slack/oauth_redirect accepts it until it expires.

Replay within the expiry is accepted, knowingly: Bolt also requires the state cookie (HttpOnly, Secure) the install
page set in the same browser, and Slack's code is single use, so a state used twice can only finish that browser's own
install again. Refusing replays would mean writing each used state, a row per unauthenticated request again.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from slack_sdk.oauth.state_store import OAuthStateStore

NONCE_BYTES = 16  # 128 random bits: two states of one second never collide
# A state issued by a replica whose clock runs this far ahead is still accepted
CLOCK_SKEW_SECONDS = 60
# issued, nonce, signature
SHAPE = re.compile(r"([0-9]{1,12})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})")
PURPOSE = b"icml-bot oauth state"  # the key signs nothing else, but say what it signs

log = logging.getLogger(__name__)


class SignedStates(OAuthStateStore):
    """Bolt's state store without storage: issue() signs the time and a nonce; consume() checks both."""

    def __init__(self, secret: str, expiry_seconds: int, clock: Callable[[], float] = time.time) -> None:
        self._key = secret.encode()
        self.expiry_seconds = expiry_seconds
        self.clock = clock

    @property
    def logger(self) -> logging.Logger:
        """Where Bolt's flow logs about states."""
        return log

    def issue(self, *args: Any, **kwargs: Any) -> str:
        """A new state for the install page's link and cookie."""
        issued, nonce = str(int(self.clock())), secrets.token_urlsafe(NONCE_BYTES)
        return f"{issued}.{nonce}.{self._sign(issued, nonce)}"

    def consume(self, state: str) -> bool:
        """Whether the state came back signed by this app and unexpired; any other text is refused, never raises."""
        found = SHAPE.fullmatch(state) if isinstance(state, str) else None
        if found is None or not hmac.compare_digest(found[3].encode(), self._sign(found[1], found[2]).encode()):
            log.info("an OAuth state came back that this app never issued")
            return False
        age = self.clock() - int(found[1])
        if not -CLOCK_SKEW_SECONDS <= age <= self.expiry_seconds:
            log.info("an OAuth state came back after %d s, more than the %d s it is valid", age, self.expiry_seconds)
            return False
        return True

    def _sign(self, issued: str, nonce: str) -> str:
        mac = hmac.new(self._key, b"|".join((PURPOSE, issued.encode(), nonce.encode())), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
