"""The daily digest as a Slack message, and the `/icml digest` replies: pure builders on top of blocks.py.

Every paper text goes through blocks.py's escaping and truncation; the paper rows use its title line, context
line and Similar/Abstract/Save buttons, so the buttons work in digests exactly as in search results, plus More
like this and Less like this, which the channel's coming digests learn from.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import date, datetime
from typing import Any

from bot.digest.model import MARKER, Digest, DigestStatus, Subscription, Today
from bot.digest.words import (
    HEADER_PREFIX,
    OPENING_CHARS,
    day_label,
    footer,
    heading,
    opening,
    round_done,
    topics_note,
    when_label,
)
from bot.papers.row import PaperRow
from bot.papers.venues import venue_label
from bot.search.scope import split_topics
from bot.slack import blocks
from bot.slack.blocks import Block, Message, bold, escape, one_line, truncate
from bot.slack.blocks.abstracts import abstract_mrkdwn
from bot.slack.blocks.plan import session_text
from bot.slack.blocks.team_buttons import feedback_buttons

LIKED_SHOWN = 5  # liked papers named in /icml digest status


def marker_block_id(channel: str, day: date) -> str:
    """The header's block_id: finds a posted digest in the channel history even without its metadata."""
    return f"{MARKER}:{channel}:{day.isoformat()}"


def metadata(digest: Digest) -> dict[str, Any]:
    """Message metadata naming the channel, date and papers (read back with include_all_metadata)."""
    payload = {"channel": digest.channel, "date": digest.day.isoformat(), "round": digest.round}
    # Shared channels
    payload |= {"papers": digest.paper_ids, **({"team": digest.team} if digest.team else {})}
    return {"event_type": MARKER, "event_payload": payload}


def is_digest(message: dict[str, Any], channel: str, day: date, team: str = "") -> bool:
    """Whether a message from conversations.history is workspace `team`'s digest for `channel` on `day` (in a
    shared channel, another workspace's digest of the same day is not ours; digests from before teams were
    marked count as ours)."""
    meta = message.get("metadata") or {}
    payload = meta.get("event_payload") or {}
    if payload.get("team", team) != team:
        return False
    if (
        meta.get("event_type") == MARKER
        and payload.get("date") == day.isoformat()
        and payload.get("channel") in (None, channel)
    ):
        return True
    wanted = marker_block_id(channel, day)
    return any(isinstance(b, dict) and b.get("block_id") == wanted for b in message.get("blocks") or [])


def snippet(paper: PaperRow, limit: int = OPENING_CHARS) -> str:
    """The start of the abstract (skipping a first sentence the headline already says), escaped and cut."""
    return truncate(escape(opening(one_line(abstract_mrkdwn(paper)), one_line(paper.get("headline")))), limit)


def paper_blocks(
    paper: PaperRow, matched: bool = False, show_venue: bool = False, named: Collection[str] = ()
) -> list[Block]:
    """One paper of a digest: linked title, headline, abstract snippet; authors (`named` ones in bold)/(venue)/
    status/code; Similar, Abstract."""
    lines = [blocks.title_line(paper)]
    headline = one_line(paper.get("headline"))
    if headline:
        lines.append(f"_{truncate(escape(headline.replace('_', ' ')), blocks.HEADLINE_CHARS)}_")
    text = snippet(paper)
    if text:
        lines.append(text)
    context = blocks.paper_context(paper, show_venue, named)
    if matched:
        context["elements"].append(blocks.mrkdwn("matches your topics"))
    buttons = blocks.paper_buttons(str(paper["id"]), public=True)
    # The digest learns from these (bot/team)
    buttons["elements"].extend(feedback_buttons(str(paper["id"])))
    return [blocks.section("\n".join(lines)), context, buttons]


def digest_message(digest: Digest) -> Message:
    """The whole digest: header with the date, one row per paper, the round position and the next run (a "today"
    digest: the day's sessions instead, today_message)."""
    if digest.today is not None:
        return today_message(digest, digest.today)
    header = {
        **blocks.header(heading(digest)),
        "block_id": marker_block_id(digest.channel, digest.day),
    }
    out: list[Block] = [header]
    note = topics_note(digest)
    if note is not None:
        out.append(blocks.context(note.render(bold, escape)))
    # papers of several venues say theirs
    several = len({blocks.venue_name(p) for p in digest.papers}) > 1
    for paper in digest.papers:
        pid = str(paper["id"])
        out.extend(paper_blocks(paper, pid in digest.topic_ids, several, digest.named.get(pid, ())))
        out.append(blocks.divider())
    if digest.round_done:
        out.append(blocks.section(f":tada: {round_done(digest)}"))
    out.append(blocks.context(footer(digest)))
    titles = "; ".join(blocks.display_title(p) for p in digest.papers)
    return blocks.message(f"{HEADER_PREFIX}, {day_label(digest.day)}: {escape(titles)}", out)


def today_message(digest: Digest, today: Today) -> Message:
    """ "Today at <venue>": the team's saved and listed papers in the day's sessions in time order (times in the
    channel's zone, rooms, poster numbers, how many saved each), then the day's orals on the channel's topics."""
    tz = today.tz
    zone = getattr(tz, "key", str(tz))
    words = split_topics(digest.topics)[0]
    on = f"on {bold(words)}" if words else "(this channel has no topics: all of them)"
    out: list[Block] = [
        {**blocks.header(heading(digest)), "block_id": marker_block_id(digest.channel, digest.day)},
        blocks.context(
            f"The team's saved and listed papers in today's sessions, then today's orals {on}. Times in {escape(zone)}."
        ),
    ]
    sections = [session_text(s, tz, True) for s in today.sessions]
    if not sections:
        out.append(blocks.context("None of the team's saved or listed papers is in today's sessions."))
    if today.more:
        sections.append(f"…and {today.more} more of the team's papers today: `/icml plan channel` lists them all.")
    if today.orals:
        sections.append(f"*Today's orals* {on}")
        sections.extend(session_text(s, tz, False) for s in today.orals)
    for text in sections:
        out.extend(blocks.section(piece) for piece in blocks.split_text(text))
    out.append(blocks.context(f"{escape(footer(digest))} · `/icml digest today off` brings back the daily papers"))
    if len(out) > blocks.MAX_BLOCKS:
        out = [*out[: blocks.MAX_BLOCKS - 2], blocks.context("_…more than Slack can show in one message._"), out[-1]]
    team, orals = today.team_papers + today.more, today.oral_papers
    fallback = (
        f"{heading(digest)}: {team} of the team's paper{'s' * (team != 1)} in today's sessions, {orals} "
        f"oral{'s' * (orals != 1)} on the topics"
    )
    return blocks.message(escape(fallback), out)


# ------------------------------------------------------------------ /icml digest replies


def schedule_text(sub: Subscription) -> str:
    """`Mon-Fri at 09:00 Asia/Seoul, 3 papers, topics *kv cache*` (`, from ICML 2024` when the topics say so)."""
    days = {"mon-fri": "Mon-Fri", "mon-sun": "every day"}.get(sub.days, sub.days)
    text = f"{escape(days)} at {sub.at:%H:%M} {escape(sub.tz.key)}, {sub.size} paper{'s' if sub.size != 1 else ''}"
    words, venues = split_topics(sub.topics)
    text += (f", topics {bold(words)}" if words else ", all topics") + (f", from {escape(venues)}" if venues else "")
    return text + (", today at the venue on its days" if sub.today else "")


def subscribed_message(sub: Subscription, next_at: datetime | None, changed: bool) -> Message:
    """Confirmation of `/icml digest subscribe`."""
    verb = "Updated the" if changed else "Subscribed this channel to the"
    text = f"{verb} daily ICML 2026 digest: {schedule_text(sub)}."
    if next_at is not None:
        text += f"\nNext digest: {escape(when_label(next_at))}."
    text += (
        "\nEvery paper comes once before any repeats. `/icml digest preview` shows the next one. I post it as "
        "a message, so I need to be in this channel: `/invite @icml-bot`."
    )
    return blocks.notice(text)


def status_message(
    status: DigestStatus,
    scheduling: str,
    liked: Sequence[PaperRow] = (),
    likes: int = 0,
    dislikes: int = 0,
) -> Message:
    """`/icml digest status`: schedule, next run, last digest, papers left, last error, who schedules, and what the
    channel liked (More like this, or Save on a digest) and how many it wanted fewer like."""
    sub = status.subscription
    if sub is None or not sub.active:
        return blocks.notice(
            "This channel has no daily digest. Start one with "
            "`/icml digest subscribe [topic words] [at HH:MM] [time zone]`."
        )
    lines = [f"*Daily digest:* {schedule_text(sub)}"]
    if status.next_at is not None:
        lines.append(f"*Next:* {escape(when_label(status.next_at))} ({day_label(status.next_at.date())})")
    if status.last is not None:
        last = status.last
        count = len(last.papers)
        span = f"paper {last.first}" if count == 1 else f"papers {last.first}-{last.first + count - 1}"
        what = f"{span} of {last.total}"
        if last.venue:  # a "today at <venue>" digest: not part of the round
            what = f"today at {escape(venue_label(last.venue))}, {count} paper{'s' * (count != 1)}"
        lines.append(f"*Last:* {day_label(date.fromisoformat(last.day))}, {what}")
    else:
        lines.append("*Last:* none yet")
    if status.left or not status.total:
        lines.append(f"*Left in round {status.round}:* {status.left} of {status.total} papers")
    else:
        lines.append(
            f"*Round {status.round}:* all {status.total} papers shown; the next digest starts round {status.round + 1}"
        )
    for run in status.pending[:3]:
        lines.append(
            f"*{escape(run.status.capitalize())}:* the {escape(run.day)} digest "
            f"({escape(one_line(run.error) or 'in progress')})"
        )
    if status.error is not None:
        error, at = status.error
        lines.append(
            f":warning: *Last error* ({escape(when_label(at))}): {escape(one_line(error))}{escape(hint(error))}"
        )
    lines.append(liked_text(liked, likes, dislikes))
    lines.append(f"_{escape(scheduling)}_")
    return blocks.notice("\n".join(lines))


def liked_text(liked: Sequence[PaperRow], likes: int, dislikes: int) -> str:
    """`*Liked (2):* Vegas, DefensiveKV` and the number of Less like this, or how to teach the digest."""
    if not likes and not dislikes:
        return (
            "*Liked:* nothing yet. *More like this* and *Less like this* under each digest paper steer the next ones."
        )
    names = ", ".join(blocks.plain_truncate(blocks.display_title(p), 60) for p in liked)
    more = f" and {likes - len(liked)} more" if likes > len(liked) else ""
    text = f"*Liked ({likes}):* {escape(names)}{more}; papers close to these come first." if likes else "*Liked:* none."
    if dislikes:
        text += f" *Less like this:* {dislikes} paper{'s' if dislikes != 1 else ''}, whose neighbours go to the back."
    return text


def hint(error: str) -> str:
    """What to do about a Slack error, as a sentence after it (empty when there is nothing to add)."""
    if "not_in_channel" in error or "channel_not_found" in error:
        return ". Invite me with `/invite @icml-bot`, then run `/icml digest now`."
    if "is_archived" in error:
        return ". The channel is archived: `/icml digest unsubscribe` or unarchive it."
    if "ratelimited" in error:
        return ". Slack asked me to slow down; I will try again."
    return ""


def preview_message(digest: Digest) -> Message:
    """`/icml digest preview`: the next digest as it would look, marked as a preview."""
    msg = digest_message(digest)
    note = blocks.context("_Preview, only you see this: the digest this channel gets next._")
    return blocks.message(msg["text"], [note, *msg["blocks"]])


def unsubscribed_message(was: bool) -> Message:
    """Reply to `/icml digest unsubscribe`."""
    if not was:
        return blocks.notice("This channel has no daily digest.")
    return blocks.notice(
        "Unsubscribed: no more daily digests here. `/icml digest subscribe` starts them again, "
        "where the last round left off."
    )
