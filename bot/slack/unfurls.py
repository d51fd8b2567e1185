"""Links to indexed papers unfurl: `link_shared` in, one `chat.unfurl` out with a card per paper the index holds.

Links to anything else are left out, so Slack's own preview stays; with none to unfurl nothing is called. Bolt acks
the event before this runs, and a card needs only index look-ups (a millisecond each) and one state read, so the
unfurl lands well inside Slack's 3 seconds. A posted message's unfurls go into the workspace's paper history, with
the message's permalink; a link still in the composer (`unfurl_id` + `source`) unfurls but is not history yet.

In a channel shared with another workspace (Slack Connect) both sides see the card, so it carries no team memory.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.papers.row import PaperRow
from bot.slack.blocks import history as history_blocks
from bot.slack.blocks import unescape
from bot.slack.blocks import unfurl as unfurl_blocks
from bot.slack.services import Services
from bot.state import ERRORS
from bot.team import history

EVENTS = ("link_shared",)
MAX_LINKS = 10  # links read per message (Slack sends the message's links on the app's domains)
# How long conversations.info's answer on a channel being shared is trusted
SHARED_KNOWN_SECONDS = 600.0
# channels remembered at most (then forgotten all at once, and asked again)
SHARED_KNOWN_CHANNELS = 10_000
# How long a link waits for another's conversations.info on its channel (then: no memory)
ASK_WAIT_SECONDS = 2.0
COMPOSER = "composer"

log = logging.getLogger(__name__)


def event_team(body: dict[str, Any]) -> str:
    """The workspace whose installation the event was sent to: its `authorizations` (in a Slack Connect channel the
    envelope's `team_id` may be the poster's workspace), else the envelope's team."""
    auths = body.get("authorizations") or [{}]
    first = auths[0] if isinstance(auths[0], dict) else {}
    return str(first.get("team_id") or body.get("team_id") or "")


class SharedChannels:
    """Whether a channel is shared with another workspace: the event's `is_ext_shared_channel` when it says so, else
    conversations.info (`is_ext_shared`, `is_shared`), remembered per workspace and channel for a while. When
    neither answers, the channel counts as shared: a card without team memory is the safe side."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._known: dict[tuple[str, str], tuple[bool, float]] = {}
        # channels conversations.info is being asked about
        self._asking: dict[tuple[str, str], threading.Event] = {}
        self._lock = threading.Lock()

    def is_shared(self, team: str, channel: str, body: dict[str, Any], client: WebClient) -> bool:
        """Whether people of another workspace see this channel."""
        said = body.get("is_ext_shared_channel")
        if isinstance(said, bool):
            self._remember(team, channel, said)
            return said
        key = (team, channel)
        with self._lock:
            known, asking = self._fresh(key), self._asking.get(key)
            if known is None and asking is None:
                self._asking[key] = threading.Event()
        if known is not None:
            return known
        # Another link of the channel is asking already: one question per channel
        if asking is not None:
            asking.wait(ASK_WAIT_SECONDS)
            with self._lock:
                known = self._fresh(key)
            return True if known is None else known
        try:
            return self._ask(team, channel, client)
        finally:
            with self._lock:
                self._asking.pop(key).set()

    def _ask(self, team: str, channel: str, client: WebClient) -> bool:
        try:
            info = client.conversations_info(channel=channel).get("channel") or {}
        except (SlackApiError, OSError) as exc:
            log.info("cannot tell whether %s is shared (%s): its unfurls show no team memory", channel, exc)
            return True
        shared = bool(info.get("is_ext_shared") or info.get("is_shared"))
        self._remember(team, channel, shared)
        return shared

    def _fresh(self, key: tuple[str, str]) -> bool | None:
        """What is known of the channel and not stale (under the lock), else None."""
        known = self._known.get(key)
        return known[0] if known is not None and self._clock() - known[1] < SHARED_KNOWN_SECONDS else None

    def _remember(self, team: str, channel: str, shared: bool) -> None:
        with self._lock:
            if len(self._known) >= SHARED_KNOWN_CHANNELS:
                self._known.clear()
            self._known[(team, channel)] = (shared, self._clock())


class Unfurls:
    """The link_shared listener; a bound method so Bolt can read its parameter names."""

    def __init__(self, deps: Services, clock: Callable[[], float] = time.time) -> None:
        self.deps = deps
        self.clock = clock
        self.channels = SharedChannels()

    def papers_linked(self, event: dict[str, Any]) -> dict[str, PaperRow]:
        """Each link (as Slack sent it: chat.unfurl wants it back exactly) to the indexed paper it names."""
        found: dict[str, PaperRow] = {}
        for entry in (event.get("links") or [])[:MAX_LINKS]:
            url = entry.get("url") if isinstance(entry, dict) else None
            if isinstance(url, str) and url.strip() and url not in found:
                paper = self.deps.papers.by_link(unescape(url))  # (Slack may send `&` as `&amp;`)
                if paper is not None:
                    found[url] = paper
        return found

    def memory_lines(self, team: str, channel: str, papers: list[PaperRow], message_ts: str) -> dict[str, str]:
        """Each paper's line of team memory for this channel (none when the state cannot be read)."""
        state = self.deps.state
        if state is None:
            return {}
        ids = [str(p["id"]) for p in papers]
        try:
            found = history.memories(state, team, ids)
        except ERRORS as exc:
            log.warning("unfurling without team memory: the state database cannot be read (%s)", exc)
            return {}
        now = self.clock()
        return {pid: history_blocks.card_line(m, channel, now, message_ts) for pid, m in found.items()}

    def on_link_shared(self, event: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        """One chat.unfurl for every indexed paper the message links to; nothing when it links to none."""
        found = self.papers_linked(event)
        if not found:
            return
        team, channel = event_team(body), str(event.get("channel") or "")
        ts, composer = str(event.get("message_ts") or ""), event.get("source") == COMPOSER
        shared = self.channels.is_shared(team, channel, body, client) if channel else True
        lines = {} if shared else self.memory_lines(team, channel, list(found.values()), ts)
        unfurls = {
            url: {"blocks": unfurl_blocks.card(paper, lines.get(str(paper["id"]), ""))} for url, paper in found.items()
        }
        try:
            if composer or not (channel and ts):
                unfurl_id, source = str(event.get("unfurl_id") or ""), str(event.get("source") or COMPOSER)
                client.chat_unfurl(unfurl_id=unfurl_id, source=source, unfurls=unfurls)
            else:
                client.chat_unfurl(channel=channel, ts=ts, unfurls=unfurls)
        # Slack's own preview stays; nothing for the user to do
        except (SlackApiError, OSError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else exc
            log.warning("chat.unfurl of %d links in %s failed: %s", len(unfurls), channel or "the composer", error)
            return
        if not composer and channel and ts:
            ids = [str(p["id"]) for p in found.values()]
            self.remember(client, team, channel, str(event.get("user") or ""), ids, ts)

    def remember(self, client: WebClient, team: str, channel: str, user: str, paper_ids: list[str], ts: str) -> None:
        """Record the unfurl in the workspace's history, with the message's permalink when Slack gives it."""
        state = self.deps.state
        if state is None:
            return
        permalink = None
        try:
            permalink = str(client.chat_getPermalink(channel=channel, message_ts=ts).get("permalink") or "") or None
        except (SlackApiError, OSError) as exc:
            log.info("no permalink for %s in %s (%s): its history links the channel only", ts, channel, exc)
        try:
            history.record_unfurls(state, team, channel, user, paper_ids, self.clock(), ts, permalink)
        except ERRORS as exc:
            log.warning("the unfurl in %s is not in the history: the state database failed (%s)", channel, exc)


def register(app: App, deps: Services) -> None:
    """Register the link_shared listener (manifest.yml: the event, the unfurl domains, links:read and links:write)."""
    app.event("link_shared")(Unfurls(deps).on_link_shared)
