"""`@icml-bot` mentions: a query answered in the thread, or a bare mention in a thread answered with papers
related to the thread's first message. Also the global middleware that drops Slack's redeliveries."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.search import request_without_topic
from bot.search.topics import TOPIC_TEXT_CHARS
from bot.slack import blocks
from bot.slack.blocks import Message, bold
from bot.slack.commands import COMMAND, MAX_INPUT_CHARS, query_words, search_page
from bot.slack.errors import apologize
from bot.slack.later import Later
from bot.slack.message_text import slack_to_plain
from bot.slack.replies import DeliveryError, post
from bot.slack.services import Services
from bot.state import ERRORS, is_locked, is_unreachable

EVENTS = ("app_mention",)
# How long the redelivery check waits for a locked state database (Slack wants 3 s)
DEDUPE_WAIT_SECONDS = 2.0
# A mention reply Slack refuses with 429 is posted again after Retry-After, this many times at most
REPLY_RETRIES = 2
REPLY_RETRY_MAX_WAIT = 10.0  # seconds: asked to wait longer, the user is told to ask again instead
USAGE = (
    "Mention me with a few words, e.g. `@icml-bot kv cache`, or a question (`@icml-bot any recent papers on "
    "grokking?`), or mention me inside a thread (`@icml-bot any papers on this?`) to get papers related to the "
    "discussion. "
    f"`{COMMAND} help` shows everything I can do."
)


def is_from_bot(event: dict[str, Any]) -> bool:
    """Messages from bots (ours or others) are never answered, so two bots can't talk each other into a loop."""
    return bool(event.get("bot_id")) or event.get("subtype") == "bot_message"


def thread_reply(deps: Services, event: dict[str, Any], read_parent: Callable[[str, str], str]) -> Message:
    """What to answer a mention with: its words as a query, else papers related to the thread, else a hint."""
    clean = partial(slack_to_plain, limit=MAX_INPUT_CHARS, keep_links=True)
    query = query_words(str(event.get("text") or ""), clean, "@icml-bot kv cache")
    if not isinstance(query, str):
        return query
    thread_ts = event.get("thread_ts")
    in_thread = bool(thread_ts) and thread_ts != event.get("ts")
    # "any papers on this?": the thread
    asked = request_without_topic(query) if query and in_thread else None
    if query and asked is None:
        return search_page(deps.papers, query, public=True)
    if not thread_ts or not in_thread:
        return blocks.notice(USAGE)
    parent = read_parent(event["channel"], thread_ts)
    topics = deps.papers.topic_queries(slack_to_plain(parent, TOPIC_TEXT_CHARS))
    if not topics:
        return blocks.notice("I couldn't tell what this thread is about. " + USAGE)
    # Most specific first; a search that needs every word may find nothing for it
    for topic in topics:
        response = deps.papers.search(f"{asked} {topic}" if asked else topic, limit=blocks.PAGE_SIZE)
        if response.results:
            break
    return blocks.results_message(response, public=True, intro=f"Papers related to this discussion ({bold(topic)}):")


class ThreadUnreadable(RuntimeError):
    """conversations.replies failed; the message is Slack's error code."""


class Events:
    """The app_mention listener and the redelivery filter; bound methods so Bolt can read their parameters."""

    def __init__(self, deps: Services, later: Later | None = None) -> None:
        self.deps = deps
        self.later = later or Later()  # rate-limited replies wait here, not in a listener thread

    def drop_redeliveries(
        self, body: dict[str, Any], next_: Callable[[], None], logger: logging.Logger
    ) -> BoltResponse | None:
        """Global middleware: a Slack retry (same event_id, also after a restart) is acked and not run again.

        When the state database stays locked (another writer) the event is refused with 503, so that Slack sends it
        again later: answering it now could answer it twice, and dropping it would lose it.
        """
        event_id = body.get("event_id")
        state = self.deps.state
        if event_id and state is not None:
            try:
                with state.waiting_at_most(DEDUPE_WAIT_SECONDS):
                    first = state.events.first_time(str(event_id))
            except ERRORS as exc:
                # Answering beats silence: a retry would be answered twice, not lost
                if is_unreachable(exc):
                    logger.warning(
                        "state database %s cannot be reached (%s): answering event %s without the redelivery check",
                        state.path,
                        " ".join(str(exc).split()),
                        event_id,
                    )
                    next_()
                    return None
                if not is_locked(exc):
                    raise
                logger.warning(
                    "state database %s is locked by another writer (%s): refused event %s with 503 so "
                    "that Slack delivers it again later",
                    state.path,
                    exc,
                    event_id,
                )
                return BoltResponse(status=503, body="")
            if not first:
                logger.info("ignoring redelivered event %s", event_id)
                return BoltResponse(status=200, body="")
        next_()
        return None

    def on_mention(
        self, event: dict[str, Any], client: WebClient, logger: logging.Logger, context: BoltContext
    ) -> None:
        """Reply in the thread: `thread_ts` is the parent's ts, or the mention's own ts to start a thread."""
        if is_from_bot(event):
            logger.debug("ignoring a mention from bot %s", event.get("bot_id"))
            return

        def read_parent(channel: str, thread_ts: str) -> str:
            try:
                resp = client.conversations_replies(channel=channel, ts=thread_ts, limit=1)
            except SlackApiError as exc:
                raise ThreadUnreadable(str(exc.response.get("error"))) from exc
            messages = resp.get("messages") or []
            return str(messages[0].get("text") or "") if messages else ""

        try:
            msg = thread_reply(self.deps, event, read_parent)
        except ThreadUnreadable as exc:
            logger.warning("could not read thread %s in %s: %s", event.get("thread_ts"), event.get("channel"), exc)
            msg = blocks.notice(
                f"I couldn't read this thread ({blocks.escape(str(exc))}). Mention me with a few "
                "words instead, e.g. `@icml-bot kv cache`."
            )
        thread_ts = event.get("thread_ts") or event["ts"]
        reply = Reply(client, event["channel"], thread_ts, str(event.get("user") or ""), msg)
        try:
            post(client, reply.channel, msg, thread_ts=reply.thread_ts)
        except DeliveryError as exc:
            if not self.retry_later(reply, exc, logger):
                raise  # (on_error tells the user)

    def retry_later(self, reply: Reply, exc: DeliveryError, logger: logging.Logger) -> bool:
        """Post `reply` again after Slack's Retry-After when it refused it with 429 (a few times, a short wait at
        most); False when it will not be tried again."""
        wait = exc.retry_after
        if wait is None or wait > REPLY_RETRY_MAX_WAIT or reply.attempts > REPLY_RETRIES:
            return False
        logger.info("mention reply in %s rate limited: posting it again in %.0f s", reply.channel, wait)
        self.later.call(wait, lambda: self._post_again(replace(reply, attempts=reply.attempts + 1), logger))
        return True

    def _post_again(self, reply: Reply, logger: logging.Logger) -> None:
        try:
            post(reply.client, reply.channel, reply.msg, thread_ts=reply.thread_ts)
        except DeliveryError as exc:
            if self.retry_later(reply, exc, logger):
                return
            logger.error("could not deliver a mention reply to %s in %s: %s", reply.user, reply.channel, exc)
            apologize(reply.client, reply.user, reply.channel, reply.thread_ts, None, exc)


@dataclass(frozen=True)
class Reply:
    """A mention's answer on its way to the thread, and how many times it was tried."""

    client: WebClient
    channel: str
    thread_ts: str
    user: str
    msg: Message
    attempts: int = 1


def register(app: App, deps: Services) -> None:
    """Register the redelivery filter (before every listener) and the app_mention listener."""
    listeners = Events(deps)
    app.middleware(listeners.drop_redeliveries)
    app.event("app_mention")(listeners.on_mention)
