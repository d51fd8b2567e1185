"""Which papers a channel gets on a date, and the record of what was posted: at most one digest per channel and date.

Knows nothing of Slack: a digest goes out through a `Poster` (bot/slack/digest_post.py in production, a fake in
tests), and time comes in as arguments; the scheduler is the only code that reads the clock.

Exactly once, in four steps:
1. claim: in one BEGIN IMMEDIATE transaction, insert the (channel, date) run row with the chosen paper ids, or find
   the row another thread, process or earlier run already wrote and stop there;
2. post the message (it carries a marker: metadata `icml_digest` with the channel and date);
3. record the message ts and mark the papers as shown, in one transaction;
4. when step 2 may or may not have reached Slack (timeout, dropped connection, 5xx), or the process died between
   1 and 3, look for the marker in the channel history before posting again; if the history cannot be read, post
   nothing and say so (a missing digest is better than a second one).
"""

from __future__ import annotations

import logging
import threading
import time as _time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from typing import Any, cast
from zoneinfo import ZoneInfo

import sqlite_utils

from bot.config import Config
from bot.digest import today as todays
from bot.digest.model import (
    ALL_TOPICS,
    Digest,
    HistoryUnavailable,
    NextRun,
    Outcome,
    OutcomeStatus,
    Poster,
    PostRejected,
    PostUncertain,
    Subscription,
    days_to_cron,
    normalize_days,
    validate_channel,
)
from bot.digest.select import NEIGHBOURS, learned_order, paper_order
from bot.papers import index
from bot.search.reader import Papers
from bot.state import State
from bot.state.digests import RunRow, RunStatus
from bot.team import feedback
from bot.team import plan as plans

log = logging.getLogger(__name__)

CLAIM_STALE_SECONDS = 600  # a claim without a ts this old is a crashed post (a live one ends within ~4 min)
SETTLE_SECONDS = 5.0  # after an uncertain post, give Slack this long before reading the channel history
MAX_POST_TRIES = 2  # posts of one digest in one call, each after a history check found nothing
MAX_AUTO_ATTEMPTS = 5  # automatic retries of a digest Slack rejected for a passing reason (rate limit)
UNRESOLVED = (RunStatus.CLAIMED, RunStatus.UNCERTAIN)


class ChannelDigests:
    """Subscriptions, paper selection and exactly-once posting for every channel; safe to share between threads."""

    def __init__(
        self,
        state: State,
        papers: Papers,
        poster: Poster | None = None,
        *,
        config: Config | None = None,
        next_run: NextRun | None = None,
        grace: float | None = None,
        owner: str | None = None,
        sleep: Callable[[float], None] = _time.sleep,
        settle: float = SETTLE_SECONDS,
    ) -> None:
        self.state = state
        self.papers = papers  # one connection per thread, shared
        self.poster = poster
        self.config = config
        self.next_run = next_run
        self.grace = float(grace if grace is not None else (config.digest_grace if config else 6 * 3600))
        self.owner = owner or f"{uuid.uuid4().hex[:8]}"
        self.sleep = sleep
        self.settle = settle
        self.stopping = threading.Event()  # set at shutdown: no new claims, and an uncertain post is not retried
        self._in_flight: set[tuple[str, str, str]] = set()  # (team, channel, date) this process is posting now

    @property
    def per_workspace(self) -> bool:
        """Whether digests belong to workspaces (many installed through OAuth), not to the one workspace ("")."""
        return bool(self.config and self.config.many_workspaces)

    # ------------------------------------------------------------------ the paper index

    @property
    def papers_db(self) -> sqlite_utils.Database:
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
        moved = dict(self.papers_db.execute("SELECT alias, paper_id FROM aliases").fetchall())  # a few per merge
        return {moved.get(i, i) for i in ids}

    # ------------------------------------------------------------------ subscriptions

    def defaults(self, channel: str, team: str = "") -> Subscription:
        """What a new subscription gets when nothing is given: the ICML_DIGEST_* settings."""
        c = self.config
        if c is None:
            return Subscription(channel, team=team)
        return Subscription(
            channel, at=c.digest_time, tz=c.digest_tz, days=days_to_cron(c.digest_days), size=c.digest_size, team=team
        )

    def subscription(self, channel: str, team: str = "") -> Subscription | None:
        """Workspace `team`'s subscription in a channel (also an inactive one), or None."""
        row = self.state.digests.subscription(channel, team)
        return Subscription.from_row(row) if row else None

    def adopt(self, channel: str, team: str) -> bool:
        """Give a channel's digest made without a workspace (before many workspaces, or by ICML_DIGEST_CHANNEL) to
        workspace `team`, with its rounds and votes (`/icml digest adopt`; with one workspace, any digest command);
        False when none was left."""
        adopted = self.state.digests.adopt(channel, team)
        if adopted:
            log.info("the digest of %s without a workspace now belongs to workspace %s", channel, team)
        return adopted

    def subscriptions(self, team: str | None = None) -> list[Subscription]:
        """Every active subscription, or workspace `team`'s: with one workspace, those made before workspaces were
        recorded (team "") are its too; with many, they are nobody's until a workspace adopts them."""
        if team is None:
            return [Subscription.from_row(r) for r in self.state.digests.subscriptions()]
        teams = [team] if self.per_workspace or not team else [team, ""]
        return [Subscription.from_row(r) for r in self.state.digests.subscriptions(teams=teams)]

    def subscribe(
        self,
        channel: str,
        now: datetime,
        user: str = "",
        topics: str | None = None,
        at: time | None = None,
        tz: ZoneInfo | None = None,
        days: str | None = None,
        size: int | None = None,
        source: str = "slack",
        team: str = "",
        enterprise: str | None = None,
    ) -> Subscription:
        """Create or change workspace `team`'s digest in a channel; what is not given stays as it was (or the default
        when new). `enterprise`: the workspace's Enterprise Grid org, whose org-wide install may hold its token."""
        validate_channel(channel, "channel")
        ts = now.timestamp()
        with self.state.immediate():
            old = self.subscription(channel, team)
            base = old or replace(self.defaults(channel, team), created_by=user, created_at=ts, schedule_from=ts)
            if topics is not None and topics.strip().lower() in ALL_TOPICS:
                topics = ""
            sub = replace(
                base,
                topics=base.topics if topics is None else " ".join(topics.split()),
                at=at or base.at,
                tz=tz or base.tz,
                days=normalize_days(days) if days else base.days,
                size=size or base.size,
                source=source,
                enterprise=base.enterprise if enterprise is None else enterprise,
                active=True,
                updated_at=ts,
            )
            schedule = (sub.at, sub.tz.key, sub.days)
            if old is None or not old.active or schedule != (old.at, old.tz.key, old.days):
                sub = replace(sub, schedule_from=ts)  # no catch-up for slots of the old schedule
            self.state.digests.save_subscription(sub.to_row())
        return sub

    def unsubscribe(self, channel: str, now: datetime, team: str = "") -> bool:
        """Stop workspace `team`'s digest in a channel; False if it had none. Its rounds are kept for a re-subscribe."""
        with self.state.immediate():
            sub = self.subscription(channel, team)
            if sub is None or not sub.active:
                return False
            self.state.digests.save_subscription(replace(sub, active=False, updated_at=now.timestamp()).to_row())
        return True

    def set_today(self, channel: str, on: bool, now: datetime, team: str = "") -> Subscription | None:
        """Switch workspace `team`'s digest in a channel to "today at <venue>" on a venue's days (or back); None when
        the channel has no active digest."""
        with self.state.immediate():
            sub = self.subscription(channel, team)
            if sub is None or not sub.active:
                return None
            sub = replace(sub, today=on, updated_at=now.timestamp())
            self.state.digests.save_subscription(sub.to_row())
        return sub

    def ensure_config_subscription(self, now: datetime) -> Subscription | None:
        """Make ICML_DIGEST_CHANNEL a subscription; Slack's changes to it and an unsubscribe there win over config."""
        if self.config is None:
            return None
        wanted = self.config.digest_channel
        for sub in self.subscriptions():
            if sub.source == "config" and sub.channel != wanted:
                log.info("ICML_DIGEST_CHANNEL no longer names %s: its daily digest stops", sub.channel)
                self.unsubscribe(sub.channel, now, sub.team)
        if not wanted:
            return None
        channel = validate_channel(wanted)
        # (its row may have been adopted by a workspace since: it is the same digest, whichever workspace owns it)
        rows = self.state.digests.subscriptions(channel, active=False)
        owned = [Subscription.from_row(r) for r in rows if r.source == "config"] or [
            Subscription.from_row(r) for r in rows if not r.team
        ]
        old = owned[0] if owned else None
        if old is not None and old.source == "slack":
            log.info(
                "ICML_DIGEST_CHANNEL %s has settings from /icml digest subscribe (%s); they win over "
                "ICML_DIGEST_TIME/TZ/DAYS/SIZE",
                channel,
                old.when(),
            )
            return old if old.active else None
        if old is not None and not old.active:
            log.warning(
                "ICML_DIGEST_CHANNEL %s was unsubscribed with /icml digest unsubscribe: no digest there "
                "until someone runs /icml digest subscribe in it",
                channel,
            )
            return None
        d = self.defaults(channel)
        return self.subscribe(
            channel,
            now,
            team=old.team if old else "",
            user="config",
            topics=old.topics if old else "",
            at=d.at,
            tz=d.tz,
            days=d.days,
            size=d.size,
            source="config",
        )

    # ------------------------------------------------------------------ selection

    def plan(self, channel: str, day: date, team: str = "") -> Digest:
        """The digest `channel` would get on `day`: "today at <venue>" when the channel asked for it and the day has
        some, else the next papers of its round that it has not seen."""
        sub = self.subscription(channel, team) or self.defaults(channel, team)
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
        team = plans.of_channel(self.state, self.papers, sub.team, sub.channel, None)
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
        if sub.active and sub.created_at and self.next_run is not None:  # a stored subscription, not defaults()
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

    def _from_run(self, row: RunRow) -> Digest:
        sub = self.subscription(row.channel, row.team) or self.defaults(row.channel, row.team)
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

    # ------------------------------------------------------------------ posting, exactly once

    def post_digest(self, channel: str, day: date, now: datetime, manual: bool = False, team: str = "") -> Outcome:
        """Post workspace `team`'s digest in `channel` for `day` unless it is there; `manual` also redoes a skipped or
        refused one."""
        if self.poster is None:
            raise RuntimeError("ChannelDigests was built without a poster; it can plan digests but not post them")
        ts, key = now.timestamp(), day.isoformat()
        if self.stopping.is_set():
            return Outcome(
                "stopping", channel, day, acted=False, error="the bot is shutting down; try again when it is back"
            )
        # What the paper index says (its whole order, a search for the topics: the costly part of choosing, shared
        # by channels with the same topics) is read before taking the state's write lock, which every writer of
        # every process waits for: a fan-out of many digests would otherwise hold it most of the time.
        sub = self.subscription(channel, team)
        self.paper_order(sub.topics if sub is not None else "")
        flight, flying = (team, channel, key), False
        try:
            with self.state.immediate():
                claimed = self._claim(channel, day, team, ts, manual)
                if isinstance(claimed, Outcome):
                    return claimed
                self._in_flight.add(flight)  # (before the claim commits: this process's other threads wait for it)
                flying = True
        except BaseException:
            if flying:
                self._in_flight.discard(flight)
            raise
        digest = claimed.digest
        try:
            if claimed.row is not None and claimed.resolve:
                return self._resolve(digest, claimed.row, ts, claimed.since, manual)
            return self._send(digest, ts, claimed.since)
        except (Exception, KeyboardInterrupt, SystemExit) as exc:
            # This attempt is over (Ctrl-C, SIGTERM, a bug, a locked database) but the post may have reached Slack:
            # "uncertain" makes the next attempt look in the channel history first, without waiting for the claim
            # to go stale. (A process killed outright leaves its claim, which goes stale in 10 minutes; when the
            # database itself failed, so that not even "uncertain" could be written, this process settles its claim
            # at its next attempt.)
            self._abandon(digest, ts, exc)
            raise
        finally:
            self._in_flight.discard(flight)

    def _claim(self, channel: str, day: date, team: str, ts: float, manual: bool) -> Outcome | _Claimed:
        """Inside the write transaction: what to do about the date's run, and the claim (or the take-over of an
        interrupted claim, to resolve it); an Outcome when there is nothing to post."""
        key = day.isoformat()
        row = self.state.digests.run(channel, key, team)
        action, outcome = self._decide(channel, day, row, ts, manual)
        if outcome is not None:
            return outcome
        if action == "resolve":
            assert row is not None
            self.state.digests.update_run(
                channel,
                key,
                team,
                status=RunStatus.CLAIMED,
                owner=self.owner,
                claimed_at=ts,
                attempts=row.attempts + 1,
            )
            return _Claimed(self._from_run(row), row, row.first_claimed_at, resolve=True)
        digest = self.plan(channel, day, team)
        if not digest.papers:
            return Outcome("empty", channel, day, acted=False)
        since = ts if row is None else row.first_claimed_at
        claim = RunRow(
            team,
            channel,
            key,
            RunStatus.CLAIMED,
            claimed_at=ts,
            first_claimed_at=since,
            papers=digest.paper_ids,
            round=digest.round,
            first=digest.first,
            total=digest.total,
            owner=self.owner,
            attempts=1 if row is None else row.attempts + 1,
            venue=digest.today.venue if digest.today else "",
        )
        if row is None:
            self.state.digests.claim(claim)
        else:
            self.state.digests.replace_run(claim)  # a new attempt: what the failed or skipped one said goes
        return _Claimed(digest, row, since, resolve=False)

    def _resolve(self, digest: Digest, row: RunRow, ts: float, since: float, manual: bool) -> Outcome:
        """A claim that never got a ts: the channel history says whether it was posted; post it if not."""
        age = ts - row.claimed_at
        if row.status is RunStatus.UNCERTAIN and 0 <= age < self.settle:
            self.sleep(self.settle - age)  # a post abandoned a moment ago may still be on its way into the channel
        try:
            found = self.poster.find(digest.channel, digest.day, since, digest.team)  # type: ignore[union-attr]
        except HistoryUnavailable as exc:
            return self._uncertain(digest, ts, f"cannot read the channel history ({exc.error})")
        if found:
            return self._posted(digest, found, ts, recovered=True)
        if not manual and ts - since > self.grace:
            return self._skip_claimed(
                digest,
                ts,
                "the bot stopped while posting it and it is not in the channel history; too late to post it now",
            )
        sub = self.subscription(digest.channel, digest.team)
        if not manual and sub is not None and not sub.active:
            return self._skip_claimed(digest, ts, "the channel unsubscribed before it could be posted")
        return self._send(digest, ts, since)

    def _abandon(self, digest: Digest, ts: float, exc: BaseException) -> None:
        """Mark a claimed digest uncertain after its attempt was interrupted (best effort: the claim stays else)."""
        try:
            row = self.state.digests.run(digest.channel, digest.day.isoformat(), digest.team)
            if row is not None and row.status is RunStatus.CLAIMED and row.owner == self.owner:
                self._uncertain(digest, ts, f"interrupted while posting ({type(exc).__name__})")
        except Exception as inner:  # e.g. the state database is what failed: the claim goes stale in 10 minutes
            log.error(
                "could not record that the %s digest for %s was interrupted (%s); the bot checks the channel "
                "history before posting it again",
                digest.day,
                digest.channel,
                inner,
            )

    def _decide(
        self, channel: str, day: date, row: RunRow | None, ts: float, manual: bool
    ) -> tuple[str, Outcome | None]:
        """What to do about an existing run row: ("new" | "resolve", None) or ("", the outcome to return)."""
        if row is None:
            return "new", None
        age = ts - row.claimed_at
        done = Outcome("failed", channel, day, acted=False, ts=row.ts, error=row.error)
        if row.status is RunStatus.POSTED:
            return "", replace(done, status="already")
        if row.status is RunStatus.SKIPPED:
            return ("new", None) if manual else ("", replace(done, status="skipped"))
        if row.status is RunStatus.CLAIMED:
            # Another process's claim may still be posting until it is stale; this process's own, when no thread of
            # it is posting it, is an attempt that ended without a record (the database failed at that moment).
            over = row.owner == self.owner and (row.team, row.channel, row.day) not in self._in_flight
            return ("resolve", None) if over or age >= CLAIM_STALE_SECONDS else ("", replace(done, status="busy"))
        if row.status is RunStatus.UNCERTAIN:
            return (
                ("resolve", None) if manual or age >= backoff(row.attempts) else ("", replace(done, status="uncertain"))
            )
        # failed: Slack refused it, nothing was posted
        if manual or (not row.permanent and row.attempts < MAX_AUTO_ATTEMPTS and age >= backoff(row.attempts)):
            return "new", None
        return "", done

    def _send(self, digest: Digest, ts: float, since: float) -> Outcome:
        assert self.poster is not None
        error = ""
        for _ in range(MAX_POST_TRIES):
            try:
                posted = self.poster.post(digest)
            except PostRejected as exc:
                return self._failed(digest, ts, exc.error, exc.permanent)
            except PostUncertain as exc:
                error = exc.error
                if self.stopping.is_set():  # shutting down: the next start checks the history, not this process
                    return self._uncertain(digest, ts, error)
                log.warning(
                    "posting the %s digest to %s may have failed (%s); checking the channel history before "
                    "trying again",
                    digest.day,
                    digest.channel,
                    error,
                )
                self.sleep(self.settle)
                try:
                    found = self.poster.find(digest.channel, digest.day, since, digest.team)
                except HistoryUnavailable as hist:
                    return self._uncertain(digest, ts, f"{error}; cannot read the channel history ({hist.error})")
                if found:
                    return self._posted(digest, found, ts, recovered=True)
                continue
            return self._posted(digest, posted, ts)
        return self._uncertain(digest, ts, error)

    def _posted(self, digest: Digest, message_ts: str, ts: float, recovered: bool = False) -> Outcome:
        with self.state.immediate():
            self.state.digests.update_run(
                digest.channel,
                digest.day.isoformat(),
                digest.team,
                status=RunStatus.POSTED,
                ts=message_ts,
                posted_at=ts,
                error=None,
                permanent=False,
            )
            if digest.today is None:  # a "today" digest is not part of the round: the round goes on after it
                self.state.digests.record_papers(
                    digest.channel, digest.round, digest.paper_ids, digest.day.isoformat(), ts, digest.team
                )
            self.state.digests.set_error(digest.channel, None, None, digest.team)  # what went wrong before is settled
        outcome = Outcome("posted", digest.channel, digest.day, ts=message_ts, digest=digest, recovered=recovered)
        log.info("%s", outcome.describe())
        return outcome

    def _failed(self, digest: Digest, ts: float, error: str, permanent: bool) -> Outcome:
        outcome = self._unposted(digest, ts, RunStatus.FAILED, error, permanent=permanent)
        log.error("%s%s", outcome.describe(), "" if permanent else " (will retry)")
        return outcome

    def _uncertain(self, digest: Digest, ts: float, error: str) -> Outcome:
        outcome = self._unposted(digest, ts, RunStatus.UNCERTAIN, error, claimed_at=ts)
        log.error("%s", outcome.describe())
        return outcome

    def _skip_claimed(self, digest: Digest, ts: float, reason: str) -> Outcome:
        outcome = self._unposted(digest, ts, RunStatus.SKIPPED, reason)
        log.warning("%s", outcome.describe())
        return outcome

    def _unposted(self, digest: Digest, ts: float, status: RunStatus, error: str, **fields: Any) -> Outcome:
        """Record a claimed digest as not posted (failed, uncertain or skipped) and why, on its run and its channel."""
        with self.state.immediate():
            self.state.digests.update_run(
                digest.channel, digest.day.isoformat(), digest.team, status=status, error=error, **fields
            )
            self.state.digests.set_error(digest.channel, error, ts, digest.team)
        kept = digest if status is not RunStatus.SKIPPED else None  # (a skipped outcome carries no digest)
        return Outcome(cast(OutcomeStatus, status.value), digest.channel, digest.day, error=error, digest=kept)

    def skip(self, channel: str, day: date, now: datetime, reason: str, team: str = "") -> bool:
        """Record that `channel` gets no digest for `day` (e.g. the bot was down); False if the day has a record."""
        ts = now.timestamp()
        with self.state.immediate():
            recorded = self.state.digests.claim(
                RunRow(
                    team,
                    channel,
                    day.isoformat(),
                    RunStatus.SKIPPED,
                    claimed_at=ts,
                    first_claimed_at=ts,
                    papers=[],
                    owner=self.owner,
                    attempts=0,
                    error=reason,
                )
            )
            if recorded:
                self.state.digests.set_error(channel, f"skipped the {day.isoformat()} digest: {reason}", ts, team)
        if recorded:
            log.warning("skipped the digest for %s on %s: %s", channel, day.isoformat(), reason)
        return recorded

    def resolve_pending(self, now: datetime) -> list[Outcome]:
        """Settle digests whose posting was interrupted (claimed long ago, or uncertain): history first, then post."""
        outcomes = []
        for row in self.state.digests.runs(statuses=UNRESOLVED):
            outcome = self.post_digest(row.channel, date.fromisoformat(row.day), now, team=row.team)
            if outcome.acted:
                outcomes.append(outcome)
        return outcomes

    # ------------------------------------------------------------------ status

    def status(self, channel: str, now: datetime, team: str = "") -> DigestStatus:
        """Where workspace `team`'s digest in a channel stands: schedule, next run, last digest, papers left, error."""
        sub = self.subscription(channel, team)
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


@dataclass(frozen=True)
class _Claimed:
    """A date claimed in the write transaction: the digest to post, the run row found before (None: a new one), since
    when the date was first claimed, and whether it is an interrupted claim to resolve (history first)."""

    digest: Digest
    row: RunRow | None
    since: float
    resolve: bool


@dataclass(frozen=True)
class DigestStatus:
    """A channel's digest at a glance, for `/icml digest status`."""

    channel: str
    subscription: Subscription | None
    next_at: datetime | None
    last: RunRow | None  # the latest posted run
    pending: list[RunRow]  # runs that failed or are unresolved
    left: int  # papers not yet shown in the current round
    total: int
    round: int
    error: tuple[str, datetime] | None  # the last error, when nothing was posted since


def backoff(attempts: int) -> float:
    """Seconds to wait before automatic attempt `attempts + 1`: 2, 4, 8 … minutes, at most an hour."""
    return float(min(60 * 2 ** max(attempts, 1), 3600))
