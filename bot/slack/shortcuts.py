""" "Find related papers": a message shortcut on any message, answered in that message's thread, and a global shortcut
that opens a modal to paste text into, answered in the user's DM with the bot; and the "BibTeX for these" button.

Each listener acks at once (the modal opens with the click's trigger_id before anything slow), then calls
Papers.related (bot.search.pasted) and posts. Where the bot is not in the channel (chat.postMessage: not_in_channel,
channel_not_found) the answer goes to the one who asked, through the shortcut's response_url, with how to invite the
bot. What belongs to the clicker (their saved papers) is looked up in their own workspace, `user.team_id`: in a
Slack Connect channel the payload's `team` is the workspace whose installation answers. The BibTeX file goes out as
/icml export sends one: rendered by bot.team.export, uploaded to the clicker's DM by team_commands.deliver.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.search import MAX_LIMIT
from bot.slack import blocks, team_commands
from bot.slack.blocks import PAGE_SIZE, mention
from bot.slack.blocks import related as related_blocks
from bot.slack.blocks import team as team_blocks
from bot.slack.clicker import clicker_team
from bot.slack.errors import acks_first
from bot.slack.invocation import Invocation
from bot.slack.message_text import slack_to_plain
from bot.slack.replies import DeliveryError, post, respond
from bot.slack.services import Services
from bot.state import ERRORS
from bot.team import saves
from bot.team.export import Format, Row, render

log = logging.getLogger(__name__)

MESSAGE_SHORTCUT = "related_message"
GLOBAL_SHORTCUT = "related_text"
# callback_id → type, as manifest.yml says
SHORTCUTS = {MESSAGE_SHORTCUT: "message", GLOBAL_SHORTCUT: "global"}
ACTION_IDS = (related_blocks.ACTION_BIBTEX,)
VIEWS = (related_blocks.PASTE_VIEW,)
# chat.postMessage where the bot is not a member
CANNOT_POST = ("not_in_channel", "channel_not_found")
GONE = "Those papers are no longer in the index."
# Slack cuts a message's text here; related() reads its opening and says how much
SLACK_MESSAGE_CHARS = 40_000
_WORD = re.compile(r"[^\W_]")


def clicker(body: dict[str, Any]) -> tuple[str, str]:
    """(user, workspace) of whoever clicked: the user's own workspace (`user.team_id`) before the payload's `team`."""
    user = body.get("user") or {}
    return str(user.get("id") or "") if isinstance(user, dict) else "", clicker_team(body)


def message_words(message: dict[str, Any]) -> str:
    """The words of a message (its text, else its attachments': a forwarded message) without Slack's markup, as
    long as Slack lets a message be (related() reads their opening and says how much)."""
    raw = str(message.get("text") or "")
    if not raw.strip():
        attached = message.get("attachments") or []
        raw = "\n".join(str(a.get("text") or a.get("fallback") or "") for a in attached if isinstance(a, dict))
    return slack_to_plain(raw, SLACK_MESSAGE_CHARS)


def pasted_words(view: dict[str, Any]) -> str:
    """The text typed or pasted into the modal (Slack keeps it to 3,000 characters; a forged payload is cut)."""
    values = ((view.get("state") or {}).get("values") or {}).get(related_blocks.PASTE_BLOCK) or {}
    text = str((values.get(related_blocks.PASTE_BLOCK) or {}).get("value") or "")
    return text[:SLACK_MESSAGE_CHARS]


class Shortcuts:
    """The shortcut, modal and BibTeX listeners; bound methods so Bolt can read their parameter names."""

    def __init__(self, deps: Services) -> None:
        self.deps = deps

    def _saved(self, team: str, user: str) -> frozenset[str]:
        """The clicker's saved paper ids in their own workspace (their Save buttons say Saved); none without state."""
        state = self.deps.state
        if state is None or not user:
            return frozenset()
        try:
            return saves.saved_ids(state, team, user)
        # The answer comes from the index even while the state database is down
        except ERRORS as exc:
            log.warning("cannot read %s's saved papers, Save buttons show as unsaved: %s", user, exc)
            return frozenset()

    def on_message(self, ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        """Papers related to a message, in its thread; only to the clicker when the bot is not in the channel."""
        ack()
        user, team = clicker(body)
        response_url = str(body.get("response_url") or "")
        message = body.get("message") or {}
        text = message_words(message)
        if not _WORD.search(text):
            self._tell(response_url, blocks.notice(related_blocks.NOTHING_TO_READ))
            return
        answer = self.deps.papers.related(text, PAGE_SIZE)
        if not answer.results:
            self._tell(response_url, related_blocks.no_related())
            return
        channel = str((body.get("channel") or {}).get("id") or "")
        thread_ts = message.get("thread_ts") or message.get("ts") or body.get("message_ts")
        intro = f"Papers related to this message, asked for by {mention(user)}"
        try:
            post(client, channel, related_blocks.related_message(answer, intro), thread_ts=thread_ts)
        except DeliveryError as exc:
            if exc.error not in CANNOT_POST or not response_url:
                raise
            note = related_blocks.not_in_channel_note(exc.error)
            mine = related_blocks.related_message(
                answer, "Papers related to this message", public=False, saved=self._saved(team, user), note=note
            )
            self._tell(response_url, mine)

    def on_global(self, ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        """Open the modal to paste text into, at once: the click's trigger_id lasts about 3 seconds."""
        ack()
        client.views_open(trigger_id=body["trigger_id"], view=related_blocks.paste_modal())

    def on_submit(self, ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        """The modal's text: papers related to it in the user's DM with the bot; a paste without a word stays open
        with a line under the input."""
        text = pasted_words(body.get("view") or {})
        if not _WORD.search(text):
            ack(response_action="errors", errors=related_blocks.invalid_paste())
            return
        ack()
        user, team = clicker(body)
        answer = self.deps.papers.related(text, PAGE_SIZE)
        if answer.results:
            intro = "Papers related to the text you pasted (only you can see this)"
            msg = related_blocks.related_message(answer, intro, public=False, saved=self._saved(team, user))
        else:
            msg = related_blocks.no_related()
        post(client, team_commands.open_dm(client, user), msg)

    def on_bibtex(self, ack: Ack, action: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        """The answer's papers as a .bib file in the clicker's DM, as /icml export sends one; a code block for a few."""
        ack()
        user, team = clicker(body)
        response_url = str(body.get("response_url") or "")
        ids = str(action.get("value") or "").split()[:MAX_LIMIT]
        found = {paper_id: self.deps.papers.get(paper_id) for paper_id in dict.fromkeys(ids)}
        rows = [Row(paper) for paper in found.values() if paper is not None]
        if not rows:
            self._tell(response_url, blocks.notice(GONE))
            return
        done = render(Format.BIBTEX, rows, "icml-related-papers", f"Related papers ({len(rows)})")
        missing = tuple(paper_id for paper_id, paper in found.items() if paper is None)
        reply = team_blocks.export_reply(done.count, done.filename, "to our DM", missing, team_commands.snippet(done))
        self._tell(response_url, reply)
        channel = str((body.get("channel") or {}).get("id") or "")
        inv = Invocation("", user, channel, self.deps, team_id=team, client=client, response_url=response_url)
        team_commands.deliver(inv, done, None, "The related papers you asked for")

    def _tell(self, response_url: str, msg: blocks.Message) -> None:
        """An answer only the clicker sees, through the click's response_url (none: logged, nobody to tell)."""
        if not response_url:
            log.warning("no response_url to answer a shortcut with")
            return
        respond(response_url, msg, response_type="ephemeral", replace_original=False)


def register(app: App, deps: Services) -> None:
    """The two shortcuts, the modal's submission and the BibTeX button."""
    listeners = Shortcuts(deps)
    app.shortcut(MESSAGE_SHORTCUT)(acks_first(listeners.on_message))
    app.shortcut(GLOBAL_SHORTCUT)(acks_first(listeners.on_global))
    app.view(related_blocks.PASTE_VIEW)(acks_first(listeners.on_submit))
    app.action(related_blocks.ACTION_BIBTEX)(acks_first(listeners.on_bibtex))
