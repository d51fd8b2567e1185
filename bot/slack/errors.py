"""The app's one error handler: log what failed, then tell the user, never leaving them with silence."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import blocks
from bot.slack.replies import DeliveryError, respond

log = logging.getLogger(__name__)

APOLOGY = "Sorry, something went wrong on my side and I couldn't finish that. Please try again in a minute."
SLOW_DOWN = "Slack asked me to slow down, so I couldn't post my answer. Please try again in a few seconds."
# Slack errors that mean the bot token itself is refused: nothing can be posted until someone fixes it.
TOKEN_ERRORS = (
    "invalid_auth",
    "not_authed",
    "account_inactive",
    "token_revoked",
    "token_expired",
    "not_allowed_token_type",
)


def where(body: dict[str, Any]) -> tuple[str | None, str | None, str | None, str | None]:
    """Who is waiting for an answer to this request: (user, channel, thread_ts, response_url)."""
    event = body.get("event") or {}
    user = body.get("user_id") or (body.get("user") or {}).get("id") or event.get("user")
    channel = body.get("channel_id") or (body.get("channel") or {}).get("id") or event.get("channel")
    thread_ts = event.get("thread_ts") or event.get("ts")
    return user, channel, thread_ts, body.get("response_url")


def on_error(
    error: Exception,
    body: dict[str, Any],
    response: BoltResponse | None,
    client: WebClient | None,
    logger: logging.Logger,
) -> BoltResponse | None:
    """The app's one error handler: log what failed, then tell the user (never leave them with silence)."""
    user, channel, thread_ts, response_url = where(body or {})
    kind = (body or {}).get("type") or ("slash_command" if (body or {}).get("command") else "unknown")
    if isinstance(error, DeliveryError):
        logger.error("could not deliver a reply to %s in %s (%s): %s", user, channel, kind, error)
        if error.error in TOKEN_ERRORS:
            logger.error(
                "Slack refuses the bot token (%s): nothing can be posted until the app is reinstalled or "
                "SLACK_BOT_TOKEN is updated and the bot restarted",
                error.error,
            )
    else:
        logger.exception("failed to handle a %s from %s in %s: %s", kind, user, channel, error)
    if response is not None and kind in ("slash_command", "block_actions"):
        # Not acknowledged yet: the apology itself is the acknowledgement, shown only to the user.
        return BoltResponse(status=200, body={"text": APOLOGY, "response_type": "ephemeral"})
    if isinstance(error, DeliveryError) and error.error in TOKEN_ERRORS and not response_url:
        return None  # an apology with the same token would be refused the same way
    apologize(client, user, channel, thread_ts, response_url, error)
    return None


def acks_first(handler: Callable[..., None]) -> Callable[..., None]:
    """A button listener whose failures after its ack() go straight to on_error.

    Bolt resets the acknowledgement when a listener that already acked raises; when that happens within its 10 ms
    polling of the ack, the HTTP request waits 3 s and answers 404, and Slack shows the user an error on top of our
    apology. A failure before the ack still goes to Bolt, which turns on_error's apology into the ack.
    """
    wanted = set(inspect.signature(handler).parameters)

    def listener(
        ack: Ack, action: dict[str, Any], body: dict[str, Any], client: WebClient, logger: logging.Logger
    ) -> None:
        given = {"ack": ack, "action": action, "body": body, "client": client, "logger": logger}
        try:
            handler(**{name: value for name, value in given.items() if name in wanted})
        except Exception as exc:
            if ack.response is None:
                raise
            on_error(exc, body, None, client, logger)

    listener.__name__ = listener.__qualname__ = getattr(handler, "__name__", "listener")
    return listener


def apologize(
    client: WebClient | None,
    user: str | None,
    channel: str | None,
    thread_ts: str | None,
    response_url: str | None,
    error: Exception,
) -> bool:
    """Tell the user something failed (or that Slack rate-limited the answer), by response_url (unless that is
    what failed) or an ephemeral message."""
    limited = isinstance(error, DeliveryError) and error.error == "ratelimited"
    msg = blocks.notice(SLOW_DOWN if limited else APOLOGY)
    failed_url = isinstance(error, DeliveryError) and error.where == "response_url"
    if response_url and not failed_url:
        try:
            respond(response_url, msg, response_type="ephemeral", replace_original=False)
            return True
        except DeliveryError as exc:
            log.error("the apology could not be delivered either: %s", exc)
    if user and channel and client is not None:
        try:
            client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts, **msg)
            return True
        except (SlackApiError, OSError) as exc:
            log.error(
                "the apology could not be delivered either: chat.postEphemeral failed: %s",
                getattr(exc, "response", {}).get("error") if isinstance(exc, SlackApiError) else exc,
            )
    return False
