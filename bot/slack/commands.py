"""`/icml` and its subcommands: one table dispatches them and writes `/icml help`; handlers return messages.

Adding a subcommand is one function `(Invocation) -> Message` and one `Subcommand(...)` entry in SUBCOMMANDS.
The listener acks with the answer itself rather than acking "Searching…" and posting to the response_url: a
search is far inside Slack's 3 seconds (docs/benchmarks.md), so one round trip replaces two, nothing flickers,
and there is no second request that could fail after the user was told to wait.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.papers.row import PaperRow
from bot.search.reader import Papers
from bot.slack import blocks, digest_commands, plan_command, team_commands, trend_command
from bot.slack.blocks import Message, bold
from bot.slack.blocks import history as history_blocks
from bot.slack.inline_ack import answers_in_ack
from bot.slack.invocation import Invocation
from bot.slack.message_text import raw_limit
from bot.slack.services import Services
from bot.state import ERRORS
from bot.team import history

COMMAND = "/icml"
SLOW_REPLY_SECONDS = 1.0  # Slack gives us 3 s to ack; log anything that eats a third of that
# Longer text is a paste, not a query (the query parser reads no more than this either)
MAX_INPUT_CHARS = 500
AFTER_ACK_THREADS = 2  # uploads of exports, after /icml has answered

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Subcommand:
    """One row of the /icml table: its name, argument syntax and help (for `/icml help`) and the function to run.

    `args`: "none" runs only on the bare word (so `/icml random forests` stays a search), "required" needs words
    after it (a usage hint otherwise), "optional" takes either.
    """

    name: str
    usage: str
    help: str
    run: Callable[[Invocation], Message]
    args: Literal["none", "required", "optional"] = "none"

    def accepts(self, rest: str) -> bool:
        """Whether `/icml <name> <rest>` is a call of this subcommand."""
        return self.args == "optional" or (self.args == "required") == bool(rest)


SEARCH_HELP = (
    "<words>",
    "search papers: topics, questions (any papers on grokking?), acronyms (MoE, RAG), paper names, links, people; "
    "venue:icml2024, year:, track:position, venue:all; typos are fine",
)


def too_long(chars: int, example: str) -> Message:
    """The friendly answer to a query longer than MAX_INPUT_CHARS (nothing is searched)."""
    return blocks.notice(
        f"That is {chars:,} characters: I search for up to {MAX_INPUT_CHARS:,}. A few words, a paper "
        f"name or a title work best, e.g. `{example}`. For papers related to a long text, use *Find related "
        "papers* (in a message's ⋯ menu, or the shortcuts menu)."
    )


def query_words(raw: str, clean: Callable[[str], str], example: str) -> str | Message:
    """The words of a raw query, or the friendly refusal of one too long: a paste is refused unread."""
    if len(raw) > raw_limit(MAX_INPUT_CHARS):
        return too_long(len(raw), example)
    words = clean(raw)
    return too_long(len(words), example) if len(words) > MAX_INPUT_CHARS else words


def search_page(
    papers: Papers,
    query: str,
    offset: int = 0,
    public: bool = False,
    intro: str | None = None,
    saved: Collection[str] = (),
) -> Message:
    """One page of results for a query, as the slash command, More results and mentions show it."""
    response = papers.search(query, limit=blocks.PAGE_SIZE, offset=offset)
    return blocks.results_message(response, public, intro, saved)


def similar_page(papers: Papers, paper: PaperRow, public: bool = False, saved: Collection[str] = ()) -> Message:
    """Papers like `paper`."""
    return blocks.similar_message(paper, papers.similar(str(paper["id"]), k=blocks.PAGE_SIZE), public, saved)


# ------------------------------------------------------------------ subcommands


def show_help(inv: Invocation) -> Message:
    """`/icml help`: generated from SUBCOMMANDS, so it can't drift from what dispatches."""
    entries = [SEARCH_HELP, *((" ".join(filter(None, (s.name, s.usage))), s.help) for s in SUBCOMMANDS)]
    return blocks.help_message(COMMAND, entries)


def with_paper(inv: Invocation, show: Callable[[PaperRow], Message]) -> Message:
    """Show the paper named by the arguments, or a search for those words when no paper has that id or name."""
    paper = inv.deps.papers.get(inv.args)
    if paper is None:
        return search_page(
            inv.deps.papers,
            inv.args,
            intro=f"No paper has the id or name {bold(inv.args)}; here is what a search finds.",
            saved=team_commands.saved_ids(inv),
        )
    return show(paper)


def show_paper(inv: Invocation) -> Message:
    """`/icml paper <id|name>`: one paper in full with where the workspace discussed it, or a search when nothing has
    that id or name."""

    def show(paper: PaperRow) -> Message:
        pid = str(paper["id"])
        return blocks.paper_message(paper, saved=pid in team_commands.saved_ids(inv), memory=team_memory(inv, pid))

    return with_paper(inv, show)


def team_memory(inv: Invocation, paper_id: str) -> list[str]:
    """The asking workspace's history of a paper, as lines for the one who asked (none without a state database)."""
    state = inv.deps.state
    if state is None:
        return []
    try:
        found = history.memory(state, inv.team_id, paper_id)
    except ERRORS as exc:  # the paper itself comes from the index, the state being down or not
        log.warning("showing %s without its history: %s", paper_id, exc)
        return []
    return history_blocks.paper_lines(found, inv.channel_id, time.time())


def show_similar(inv: Invocation) -> Message:
    """`/icml similar <id|name>`: papers like that one (or a search for the words when no paper matches)."""
    return with_paper(inv, lambda paper: similar_page(inv.deps.papers, paper, saved=team_commands.saved_ids(inv)))


def show_random(inv: Invocation) -> Message:
    """`/icml random`: a paper to discover."""
    paper = inv.deps.papers.random()
    if paper is None:
        return blocks.notice("The index is empty: load papers with `icml-bot index`.")
    return blocks.paper_message(paper, another=True, saved=str(paper["id"]) in team_commands.saved_ids(inv))


def show_stats(inv: Invocation) -> Message:
    """`/icml stats`: what the index holds."""
    return blocks.stats_message(inv.deps.papers.stats())


def show_author(inv: Invocation) -> Message:
    """`/icml author <name>`: a person's papers, paged, with their co-authors (a search when nobody has that name)."""
    found = inv.deps.papers.author(inv.args)
    if found.common:  # Zhang: their papers, and how to pick one
        return search_page(inv.deps.papers, found.query)
    if found.card is None:
        intro = f"No author is called {bold(inv.args)}; here is what a search for {bold(found.query)} finds."
        return search_page(inv.deps.papers, found.query, intro=intro)
    return search_page(inv.deps.papers, found.query, intro=blocks.escape(found.coauthors))


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(
        "paper",
        "<id|name>",
        "one paper in full: abstract, authors, links, who here saved and shared it",
        show_paper,
        "required",
    ),
    Subcommand("similar", "<id|name>", "papers like that one", show_similar, "required"),
    Subcommand("author", "<name>", "a person's papers and co-authors", show_author, "required"),
    Subcommand("random", "", "a random ICML 2026 paper", show_random),
    Subcommand("stats", "", "what the index holds: venues and their tracks, its age", show_stats),
    Subcommand("trend", trend_command.USAGE, trend_command.HELP, trend_command.trend, "required"),
    Subcommand(
        "digest", digest_commands.SUBCOMMAND_USAGE, digest_commands.SUBCOMMAND_HELP, digest_commands.run, "optional"
    ),
    Subcommand(
        "saved", "[page]", "your saved papers, newest first (only you see them)", team_commands.saved, "optional"
    ),
    Subcommand("list", team_commands.LIST_USAGE, team_commands.LIST_HELP, team_commands.channel_list, "optional"),
    Subcommand("export", team_commands.EXPORT_USAGE, team_commands.EXPORT_HELP, team_commands.export, "required"),
    Subcommand("plan", plan_command.USAGE, plan_command.HELP, plan_command.plan, "optional"),
    Subcommand("remind", plan_command.REMIND_USAGE, plan_command.REMIND_HELP, plan_command.remind, "optional"),
    Subcommand("help", "", "this help", show_help),
)
BY_NAME = {s.name: s for s in SUBCOMMANDS}


def reply(deps: Services, text: str, user_id: str = "", channel_id: str = "", inv: Invocation | None = None) -> Message:
    """The answer to `/icml <text>`: a subcommand from the table, else a search; bare `/icml` shows help."""
    words = query_words(text, lambda raw: blocks.one_line(blocks.unescape(raw)), f"{COMMAND} kv cache")
    if not isinstance(words, str):
        return words
    text = words  # (Slack sends &, <, > in command text as entities)
    name, _, rest = text.partition(" ")  # one_line() already trimmed the whitespace around `rest`
    sub = BY_NAME.get(name.lower()) if text else BY_NAME["help"]
    if sub is not None and sub.accepts(rest):
        base = inv or Invocation("", user_id, channel_id, deps)
        return sub.run(dataclasses.replace(base, args=rest, later=base.later))
    if sub is not None and sub.args == "required":
        return blocks.notice(f"Usage: `{COMMAND} {sub.name} {blocks.escape(sub.usage)}`: {blocks.escape(sub.help)}.")
    return search_page(deps.papers, text, saved=team_commands.saved_ids(inv) if inv else ())


def ack_payload(
    deps: Services, text: str, user_id: str = "", channel_id: str = "", inv: Invocation | None = None
) -> Message:
    """The body /icml acknowledges with: the reply, shown only to the user who asked (unless it says otherwise:
    adding to a channel's reading list tells the channel)."""
    return {"response_type": "ephemeral", **reply(deps, text, user_id, channel_id, inv)}


def preview(papers: Papers, text: str) -> Message:
    """What `/icml <text>` would answer, for `icml-bot search --blocks` (reads the index, writes nothing)."""
    return ack_payload(Services(papers=papers), text, "U0CLI", "C0CLI")


# ------------------------------------------------------------------ listener


def after_ack(work: Callable[[], None], logger: logging.Logger) -> None:
    """Run work that follows an ack (it reports its own failures to the user); anything unexpected is logged."""
    try:
        work()
    except Exception:
        logger.exception("work after an /icml answer failed")


class Commands:
    """The /icml listener; its bound method is what Bolt calls (Bolt reads parameter names, so no partials)."""

    def __init__(self, deps: Services) -> None:
        self.deps = deps
        self.after_ack = ThreadPoolExecutor(max_workers=AFTER_ACK_THREADS, thread_name_prefix="after-ack")

    @answers_in_ack
    def on_icml(self, ack: Ack, command: dict[str, Any], client: WebClient, logger: logging.Logger) -> None:
        """Answer in the acknowledgement itself, visible only to the user who asked; work that follows (an export's
        upload) goes to a small pool, since this listener runs in the request's thread and the ack waits for it."""
        started = time.perf_counter()
        user, channel = command.get("user_id") or "", command.get("channel_id") or ""
        team = command.get("team_id") or ""
        inv = Invocation(
            "",
            user,
            channel,
            self.deps,
            team,
            client,
            command.get("response_url") or "",
            enterprise_id=command.get("enterprise_id") or "",
        )
        ack(ack_payload(self.deps, command.get("text") or "", user, channel, inv))
        took = time.perf_counter() - started
        if took > SLOW_REPLY_SECONDS:
            logger.warning("/icml %r took %.2f s (Slack allows 3 s)", command.get("text"), took)
        for work in inv.later:
            self.after_ack.submit(after_ack, work, logger)


COMMANDS = (COMMAND,)


def register(app: App, deps: Services) -> None:
    """Register the /icml listener (manifest.yml lists the same command; a test checks both agree)."""
    app.command(COMMAND)(Commands(deps).on_icml)
