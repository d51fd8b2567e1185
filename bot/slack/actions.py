"""Buttons on the bot's messages: More results, Similar, Share to channel, Abstract, Another one.

Each listener acks at once, then answers through the click's own response_url: replacing the message when
paging an ephemeral result list, a new ephemeral message for Similar and Abstract, and an in-channel message
(which works without the bot being a member of the channel) for Share.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App

from bot.papers.row import PaperRow
from bot.slack import blocks
from bot.slack.clicker import clicker_team
from bot.slack.commands import search_page, similar_page
from bot.slack.errors import acks_first
from bot.slack.inline_ack import acks_at_once
from bot.slack.replies import respond
from bot.slack.services import Services
from bot.slack.team_commands import saved_ids_of
from bot.state import ERRORS
from bot.team import history

GONE = "That paper is no longer in the index. Search again with `/icml &lt;words&gt;`."
EXPIRED = "That button has expired. Search again with `/icml &lt;words&gt;`."

log = logging.getLogger(__name__)


class Actions:
    """Button listeners; bound methods so Bolt can read their parameter names."""

    def __init__(self, deps: Services) -> None:
        self.deps = deps

    def _paper(self, action: dict[str, Any]) -> PaperRow | None:
        return self.deps.papers.get(str(action.get("value") or ""))

    def _saved(self, body: dict[str, Any]) -> frozenset[str]:
        """The clicker's saved paper ids, so the Save buttons of the view they get say Saved where they should."""
        return saved_ids_of(self.deps, body)

    def on_page(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """More results / a suggested spelling: the next page, in place of the ephemeral list it came from."""
        ack()
        parsed = blocks.parse_page_value(str(action.get("value") or ""))
        if parsed is None:
            respond(body["response_url"], blocks.notice(EXPIRED), response_type="ephemeral", replace_original=False)
            return
        query, offset, replace = parsed
        msg = search_page(self.deps.papers, query, offset, saved=self._saved(body))
        if replace:
            respond(body["response_url"], msg, replace_original=True)
        else:  # the list is a public thread reply: show the next page only to the one who asked
            respond(body["response_url"], msg, response_type="ephemeral", replace_original=False)

    def on_similar(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """Papers like this one, shown only to the user who clicked."""
        ack()
        paper = self._paper(action)
        msg = similar_page(self.deps.papers, paper, saved=self._saved(body)) if paper else blocks.notice(GONE)
        respond(body["response_url"], msg, response_type="ephemeral", replace_original=False)

    def on_share(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """Post the paper for everyone in the channel, attributed to the user who shared it."""
        ack()
        paper = self._paper(action)
        if paper is None:
            respond(body["response_url"], blocks.notice(GONE), response_type="ephemeral", replace_original=False)
            return
        user = (body.get("user") or {}).get("id")
        respond(
            body["response_url"], blocks.shared_message(paper, user), response_type="in_channel", replace_original=False
        )
        self._remember_share(body, str(paper["id"]))

    def _remember_share(self, body: dict[str, Any], paper_id: str) -> None:
        """The share goes into the sharer's workspace's paper history (the clicker's: bot/slack/clicker.py)."""
        user, team = body.get("user") or {}, clicker_team(body)
        channel = str((body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id") or "")
        state = self.deps.state
        if state is None or not channel:
            return
        try:
            history.record_share(state, team, channel, str(user.get("id") or ""), paper_id, time.time())
        except ERRORS as exc:  # the paper was shared; only the team's memory of it is missing
            log.warning("the share of %s in %s is not in the history: %s", paper_id, channel, exc)

    def on_abstract(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """The whole abstract, shown only to the user who clicked."""
        ack()
        paper = self._paper(action)
        saved = paper is not None and str(paper["id"]) in self._saved(body)
        msg = blocks.abstract_message(paper, saved=saved) if paper else blocks.notice(GONE)
        respond(body["response_url"], msg, response_type="ephemeral", replace_original=False)

    def on_random(self, ack: Ack, body: dict[str, Any]) -> None:
        """Another random paper, in place of the last one."""
        ack()
        paper = self.deps.papers.random()
        saved = paper is not None and str(paper["id"]) in self._saved(body)
        msg = blocks.paper_message(paper, another=True, saved=saved) if paper else blocks.notice(GONE)
        respond(body["response_url"], msg, replace_original=True)


def register(app: App, deps: Services) -> None:
    """Register one listener per action id in blocks.ACTION_IDS."""
    listeners = Actions(deps)
    handlers: dict[str, Callable[..., None]] = {
        blocks.ACTION_PAGE: listeners.on_page,
        blocks.ACTION_SIMILAR: listeners.on_similar,
        blocks.ACTION_SHARE: listeners.on_share,
        blocks.ACTION_ABSTRACT: listeners.on_abstract,
        blocks.ACTION_RANDOM: listeners.on_random,
    }
    if set(handlers) != set(blocks.ACTION_IDS):
        raise RuntimeError("every button the blocks build needs a listener")
    for action_id, handler in handlers.items():
        # Acked before it runs (bot/slack/inline_ack.py)
        app.action(action_id)(acks_at_once(acks_first(handler)))
