"""`/icml saved`, `/icml list [add|remove|export]` and `/icml export`: parse the words, call bot.team, build the reply.

commands.SUBCOMMANDS routes the three words here. Saves belong to a user, lists to a channel, both per workspace (the
team id Slack sends); an export's file goes out after the acknowledgement, through Slack's external upload flow.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import blocks
from bot.slack.blocks import Message, bold, escape
from bot.slack.blocks import team as team_blocks
from bot.slack.clicker import clicker_team
from bot.slack.invocation import Invocation
from bot.slack.replies import DeliveryError, respond
from bot.slack.services import Services
from bot.state import ERRORS, State
from bot.team import export as exports
from bot.team import reading_list, saves
from bot.team.export import Export, Format
from bot.team.listing import PAGE_SIZE

log = logging.getLogger(__name__)

LIST_USAGE = "[add <id|name> | remove <id> | export bibtex|csv|md]"
LIST_HELP = "this channel's reading list (only this channel sees it)"
EXPORT_USAGE = "bibtex|csv|md"
EXPORT_HELP = "your saved papers as a file in our DM"
SNIPPET_PAPERS = 5  # exports of at most this many papers also come as a code block in the reply
SNIPPET_CHARS = 2800
NO_STATE = "Saved papers and reading lists need the bot's state database, which this preview does not open."


def saved_ids(inv: Invocation) -> frozenset[str]:
    """The asking user's saved paper ids (empty without a state database), so Save buttons can say Saved."""
    state = inv.deps.state
    if state is None or not inv.user_id:
        return frozenset()
    try:
        return saves.saved_ids(state, inv.team_id, inv.user_id)
    except ERRORS as exc:  # searches answer from the index even while the state database is down
        log.warning("cannot read %s's saved papers, Save buttons show as unsaved: %s", inv.user_id, exc)
        return frozenset()


def saved_ids_of(deps: Services, body: dict[str, Any]) -> frozenset[str]:
    """The saved paper ids of whoever clicked (their own workspace and user id, from the block_actions payload)."""
    user = body.get("user") or {}
    team = clicker_team(body)
    if deps.state is None or not user.get("id"):
        return frozenset()
    try:
        return saves.saved_ids(deps.state, team, str(user["id"]))
    except ERRORS as exc:  # the answer comes from the index even while the state database is down
        log.warning("cannot read %s's saved papers, Save buttons show as unsaved: %s", user.get("id"), exc)
        return frozenset()


def _page_number(word: str) -> int | None:
    """`2` → offset 10; None for anything but a page number."""
    if not word:
        return 0
    return (int(word) - 1) * PAGE_SIZE if word.isdigit() and int(word) >= 1 else None


def saved(inv: Invocation) -> Message:
    """`/icml saved [page]`: the user's saved papers, newest first, ten a page."""
    state = inv.deps.state
    if state is None:
        return blocks.notice(NO_STATE)
    offset = _page_number(inv.args)
    if offset is None:
        return blocks.notice("Usage: `/icml saved` or `/icml saved 2` (a page number).")
    return team_blocks.saved_message(saves.saved(state, inv.deps.papers, inv.team_id, inv.user_id, offset=offset))


def channel_list(inv: Invocation) -> Message:
    """`/icml list [page]`, `/icml list add <id|name>`, `/icml list remove <id>`, `/icml list export <format>`."""
    state = inv.deps.state
    if state is None:
        return blocks.notice(NO_STATE)
    verb, _, rest = inv.args.partition(" ")
    verb, rest = verb.lower(), rest.strip()
    if verb == "add" and rest:
        return list_add(inv, state, rest)
    if verb == "remove" and rest:
        return list_remove(inv, state, rest)
    if verb == "export":
        return export_list(inv, state, rest)
    offset = _page_number(inv.args)
    if offset is None:
        return blocks.notice(f"Usage: `/icml list {escape(LIST_USAGE)}`: {LIST_HELP}.")
    page = reading_list.listed(state, inv.deps.papers, inv.team_id, inv.channel_id, offset=offset)
    return team_blocks.list_message(page, saved_ids(inv))


def list_add(inv: Invocation, state: State, ref: str) -> Message:
    """Add a paper (by id or name) to the channel's list; the channel is told, a repeat only the user."""
    paper = inv.deps.papers.get(ref)
    if paper is None:
        return blocks.notice(
            f"No paper has the id or name {bold(ref)}. Find it with `/icml {escape(ref)}`, then press *Add to "
            "channel list* under it, or use its id (shown under each paper)."
        )
    done = reading_list.add(state, inv.team_id, inv.channel_id, inv.user_id, str(paper["id"]), time.time())
    if not done.created:
        return team_blocks.already_listed_message(paper, done.entry.added_by, done.entry.added_at)
    return {**team_blocks.listed_message(paper, inv.user_id), "response_type": "in_channel"}


def list_remove(inv: Invocation, state: State, ref: str) -> Message:
    """Take a paper off the channel's list, by the id shown there (also one the index no longer holds)."""
    paper = inv.deps.papers.get(ref)
    candidates = list(dict.fromkeys([ref, *([str(paper["id"])] if paper else [])]))
    for paper_id in candidates:
        done = reading_list.remove(state, inv.team_id, inv.channel_id, paper_id)
        if done.removed:
            name = blocks.title_line(paper) if paper else f"`{escape(paper_id)}`"
            text = f"{blocks.mention(inv.user_id)} removed {name} from this channel's reading list."
            return {**blocks.notice(text), "response_type": "in_channel"}
    return blocks.notice(f"{bold(ref)} is not on this channel's reading list (`/icml list` shows it).")


def _format(word: str, command: str) -> Format | Message:
    kind = Format.named(word) if word else None
    if kind is None:
        return blocks.notice(f"Usage: `{command} bibtex` (or `csv`, `md`): which format, for your reference manager.")
    return kind


def export(inv: Invocation) -> Message:
    """`/icml export bibtex|csv|md`: all the user's saved papers as a file in their DM with the bot."""
    state = inv.deps.state
    if state is None:
        return blocks.notice(NO_STATE)
    kind = _format(inv.args, "/icml export")
    if not isinstance(kind, Format):
        return kind
    done = exports.saved_papers(state, inv.deps.papers, inv.team_id, inv.user_id, kind)
    if not done.count:
        return blocks.notice("You have no saved papers to export yet: press *Save* under any paper I show.")
    inv.later.append(lambda: deliver(inv, done, None, "Your saved ICML papers"))
    return team_blocks.export_reply(done.count, done.filename, "to our DM", done.missing, snippet(done))


def export_list(inv: Invocation, state: State, word: str) -> Message:
    """`/icml list export bibtex|csv|md`: the channel's reading list as a file in the channel."""
    kind = _format(word, "/icml list export")
    if not isinstance(kind, Format):
        return kind
    done = exports.channel_list(state, inv.deps.papers, inv.team_id, inv.channel_id, kind)
    if not done.count:
        return blocks.notice("This channel's reading list is empty: nothing to export.")
    comment = f"This channel's reading list, exported by {blocks.mention(inv.user_id)}"
    inv.later.append(lambda: deliver(inv, done, inv.channel_id, comment))
    return team_blocks.export_reply(done.count, done.filename, "to this channel", done.missing, snippet(done))


def snippet(done: Export) -> str | None:
    """The export's text for a code block when it is a handful of papers (blocks.team.code_block still leaves it out
    when the text could end the block early)."""
    if done.count > SNIPPET_PAPERS or len(done.content) > SNIPPET_CHARS:
        return None
    return done.content.strip()


def deliver(inv: Invocation, done: Export, channel: str | None, comment: str) -> None:
    """Upload the export to `channel`, or to the user's DM with the bot; a failure is told to the user, by name."""
    client = inv.client
    if client is None:
        return
    try:
        target = channel or open_dm(client, inv.user_id)
        upload(client, target, done, comment)
    except SlackApiError as exc:
        error = str(exc.response.get("error") or exc.response.status_code)
        log.warning("export upload for %s in %s failed: %s", inv.user_id, inv.channel_id, error)
        tell(inv, blocks.notice(upload_failed(error, channel is not None)))
    except OSError as exc:
        log.warning("export upload for %s failed: %s", inv.user_id, exc)
        tell(inv, blocks.notice(upload_failed(type(exc).__name__, channel is not None)))


def open_dm(client: WebClient, user: str) -> str:
    """The id of the bot's DM with `user` (conversations.open; needs im:write)."""
    return str(client.conversations_open(users=user)["channel"]["id"])


def upload(client: WebClient, channel: str, done: Export, comment: str) -> None:
    """files.getUploadURLExternal, the bytes to the upload URL, files.completeUploadExternal into `channel`."""
    client.files_upload_v2(
        channel=channel,
        content=done.content,
        filename=done.filename,
        title=done.filename,
        initial_comment=comment,
    )


def upload_failed(error: str, to_channel: bool) -> str:
    """Why the file did not arrive, and what to do."""
    if to_channel and error in ("not_in_channel", "channel_not_found"):
        return f"I couldn't post the file here ({escape(error)}): invite me with `/invite @icml-bot`, then try again."
    return f"I couldn't send the file ({escape(error)}). Please try again in a minute."


def tell(inv: Invocation, msg: Message) -> None:
    """A follow-up only the user sees, through the command's response_url."""
    if not inv.response_url:
        return
    try:
        respond(inv.response_url, msg, response_type="ephemeral", replace_original=False)
    except DeliveryError as exc:
        log.error("could not tell %s that a file or chart did not arrive: %s", inv.user_id, exc)
