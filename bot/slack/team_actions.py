"""The team layer's buttons: Save, Unsave, Add to channel list, Remove, More/Less like this, and list paging.

Each acks at once. A click on a view only its reader sees (an ephemeral message, the Home tab) rebuilds that view in
place; a click on a message everyone sees answers the clicker alone, or tells the channel when the channel's list
changed. Who and where always come from Slack's payload (user, workspace, channel), never from a button's value.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.digest.model import MARKER
from bot.papers.row import PaperRow
from bot.slack import blocks, home
from bot.slack.actions import GONE
from bot.slack.blocks import Message, escape
from bot.slack.blocks import team as team_blocks
from bot.slack.blocks.team_buttons import (
    ACTION_HOME_SIMILAR,
    ACTION_LESS_LIKE,
    ACTION_LIST_ADD,
    ACTION_LIST_PAGE,
    ACTION_LIST_REMOVE,
    ACTION_MORE_LIKE,
    ACTION_SAVE,
    ACTION_SAVED_PAGE,
    ACTION_UNSAVE,
    TEAM_ACTION_IDS,
    Origin,
    parse_offset,
    parse_paper_value,
)
from bot.slack.clicker import clicker_team, from_another_workspace
from bot.slack.commands import search_page, similar_page
from bot.slack.errors import acks_first
from bot.slack.home_publisher import HomePublisher
from bot.slack.inline_ack import acks_at_once
from bot.slack.replies import respond
from bot.slack.services import Services
from bot.state import State
from bot.team import feedback, reading_list, saves

EXPIRED = "That button has expired. Run the command again."
ACTION_IDS = TEAM_ACTION_IDS
MORE_SAID = "This channel's coming digests will bring papers close to it first."
LESS_SAID = "This channel's coming digests will push papers close to it to the back."


@dataclass(frozen=True)
class Click:
    """Who clicked, in which workspace and channel, on what kind of surface: all from Slack's payload.

    `team` is the clicker's own workspace (bot/slack/clicker.py): in a Slack Connect channel it is not the workspace
    whose installation posted the message, and what the click saves, lists or votes is the clicker's.
    """

    team: str
    user: str
    channel: str
    response_url: str
    on_home: bool  # the Home tab: no response_url, the view is published again
    private: bool  # an ephemeral message: only the clicker sees it, so it can change in place
    in_digest: bool
    # The clicker's workspace is not the one whose installation (and token) answers
    foreign: bool = False

    @classmethod
    def of(cls, body: dict[str, Any]) -> Click:
        """Read the click's context from a block_actions payload."""
        user = body.get("user") or {}
        container = body.get("container") or {}
        channel = (body.get("channel") or {}).get("id") or container.get("channel_id") or ""
        message = body.get("message") or {}
        in_digest = any(
            str(b.get("block_id") or "").startswith(MARKER + ":")
            for b in message.get("blocks") or []
            if isinstance(b, dict)
        )
        return cls(
            clicker_team(body),
            str(user.get("id") or ""),
            str(channel),
            str(body.get("response_url") or ""),
            container.get("type") == "view",
            bool(container.get("is_ephemeral")),
            in_digest,
            from_another_workspace(body),
        )


class TeamActions:
    """Team button listeners; bound methods so Bolt can read their parameter names."""

    def __init__(self, deps: Services, publisher: HomePublisher) -> None:
        self.deps = deps
        # Home views go out from its thread: a click never waits for views.publish
        self.publisher = publisher

    @property
    def state(self) -> State:
        """The state database (the app always has one; only CLI previews go without)."""
        if self.deps.state is None:
            raise RuntimeError("team buttons need the state database")
        return self.deps.state

    # ------------------------------------------------------------------ answering

    def _say(self, click: Click, msg: Message, replace: bool = False, public: bool = False) -> None:
        """Answer through the click's response_url: in place, to the clicker alone, or to the channel."""
        if not click.response_url:
            return
        if replace:
            respond(click.response_url, msg, replace_original=True)
        else:
            respond(
                click.response_url, msg, response_type="in_channel" if public else "ephemeral", replace_original=False
            )

    def _rebuild(self, click: Click, origin: Origin | None) -> Message | None:
        """The reader's own view again, its buttons reflecting what they saved now; None when it cannot be rebuilt."""
        if origin is None or not click.private:
            return None
        papers, ids = self.deps.papers, saves.saved_ids(self.state, click.team, click.user)
        if origin.kind == "search":
            return search_page(papers, origin.arg, origin.offset, saved=ids)
        if origin.kind == "saved":
            return team_blocks.saved_message(self._saved_page(click, origin.offset))
        if origin.kind == "list":
            return team_blocks.list_message(self._list_page(click, origin.offset), ids)
        paper = papers.get(origin.arg)
        if paper is None:
            return None
        if origin.kind == "similar":
            return similar_page(papers, paper, saved=ids)
        if origin.kind in ("paper", "random"):
            return blocks.paper_message(paper, another=origin.kind == "random", saved=str(paper["id"]) in ids)
        if origin.kind == "abstract":
            return blocks.abstract_message(paper, saved=str(paper["id"]) in ids)
        return None

    def _saved_page(self, click: Click, offset: int) -> Any:
        page = saves.saved(self.state, self.deps.papers, click.team, click.user, offset=offset)
        # The last one on the last page went: show the page before
        if not page.items and page.total and offset:
            page = saves.saved(self.state, self.deps.papers, click.team, click.user, offset=page.previous_offset or 0)
        return page

    def _list_page(self, click: Click, offset: int) -> Any:
        page = reading_list.listed(self.state, self.deps.papers, click.team, click.channel, offset=offset)
        if not page.items and page.total and offset:
            page = reading_list.listed(
                self.state, self.deps.papers, click.team, click.channel, offset=page.previous_offset or 0
            )
        return page

    def _after_change(self, click: Click, client: WebClient, origin: Origin | None, fallback: Message) -> None:
        """After a save or unsave: the view in place (or the fallback reply), and the Home tab published again."""
        if click.on_home:
            self._publish_home(click, client, origin.arg if origin else "")
            return
        rebuilt = self._rebuild(click, origin)
        if rebuilt is not None:
            self._say(click, rebuilt, replace=True)
        else:
            self._say(click, fallback)
        self._publish_home(click, client)

    def _publish_home(self, click: Click, client: WebClient, similar_to: str = "") -> None:
        """The clicker's Home view again, only through their own workspace's installation.

        `client` holds the token of the workspace that posted the message: for a click from another workspace of a
        Slack Connect channel it would publish that workspace's Home (its digests) to a stranger. Their own Home is
        published when they open it (app_home_opened comes with their workspace's token).
        """
        if not click.foreign:
            home.publish(self.publisher, client, self.deps, click.team, click.user, similar_to)

    # ------------------------------------------------------------------ Save / Unsave

    def on_save(self, ack: Ack, action: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        """Save the paper for the clicker; from a digest it also counts as More like this for the channel."""
        ack()
        click, value = Click.of(body), parse_paper_value(str(action.get("value") or ""))
        if value is None:
            self._say(click, blocks.notice(EXPIRED))
            return
        paper = self.deps.papers.get(value.paper_id)
        if paper is None:
            self._say(click, blocks.notice(GONE))
            return
        pid, now = str(paper["id"]), time.time()
        if click.in_digest and click.channel:
            done = feedback.save_from_digest(self.state, click.team, click.channel, click.user, pid, now)
            created, extra = done.save.created, f" It also counts as *More like this*: {MORE_SAID}"
        else:
            created, extra = saves.save(self.state, click.team, click.user, pid, now).created, ""
        reply = team_blocks.saved_reply(paper, created, extra, digest=click.in_digest)
        self._after_change(click, client, value.origin, reply)

    def on_unsave(self, ack: Ack, action: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        """Unsave the paper (also one the index no longer holds); from a digest, the Save's +1 goes too."""
        ack()
        click, value = Click.of(body), parse_paper_value(str(action.get("value") or ""))
        if value is None:
            self._say(click, blocks.notice(EXPIRED))
            return
        paper = self.deps.papers.get(value.paper_id)
        ids = list(dict.fromkeys([value.paper_id, *([str(paper["id"])] if paper else [])]))
        removed = False
        from_digest = click.in_digest or (value.origin is not None and value.origin.kind == "digest")
        for pid in ids:  # the id as saved, and the id the index knows the paper by now
            if from_digest and click.channel:
                removed = feedback.unsave_from_digest(
                    self.state, click.team, click.channel, click.user, pid
                ).unsave.removed
            else:
                removed = saves.unsave(self.state, click.team, click.user, pid).removed
            if removed:
                break
        self._after_change(click, client, value.origin, team_blocks.unsaved_reply(value.paper_id, paper, removed))

    # ------------------------------------------------------------------ the channel's list

    def on_list_add(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """Put the paper on this channel's reading list; the channel is told, a repeat only the clicker."""
        ack()
        click, value = Click.of(body), parse_paper_value(str(action.get("value") or ""))
        paper = self.deps.papers.get(value.paper_id) if value else None
        if paper is None or not click.channel:
            self._say(click, blocks.notice(GONE if value else EXPIRED))
            return
        done = reading_list.add(self.state, click.team, click.channel, click.user, str(paper["id"]), time.time())
        if done.created:
            self._say(click, team_blocks.listed_message(paper, click.user), public=True)
        else:
            self._say(click, team_blocks.already_listed_message(paper, done.entry.added_by, done.entry.added_at))

    def on_list_remove(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """Take the paper off this channel's list and show the list again in place."""
        ack()
        click, value = Click.of(body), parse_paper_value(str(action.get("value") or ""))
        if value is None or not click.channel:
            self._say(click, blocks.notice(EXPIRED))
            return
        done = reading_list.remove(self.state, click.team, click.channel, value.paper_id)
        rebuilt = self._rebuild(click, value.origin)
        if rebuilt is not None:
            self._say(click, rebuilt, replace=True)
        elif done.removed:
            self._say(click, blocks.notice(f"Removed `{escape(value.paper_id)}` from this channel's reading list."))
        else:
            self._say(click, blocks.notice(f"`{escape(value.paper_id)}` was not on this channel's reading list."))

    def on_saved_page(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """Another page of `/icml saved`, in place."""
        ack()
        click, offset = Click.of(body), parse_offset(str(action.get("value") or ""))
        if offset is None:
            self._say(click, blocks.notice(EXPIRED))
            return
        self._say(click, team_blocks.saved_message(self._saved_page(click, offset)), replace=True)

    def on_list_page(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """Another page of `/icml list`, in place."""
        ack()
        click, offset = Click.of(body), parse_offset(str(action.get("value") or ""))
        if offset is None or not click.channel:
            self._say(click, blocks.notice(EXPIRED))
            return
        ids = saves.saved_ids(self.state, click.team, click.user)
        self._say(click, team_blocks.list_message(self._list_page(click, offset), ids), replace=True)

    # ------------------------------------------------------------------ the digest learns

    def on_more(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """More like this: the channel's coming digests bring papers close to this one first."""
        ack()
        self._vote(Click.of(body), str(action.get("value") or ""), feedback.Vote.MORE)

    def on_less(self, ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        """Less like this: the channel's coming digests push papers close to this one back."""
        ack()
        self._vote(Click.of(body), str(action.get("value") or ""), feedback.Vote.LESS)

    def _vote(self, click: Click, value: str, choice: feedback.Vote) -> None:
        paper = self.deps.papers.get(value.strip()) if value.strip() else None
        if paper is None or not click.channel:
            self._say(click, blocks.notice(GONE))
            return
        pid = str(paper["id"])
        done = feedback.vote(self.state, click.team, click.channel, click.user, pid, choice, time.time())
        self._say(click, blocks.notice(vote_said(paper, choice, done.changed, done.previous)))

    def on_home_similar(self, ack: Ack, action: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        """Similar on the Home tab: the Home view again, with papers like this one on top."""
        ack()
        click, value = Click.of(body), parse_paper_value(str(action.get("value") or ""))
        self._publish_home(click, client, value.paper_id if value else "")


def vote_said(paper: PaperRow, choice: feedback.Vote, changed: bool, previous: feedback.Vote | None) -> str:
    """The reply to More/Less like this: what the channel's digests will do now."""
    name = blocks.title_line(paper)
    if choice is feedback.Vote.MORE:
        head = "Noted: more like" if changed else "This channel already asked for more like"
        said = MORE_SAID
    else:
        head = "Noted: less like" if changed else "This channel already asked for less like"
        said = LESS_SAID
    swap = " (this replaces the channel's earlier opposite vote)" if changed and previous is not None else ""
    return f"{head} {name}{swap}. {said} `/icml digest status` shows what the channel liked."


def register(app: App, deps: Services, publisher: HomePublisher) -> None:
    """Register one listener per team action id."""
    listeners = TeamActions(deps, publisher)
    handlers: dict[str, Callable[..., None]] = {
        ACTION_SAVE: listeners.on_save,
        ACTION_UNSAVE: listeners.on_unsave,
        ACTION_LIST_ADD: listeners.on_list_add,
        ACTION_LIST_REMOVE: listeners.on_list_remove,
        ACTION_SAVED_PAGE: listeners.on_saved_page,
        ACTION_LIST_PAGE: listeners.on_list_page,
        ACTION_MORE_LIKE: listeners.on_more,
        ACTION_LESS_LIKE: listeners.on_less,
        ACTION_HOME_SIMILAR: listeners.on_home_similar,
    }
    if set(handlers) != set(ACTION_IDS):
        raise RuntimeError("every team button needs a listener")
    for action_id, handler in handlers.items():
        # Acked before it runs (bot/slack/inline_ack.py)
        app.action(action_id)(acks_at_once(acks_first(handler)))
