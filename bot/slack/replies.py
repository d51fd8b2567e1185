"""Getting replies to Slack and noticing when they don't arrive: response_url and chat.postMessage, with their
failures turned into one exception (Bolt's own respond() returns failures instead of raising them)."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry import ConnectionErrorRetryHandler, RetryHandler
from slack_sdk.http_retry.builtin_handlers import ServerErrorRetryHandler
from slack_sdk.webhook import WebhookClient

from bot.slack import blocks
from bot.slack.home_publisher import retry_after

RESPONSE_URL_TIMEOUT = 10

log = logging.getLogger(__name__)


def retry_handlers() -> list[RetryHandler]:
    """Retries for listeners' Web API and response_url calls: dropped connections and 500/503, never a 429.

    slack_sdk's RateLimitErrorRetryHandler sleeps Retry-After in the calling thread: in a listener that holds a
    thread other users' clicks and mentions wait for. A 429 fails the call at once instead (the user is told);
    Home views are retried by bot/slack/home_publisher.py, digests by their own client (bot/slack/digest_post.py).
    """
    return [ConnectionErrorRetryHandler(max_retry_count=1), ServerErrorRetryHandler(max_retry_count=2)]


class DeliveryError(RuntimeError):
    """Slack did not take a message; `where` is the method (or "response_url") and `error` Slack's reason;
    `retry_after` the seconds Slack asked us to wait when it answered 429 (None otherwise)."""

    def __init__(self, where: str, error: str, retry_after: float | None = None) -> None:
        super().__init__(f"{where} failed: {error}")
        self.where = where
        self.error = error
        self.retry_after = retry_after


def respond(response_url: str, msg: blocks.Message, **options: Any) -> None:
    """POST a message to a response_url (`response_type`, `replace_original`, …); raise DeliveryError on failure.

    Bolt's `respond()` returns the failure instead of raising it, which makes silent failures easy; this doesn't.
    """
    body = {**msg, **{k: v for k, v in options.items() if v is not None}}
    hook = WebhookClient(response_url, timeout=RESPONSE_URL_TIMEOUT, retry_handlers=retry_handlers())
    try:
        resp = hook.send_dict(body)
    except OSError as exc:
        raise DeliveryError("response_url", f"{type(exc).__name__}: {exc}") from exc
    if resp.status_code != 200:
        raise DeliveryError("response_url", f"HTTP {resp.status_code} {str(resp.body)[:200]}")


def post(client: WebClient, channel: str, msg: blocks.Message, thread_ts: str | None = None) -> str:
    """chat.postMessage; returns the new message's ts or raises DeliveryError (also on a 429: no wait here, the
    caller may try again after the error's `retry_after`)."""
    try:
        resp = client.chat_postMessage(channel=channel, thread_ts=thread_ts, **msg)
    except SlackApiError as exc:
        wait = retry_after(exc.response.headers) if exc.response.status_code == 429 else None
        error = str(exc.response.get("error") or exc.response.status_code)
        raise DeliveryError("chat.postMessage", error, wait) from exc
    except OSError as exc:
        raise DeliveryError("chat.postMessage", f"{type(exc).__name__}: {exc}") from exc
    return str(resp.get("ts") or "")
