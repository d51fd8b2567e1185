"""A digest in words every edge shows alike (Slack, a terminal): its date, its place in the round, its next run."""

from __future__ import annotations

import re
from datetime import date, datetime

from bot.digest.model import Digest
from bot.papers.venues import venue_label
from bot.search.scope import split_topics
from bot.text.marked import Marked, Strong, marked

HEADER_PREFIX = "ICML 2026 digest"
# Of a paper's abstract shown under its headline in a digest: a glance, not the whole
OPENING_CHARS = 300
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def day_label(day: date) -> str:
    """`Mon 9 Mar 2026`."""
    return f"{day:%a} {day.day} {day:%b %Y}"


def when_label(at: datetime) -> str:
    """`Tue 09:00 KST`: a run time in its own zone."""
    return f"{at:%a %H:%M} {at.tzname() or at.tzinfo}"


def heading(digest: Digest) -> str:
    """`ICML 2026 digest · Mon 9 Mar 2026`, or `Today at ICML 2026 · Tue 14 Jul 2026`."""
    if digest.today is not None:
        return f"Today at {venue_label(digest.today.venue)} · {day_label(digest.day)}"
    return f"{HEADER_PREFIX} · {day_label(digest.day)}"


def footer(digest: Digest) -> str:
    """`Papers 7-9 of 19 · next digest Tue 09:00 KST` (a "today" digest: how many of the team's and orals)."""
    if digest.today is not None:
        t = digest.today
        parts = [f"{t.team_papers + t.more} of the team's papers today", f"{t.oral_papers} orals on the topics"]
        if digest.next_at is not None:
            parts.append(f"next digest {when_label(digest.next_at)}")
        return " · ".join(parts)
    if len(digest.papers) == 1:
        where = f"Paper {digest.first} of {digest.total}"
    else:
        where = f"Papers {digest.first}-{digest.last} of {digest.total}"
    if digest.round > 1:
        where += f" (round {digest.round})"
    parts = [where]
    if digest.next_at is not None:
        parts.append(f"next digest {when_label(digest.next_at)}")
    return " · ".join(parts)


def opening(abstract: str, headline: str) -> str:
    """An abstract (on one line) from its second sentence when its first is what the headline already says."""
    sentences = _SENTENCE_END.split(abstract)
    if len(sentences) > 1 and headline and sentences[0].lower() in headline.lower():
        return " ".join(sentences[1:])
    return abstract


def topics_note(digest: Digest) -> Marked | None:
    """What the channel's topics did to the order (`Papers on kv cache first, then the rest of ICML 2026.`), the
    topic words Strong; None without topics."""
    if not digest.topics:
        return None
    # venue:/year:/track: in the topics choose the venues
    words, venues = split_topics(digest.topics)
    rest = venues or "ICML 2026"
    if words and digest.topic_ids:
        return marked("Papers on ", Strong(words), f" first, then the rest of {rest}.")
    if words:
        return marked("No more papers match ", Strong(words), f": here is the rest of {rest}.")
    return marked(f"Papers of {rest}.")


def round_done(digest: Digest) -> str:
    """Said under the last papers of a round."""
    return (
        f"That's all {digest.total} papers: every one has now been in this channel's digest once. The next digest "
        f"starts round {digest.round + 1} from the top."
    )
