"""`/icml digest subscribe|unsubscribe|status|preview|now`: parse the words, call bot.digest, build the reply.

One entry in commands.SUBCOMMANDS routes `/icml digest …` here; the listener's dependencies carry a `DigestService`
(the digests, this process's scheduler if any, and the clock).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from datetime import date, time
from typing import Any
from zoneinfo import ZoneInfo

from bot.config import ConfigError, parse_size, parse_time, parse_tz
from bot.digest.model import ALL_TOPICS, Outcome, OutcomeStatus, normalize_days
from bot.digest.service import DigestService
from bot.digest.subscriptions import Settings
from bot.digest.words import day_label
from bot.search import request_without_topic
from bot.slack import blocks
from bot.slack.blocks import Message, escape
from bot.slack.blocks import digest as digest_blocks
from bot.state import ERRORS, is_locked, is_unreachable
from bot.team import feedback

log = logging.getLogger(__name__)

# Abbreviations people type for a time zone, and the zone name to suggest (they do not say when DST applies).
ZONE_ABBREVIATIONS = {
    "KST": "Asia/Seoul",
    "JST": "Asia/Tokyo",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "CET": "Europe/Berlin",
    "CEST": "Europe/Berlin",
    "BST": "Europe/London",
    "IST": "Asia/Kolkata",
    "AEST": "Australia/Sydney",
    "SGT": "Asia/Singapore",
    "HKT": "Asia/Hong_Kong",
}
# `/icml digest now` answers with the result if posting takes less (Slack allows 3 s)
NOW_WAIT_SECONDS = 2.0
# How long a /icml digest command waits for a locked state database (Slack allows 3 s)
STATE_WAIT_SECONDS = 2.0
MAX_TOPICS_CHARS = 200  # topics are a few words; the digest searches for them every day
UNREACHABLE = (
    "The bot cannot reach its database right now, so nothing was changed; searches still work. Try again in a minute."
)
BUSY = (
    "The bot's database is busy right now (another process is writing to it), so nothing was changed. Try again "
    "in a minute."
)
USAGE: tuple[tuple[str, str], ...] = (
    (
        "subscribe [topic words] [at HH:MM] [Area/City] [on mon-fri] [N papers]",
        "a daily digest in this channel (papers on your topics first); again to change it",
    ),
    ("unsubscribe", "stop this channel's digest"),
    ("status", "next digest, papers left, last error"),
    ("preview", "the next digest, only for you"),
    ("now", "post today's digest here if it was not posted yet"),
    ("adopt", "make this channel's digest from before workspaces were recorded this workspace's"),
    (
        "today on|off",
        "on a venue's days, “today at the venue” instead: the team's saved and listed papers in the day's sessions, "
        "then the day's orals on the topics",
    ),
)


@dataclass
class Request:
    """`/icml digest subscribe` words sorted into settings; `error` says what could not be understood."""

    topics: str | None = None
    at: time | None = None
    tz: ZoneInfo | None = None
    days: str | None = None
    size: int | None = None
    error: str | None = None


def parse_subscribe(words: str) -> Request:
    """`kv cache at 08:30 Asia/Seoul on mon,wed 5 papers` → topics, time, zone, days, size."""
    req = Request()
    topics: list[str] = []
    tokens = words.split()
    i = 0
    try:
        while i < len(tokens):
            tok, low = tokens[i], tokens[i].lower()
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if low == "at" and nxt:
                req.at, i = parse_time(nxt, "time"), i + 2
            elif ":" in tok and tok.replace(":", "").isdigit():
                req.at, i = parse_time(tok, "time"), i + 1
            elif "/" in tok or tok.upper() in ("UTC", "GMT"):
                req.tz, i = parse_tz(tok, "time zone"), i + 1
            elif tok in ZONE_ABBREVIATIONS:
                raise ConfigError(
                    f"{tok} is an abbreviation, not a time zone: use a name like "
                    f"{ZONE_ABBREVIATIONS[tok]}, which knows when daylight saving applies"
                )
            elif low == "on" and nxt:
                req.days, i = normalize_days(nxt, "days"), i + 2
            elif tok.isdigit() and nxt.lower() in ("papers", "paper"):
                req.size, i = parse_size(tok, "papers"), i + 2
            else:
                topics.append(tok)
                i += 1
    except ConfigError as exc:
        req.error = str(exc)
        return req
    req.topics = " ".join(topics) if topics else None
    if req.topics and len(req.topics) > MAX_TOPICS_CHARS:
        req.error = (
            f"Those topics are {len(req.topics):,} characters long; use a few words (at most "
            f"{MAX_TOPICS_CHARS}), e.g. `kv cache`"
        )
    elif req.topics and req.topics.lower() not in ALL_TOPICS and request_without_topic(req.topics, False) is not None:
        req.error = f"“{req.topics}” names no topic: give the words papers use, e.g. `kv cache`"
    return req


def usage() -> Message:
    """The `/icml digest` help, from USAGE."""
    return blocks.help_message("/icml digest", USAGE)


def run(inv: Any) -> Message:
    """`/icml digest …` (inv: commands.Invocation): dispatch on the first word."""
    desk: DigestService | None = inv.deps.digests
    if desk is None:
        return blocks.notice("The daily digest is not available in this process.")
    word, _, rest = inv.args.strip().partition(" ")
    handler = HANDLERS.get(word.lower())
    if handler is None:
        return usage()
    state, asker = desk.digests.state, Asker.of(inv)
    try:
        with state.waiting_at_most(STATE_WAIT_SECONDS):
            # One workspace: a digest without one is its own
            if asker.team and not desk.subscriptions.per_workspace:
                # with many, only `/icml digest adopt` takes it
                desk.subscriptions.adopt(asker.channel, asker.team)
            return handler(desk, asker, rest.strip())
    except ERRORS as exc:
        if is_unreachable(exc):
            log.warning(
                "/icml digest %s in %s: the state database %s cannot be reached (%s)",
                word,
                inv.channel_id,
                state.path,
                " ".join(str(exc).split()),
            )
            return blocks.notice(UNREACHABLE)
        if not is_locked(exc):
            raise
        log.warning(
            "/icml digest %s in %s: the state database %s is locked by another writer (%s)",
            word,
            inv.channel_id,
            state.path,
            exc,
        )
        return blocks.notice(BUSY)


@dataclass(frozen=True)
class Asker:
    """Who runs `/icml digest …` and whose digest it acts on: the channel's digest of the caller's workspace (a
    Slack Connect channel has one id in each workspace, and each workspace that subscribes gets its own digest)."""

    channel: str
    user: str
    team: str = ""
    enterprise: str = ""

    @classmethod
    def of(cls, inv: Any) -> Asker:
        """From a commands.Invocation."""
        return cls(inv.channel_id, inv.user_id, inv.team_id, inv.enterprise_id)


def subscribe(desk: DigestService, asker: Asker, words: str) -> Message:
    """Start or change this channel's digest for the caller's workspace (whose bot token posts it)."""
    req = parse_subscribe(words)
    if req.error:
        return blocks.notice(f"{escape(req.error)}.\nUsage: `/icml digest {escape(USAGE[0][0])}`")
    now, channel, team = desk.clock(), asker.channel, asker.team
    changed = (old := desk.subscriptions.subscription(channel, team)) is not None and old.active
    try:
        wanted = Settings(
            topics=req.topics, at=req.at, tz=req.tz, days=req.days, size=req.size, enterprise=asker.enterprise
        )
        sub = desk.subscriptions.subscribe(channel, now, wanted, user=asker.user, team=team)
    except ConfigError as exc:
        return blocks.notice(escape(str(exc)))
    desk.changed()
    log.info("%s subscribed %s (workspace %s) to the digest: %s", asker.user, channel, team or "-", sub.when())
    return digest_blocks.subscribed_message(sub, desk.next_slot(sub, now), changed)


def unsubscribe(desk: DigestService, asker: Asker, words: str) -> Message:
    """Stop this channel's digest of the caller's workspace."""
    was = desk.subscriptions.unsubscribe(asker.channel, desk.clock(), asker.team)
    if was:
        desk.changed()
        log.info("%s unsubscribed %s (workspace %s) from the digest", asker.user, asker.channel, asker.team or "-")
    return digest_blocks.unsubscribed_message(was)


def status(desk: DigestService, asker: Asker, words: str) -> Message:
    """Where this channel's digest of the caller's workspace stands."""
    now = desk.clock()
    info = desk.builder.status(asker.channel, now, asker.team)
    if info.subscription is not None and info.subscription.active:
        info = replace(info, next_at=desk.next_slot(info.subscription, now))
    said = feedback.votes_in_channel(desk.digests.state, asker.channel, asker.team)
    liked = [p for p in (desk.builder.papers.get(i) for i in said.liked[: digest_blocks.LIKED_SHOWN]) if p]
    msg = digest_blocks.status_message(info, desk.scheduling(now), liked, len(said.liked), len(said.disliked))
    unowned = (
        desk.subscriptions.subscription(asker.channel) if asker.team and desk.subscriptions.per_workspace else None
    )
    if unowned is not None and unowned.active and (info.subscription is None or not info.subscription.active):
        msg["blocks"].insert(1, blocks.context(ADOPT_HINT.format(when=escape(unowned.when()))))
    return msg


ADOPT_HINT = (
    "This channel also has a digest from before workspaces were recorded ({when}): it posts nowhere until a "
    "workspace takes it. `/icml digest adopt` makes it this workspace's, with its rounds and votes."
)


def adopt(desk: DigestService, asker: Asker, words: str) -> Message:
    """Take this channel's digest that belongs to no workspace (made before many workspaces, or by
    ICML_DIGEST_CHANNEL) for the caller's workspace: a deliberate act, never a side effect of another command."""
    unowned = desk.subscriptions.subscription(asker.channel)
    if not asker.team or unowned is None:
        return blocks.notice(
            "This channel has no digest from before workspaces were recorded: nothing to adopt. "
            "`/icml digest status` shows this workspace's."
        )
    if desk.subscriptions.subscription(asker.channel, asker.team) is not None or not desk.subscriptions.adopt(
        asker.channel, asker.team
    ):
        return blocks.notice(
            "This workspace already has its own digest in this channel (`/icml digest status`), so the one from "
            "before workspaces were recorded stays as it is."
        )
    desk.changed()
    log.info("%s adopted the digest of %s for workspace %s", asker.user, asker.channel, asker.team)
    return blocks.notice(
        f"This channel's digest ({escape(unowned.when())}) is now this workspace's, with its rounds and votes; "
        "it posts with this workspace's installation. `/icml digest status` shows it."
    )


def preview(desk: DigestService, asker: Asker, words: str) -> Message:
    """The digest this channel gets next, shown only to the one who asked."""
    now = desk.clock()
    sub = desk.subscriptions.subscription(asker.channel, asker.team)
    at = desk.next_slot(sub, now) if sub is not None and sub.active else None
    day = at.astimezone(sub.tz).date() if at is not None and sub is not None else desk.today(sub, now)
    digest = desk.builder.plan(asker.channel, day, asker.team)
    if not digest.papers:
        return blocks.notice("The paper index is empty: load papers with `icml-bot index`.")
    msg = digest_blocks.preview_message(digest)
    if sub is None or not sub.active:
        msg["blocks"].insert(1, blocks.context("This channel has no daily digest yet: `/icml digest subscribe`."))
    return msg


def post_now(desk: DigestService, asker: Asker, words: str) -> Message:
    """Post today's digest here (the caller's workspace's, with its token) unless it was posted already."""
    channel = asker.channel
    sub = desk.subscriptions.subscription(channel, asker.team)
    if sub is None or not sub.active:
        return blocks.notice("This channel has no daily digest. Start one with `/icml digest subscribe`.")
    now = desk.clock()
    day = desk.today(sub, now)
    future = desk.pool.submit(desk.digests.post_digest, channel, day, now, True, asker.team)
    future.add_done_callback(lambda f: _log_failed_now(f, channel, day))
    try:
        outcome = future.result(timeout=NOW_WAIT_SECONDS)
    except FutureTimeout:
        return blocks.notice(f"Posting the digest for {day_label(day)}… `/icml digest status` shows how it went.")
    return now_message(outcome)


def _log_failed_now(future: Future[Outcome], channel: str, day: date) -> None:
    """A `/icml digest now` that raised after its reply was sent is still in the log, with what failed."""
    if future.cancelled() or future.exception() is None:
        return
    exc = future.exception()
    log.error("/icml digest now for %s on %s failed: %s: %s", channel, day.isoformat(), type(exc).__name__, exc)


def now_message(outcome: Outcome) -> Message:
    """The reply to `/icml digest now` for each outcome."""
    day = day_label(outcome.day)
    text = {
        OutcomeStatus.POSTED: f"Posted the digest for {day}.",
        OutcomeStatus.ALREADY: f"The digest for {day} is already in this channel: one a day, never twice.",
        OutcomeStatus.BUSY: f"The digest for {day} is being posted right now.",
        OutcomeStatus.EMPTY: "The paper index is empty: load papers with `icml-bot index`.",
        OutcomeStatus.UNCERTAIN: f"Slack did not confirm the digest for {day} ({escape(outcome.error or '')}). "
        "I will look in the channel history before trying again, so it never appears twice.",
    }.get(outcome.status)
    if text is None:
        error = outcome.error or outcome.status
        text = f"Could not post the digest for {day}: {escape(error)}{escape(digest_blocks.hint(error))}"
    return blocks.notice(text)


def today(desk: DigestService, asker: Asker, words: str) -> Message:
    """Switch this channel's digest to "today at <venue>" on a venue's days (`on`), or back to the round (`off`)."""
    word = words.strip().lower()
    if word not in ("on", "off"):
        return blocks.notice(f"Usage: `/icml digest {escape(USAGE[-1][0])}`: {escape(USAGE[-1][1])}.")
    sub = desk.subscriptions.set_today(asker.channel, word == "on", desk.clock(), asker.team)
    if sub is None:
        return blocks.notice("This channel has no daily digest. Start one with `/icml digest subscribe`.")
    log.info("%s turned the today digest %s in %s (workspace %s)", asker.user, word, asker.channel, asker.team or "-")
    if sub.today:
        return blocks.notice(
            "On a day of a venue's sessions, this channel's digest is now “today at the venue”: the team's saved and "
            "listed papers in that day's sessions in time order, with rooms and poster numbers, then the day's orals "
            "on the channel's topics. Other days bring the daily papers as before; `/icml digest today off` stops it."
        )
    return blocks.notice("This channel's digest brings the daily papers every day again, also on a venue's days.")


HANDLERS: dict[str, Callable[[DigestService, Asker, str], Message]] = {
    "subscribe": subscribe,
    "unsubscribe": unsubscribe,
    "status": status,
    "preview": preview,
    "now": post_now,
    "adopt": adopt,
    "today": today,
}
SUBCOMMAND_USAGE = "subscribe|unsubscribe|status|preview|now|adopt|today"
SUBCOMMAND_HELP = "the daily digest in this channel (`/icml digest` for details)"
