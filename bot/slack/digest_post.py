"""The digest's Poster for Slack: chat.postMessage with a marker, and finding that marker in conversations.history.

Slack's answers are sorted into what the digest module needs to stay exactly-once: "not posted" (PostRejected:
Slack said no, or a 429 even after waiting Retry-After), "maybe posted" (PostUncertain: a timeout, a dropped
connection, a 5xx or internal_error) and "cannot tell" (HistoryUnavailable). The client retries only 429s: an
automatic retry after a timeout could post the digest twice.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import date
from urllib.error import URLError

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry import RateLimitErrorRetryHandler

from bot.digest.model import Digest, HistoryUnavailable, PostRejected, PostUncertain
from bot.slack.blocks import digest as digest_blocks

# Seconds; a post that takes longer is checked in the history, never blindly retried
POST_TIMEOUT = 30
HISTORY_PAGE = 200
HISTORY_PAGES = 5
HISTORY_MARGIN = 600  # seconds before the claim to start looking (clock skew between us and Slack)
# Slack errors that mean "it may have happened anyway" (docs: "some aspect of the operation succeeded").
MAYBE_POSTED = frozenset({"internal_error", "fatal_error", "service_unavailable", "request_timeout"})
PASSING = frozenset({"ratelimited", "rate_limited"})
NOT_INSTALLED = "the app is not installed in this channel's workspace (uninstalled?); install it again to resume"


class SlackPoster:
    """Posts digests with a client of its own (same token and URL) that retries 429s and nothing else."""

    def __init__(
        self,
        client: WebClient,
        timeout: int = POST_TIMEOUT,
        rate_limit_retries: int = 3,
        token_for: Callable[[str], str | None] | None = None,
    ) -> None:
        self.client = WebClient(
            token=client.token,
            base_url=client.base_url,
            timeout=timeout,
            retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries)],
        )
        # Many workspaces: workspace → its bot token (None: not installed)
        self.token_for = token_for

    def _client(self, team: str) -> WebClient | None:
        """The client for a workspace's digest: the one token, or that workspace's (None when the app left it)."""
        if self.token_for is None:
            return self.client
        # A digest no workspace has adopted posts nowhere
        token = self.token_for(team) if team else None
        if not token:
            return None
        c = self.client
        return WebClient(token=token, base_url=c.base_url, timeout=c.timeout, retry_handlers=c.retry_handlers)

    def client_for(self, team: str) -> WebClient | None:
        """The client that posts in a workspace, None when the app left it (reminders DM with it too)."""
        return self._client(team)

    def post(self, digest: Digest) -> str:
        """chat.postMessage with the digest's blocks, fallback text and marker; returns the message ts."""
        msg = digest_blocks.digest_message(digest)
        client = self._client(digest.team)
        if client is None:
            raise PostRejected(NOT_INSTALLED, permanent=True)
        try:
            resp = client.chat_postMessage(
                channel=digest.channel,
                text=msg["text"],
                blocks=msg["blocks"],
                metadata=digest_blocks.metadata(digest),
                unfurl_links=False,
                unfurl_media=False,
            )
        except SlackApiError as exc:
            status = exc.response.status_code
            error = str(exc.response.get("error") or f"HTTP {status}")
            if status == 429 or error in PASSING:
                raise PostRejected("ratelimited", permanent=False) from exc
            if status >= 500 or error in MAYBE_POSTED:
                raise PostUncertain(f"{error} (HTTP {status})") from exc
            raise PostRejected(error, permanent=True) from exc
        except URLError as exc:
            if isinstance(exc.reason, ConnectionRefusedError | socket.gaierror):
                raise PostRejected(f"cannot reach Slack ({exc.reason})", permanent=False) from exc
            raise PostUncertain(f"{type(exc).__name__}: {exc.reason}") from exc
        except OSError as exc:  # timeouts, resets: the request may have been processed
            raise PostUncertain(f"{type(exc).__name__}: {exc}") from exc
        return str(resp["ts"])

    def find(self, channel: str, day: date, since: float, team: str = "") -> str | None:
        """The ts of workspace `team`'s digest for `day` in the channel history after `since` (unix time), or None."""
        cursor = None
        client = self._client(team)
        if client is None:
            raise HistoryUnavailable(NOT_INSTALLED)
        for _ in range(HISTORY_PAGES):
            try:
                resp = client.conversations_history(
                    channel=channel,
                    oldest=f"{since - HISTORY_MARGIN:.6f}",
                    limit=HISTORY_PAGE,
                    include_all_metadata=True,
                    cursor=cursor,
                )
            except SlackApiError as exc:
                raise HistoryUnavailable(str(exc.response.get("error") or exc.response.status_code)) from exc
            except OSError as exc:
                raise HistoryUnavailable(f"{type(exc).__name__}: {exc}") from exc
            for message in resp.get("messages") or []:
                if message.get("bot_id") and digest_blocks.is_digest(message, channel, day, team):
                    return str(message["ts"])
            cursor = (resp.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return None
        # Not found in the newest messages but more remain: saying "not there" could post a second digest.
        raise HistoryUnavailable(f"more than {HISTORY_PAGE * HISTORY_PAGES} messages since the digest was claimed")
