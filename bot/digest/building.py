"""Which papers a channel's digest holds on a date: the next of its round it has not seen, learned from its votes, or
"today at <venue>"; and where its digest stands (`/icml digest status`).

Reads the paper index and the digest log; writes nothing (bot/digest/channels.py claims and posts what this builds).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time, timedelta

from bot.digest import today as todays
from bot.digest.decisions import UNRESOLVED
from bot.digest.model import Digest, DigestStatus, NextRun, Subscription
from bot.digest.select import NEIGHBOURS, learned_order, paper_order
from bot.digest.subscriptions import Subscriptions
from bot.papers import index, references
from bot.papers.reading import Reader
from bot.search.reader import Papers
from bot.state import State
from bot.state.digests import RunRow, RunStatus
from bot.team import feedback, wants


class DigestBuilder:
    """Builds each channel's digest for a date from the paper index, its subscription and its log; thread-safe."""

    def __init__(
        self, state: State, papers: Papers, subscriptions: Subscriptions, next_run: NextRun | None = None
    ) -> None:
        self.state = state
        self.papers = papers  # one connection per thread, shared
        self.subscriptions = subscriptions
        self.next_run = next_run

    # ------------------------------------------------------------------ the paper index

    @property
    def papers_db(self) -> Reader:
        """This thread's read-only connection to the paper index (it may be rebuilt while we run)."""
        return self.papers.db

    def paper_order(self, topics: str = "") -> tuple[list[str], dict[str, list[str]]]:
        """Every paper id in the order a channel sees them (topic matches first), and the ids that matched (with the
        authors the topics named)."""
        return paper_order(self.papers_db, topics, self.papers.venues)

    def neighbours(self, paper_id: str) -> list[str]:
        """Papers close to this one, closest first, by the same measure as Similar (the digest learns with it)."""
        return [str(r.paper["id"]) for r in self.papers.similar(paper_id, k=NEIGHBOURS)]

    def _current_ids(self, ids: set[str]) -> set[str]:
        """Ids as the index knows them now (a paper merged into another keeps being the same paper)."""
        if not ids:
            return ids
        moved = references.moved_ids(self.papers_db)
        return {moved.get(i, i) for i in ids}

    # ------------------------------------------------------------------ a date's digest

    def plan(self, channel: str, day: date, team: str = "") -> Digest:
        """The digest `channel` would get on `day`: "today at <venue>" when the channel asked for it and the day has
        some, else the next papers of its round that it has not seen."""
        sub = self.subscriptions.current(channel, team)
        if sub.today:
            found = self.today(sub, day)
            if found is not None:
                return found
        order, matched = self.paper_order(sub.topics)
        round_ = self.state.digests.current_round(channel, team)
        shown = self._current_ids(self.state.digests.posted_ids(channel, round_, team))
        remaining = [p for p in order if p not in shown]
        if order and not remaining:
            round_, remaining = round_ + 1, order
        said = feedback.votes_in_channel(self.state, channel, team)
        remaining = learned_order(remaining, said.liked, said.disliked, self.neighbours)
        # Papers of another day's digest whose posting is unresolved may already be in the channel: hold them back.
        held = {
            p
            for r in self.state.digests.runs(channel, UNRESOLVED, team=team)
            if r.day != day.isoformat()
            for p in r.papers
        }
        picks = [p for p in remaining if p not in held][: sub.size]
        return self._digest(
            sub,
            day,
            picks,
            first=len(order) - len(remaining) + 1,
            total=len(order),
            round_=round_,
            round_done=len(picks) == len(remaining),
            matched=matched,
        )

    def today(self, sub: Subscription, day: date, only: list[str] | None = None, venue: str = "") -> Digest | None:
        """The channel's "today at <venue>" digest for `day` (in its zone), or None when the day has none of the
        team's papers and no oral on its topics. `only`/`venue`: rebuild a claimed one with its own papers."""
        team = wants.of_channel(self.state, self.papers, sub.team, sub.channel, None)
        orals = todays.orals_on(self.papers_db, self.papers, day, sub.tz)
        on_topics = set(self.paper_order(sub.topics)[1]) if sub.topics else None
        if only is not None:
            kept = set(only)
            team = [w for w in team if w.paper_id in kept]
            orals = [w for w in orals if w.paper_id in kept]
            on_topics = None
        found = todays.build(team, orals, day, sub.tz, on_topics, sub.size, venue or None)
        if found is None:
            return None
        ids = todays.paper_ids(found)
        digest = self._digest(sub, day, ids, 0, 0, self.state.digests.current_round(sub.channel, sub.team), False, {})
        return replace(digest, today=found, topic_ids=frozenset(), named={})

    def from_run(self, row: RunRow) -> Digest:
        """The digest a run row claimed, rebuilt with its own papers (to resolve an interrupted post)."""
        sub = self.subscriptions.current(row.channel, row.team)
        if row.venue:  # a "today" digest: the same kind, with the papers it claimed
            found = self.today(sub, date.fromisoformat(row.day), only=row.papers, venue=row.venue)
            if found is not None:
                return found
        return self._digest(
            sub,
            date.fromisoformat(row.day),
            row.papers,
            row.first,
            row.total,
            row.round,
            row.first + len(row.papers) - 1 >= row.total,
        )

    def _digest(
        self,
        sub: Subscription,
        day: date,
        ids: list[str],
        first: int,
        total: int,
        round_: int,
        round_done: bool,
        matched: dict[str, list[str]] | None = None,
    ) -> Digest:
        db = self.papers_db
        papers = [p for p in (index.get_paper(db, i) for i in ids) if p is not None]
        if matched is None:
            matched = self.paper_order(sub.topics)[1] if sub.topics else {}
        next_at = None
        # A stored subscription, not defaults()
        if sub.active and sub.created_at and self.next_run is not None:
            next_at = self.next_run(sub, datetime.combine(day + timedelta(days=1), time(0), sub.tz))
        return Digest(
            sub.channel,
            day,
            papers,
            first,
            total,
            round_,
            round_done,
            sub.topics,
            frozenset(i for i in ids if i in matched),
            next_at,
            {i: matched[i] for i in ids if matched.get(i)},
            team=sub.team,
        )

    # ------------------------------------------------------------------ status

    def status(self, channel: str, now: datetime, team: str = "") -> DigestStatus:
        """Where workspace `team`'s digest in a channel stands: schedule, next run, last digest, papers left, error."""
        sub = self.subscriptions.subscription(channel, team)
        runs = self.state.digests.runs(channel, limit=30, team=team)
        last = next((r for r in runs if r.status is RunStatus.POSTED), None)
        since = last.day if last else ""
        pending = [r for r in runs if r.status in (*UNRESOLVED, RunStatus.FAILED) and r.day > since]
        left = total = 0
        round_ = self.state.digests.current_round(channel, team)
        if sub is not None:
            order, _ = self.paper_order(sub.topics)
            shown = self._current_ids(self.state.digests.posted_ids(channel, round_, team))
            total = len(order)
            left = sum(p not in shown for p in order)
        next_at = self.next_run(sub, now) if sub and sub.active and self.next_run else None
        error = None
        if sub and sub.last_error:
            error = (sub.last_error, datetime.fromtimestamp(sub.last_error_at or 0, sub.tz))
        return DigestStatus(channel, sub, next_at, last, pending, left, total, round_, error)
