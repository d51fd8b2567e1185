"""Robustness in figures: inputs tried, faults injected, requests served, errors, and data lost (must be zero).

Run: python -m bench robustness [--short] [--examples N]
Everything runs locally (127.0.0.1 only) against the 19 bundled abstracts plus a paper whose every field tries to
ping a channel, with a local fake of the Slack Web API:

1. inputs: generated slash-command text, mention text, queries, source files (JSONL, JSON, CSV, seed text), paper
   records and digests, each checked for exceptions, Block Kit limits and escaping (`--examples` per target);
2. faults: the Web API answering 429, 500, late or invalid_auth (mention replies, response_urls, digests); the
   state database write-locked by another connection; the index rebuilt under the serving bot; unusable database
   files for `search`, `stats` and `digest`; forged and stale signatures; SIGTERM to a real `icml-bot serve` while
   it posts a digest, then a restart.

A state database holding subscriptions, a week of posted digests and the papers they showed is snapshotted before
the faults and compared after: "data lost" counts rows that disappeared or changed. "Errors" counts requests
without a valid answer (or an apology, or a log line naming Slack's error), exceptions, tracebacks in the log and
digests posted twice. Exit status 1 unless both are zero. `--short` is the CI version (a few seconds).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bench.common import ROOT
from tests.support.seed_ids import VEGAS

CHANNELS = ("C0BENCH0001", "C0BENCH0002", "C0BENCH0003", "C0BENCH0004")
FAULT_CHANNEL = "C0BENCHFLT1"
LOCK_CHANNEL = "C0BENCHLCK1"
SIGTERM_CHANNEL = "C0BENCHSIG1"
EVIL = {
    "id": "evil0001",
    "title": "<!channel> Attention & Friends <@U999>",
    "abstract": "We study <!here> pings: a <https://evil.example|click me> link, an ampersand & and <@U123> "
    "mentions should stay plain text. Zebrafish transformers outperform xylophone baselines. " * 3,
    "authors": ["Ada <!everyone> Lovelace", "Alan Turing"],
    "url": "javascript:alert(1)",
    "code_url": "https://github.com/example/zebra>|x",
    "status": "Oral",
    "session": "Poster 9 <!here>",
}


@dataclass
class Tally:
    """The figures, added up as the scenarios run."""

    inputs: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    served: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def error(self, what: str) -> None:
        """Count one error (the first few are printed)."""
        self.errors.append(what)


# ---------------------------------------------------------------------- 1. inputs


def fuzz(
    tally: Tally, name: str, strategy: st.SearchStrategy[Any], check: Callable[[Any], list[str]], examples: int
) -> None:
    """Feed `examples` generated inputs to `check`; an exception or a listed problem is an error."""
    count = 0

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def prop(value: Any) -> None:
        nonlocal count
        count += 1
        try:
            problems = check(value)
        except Exception as exc:  # the figure counts it; the run goes on
            problems = [f"{type(exc).__name__}: {exc}"]
        if problems:
            tally.error(f"{name}: {problems[0]} (input {value!r:.150})")

    prop()
    tally.inputs[name] += count


def inputs(tally: Tally, index_path: Path, work: Path, examples: int) -> None:
    """Generated input through every parser and message builder."""
    from bot.digest.channels import ChannelDigests
    from bot.digest.model import Digest
    from bot.papers import corpus
    from bot.papers.corpus import SourceError
    from bot.papers.row import PaperRow
    from bot.search import Result, SearchResponse
    from bot.search.reader import Papers
    from bot.slack import blocks, commands, events
    from bot.slack.blocks import digest as digest_blocks
    from bot.slack.services import Services
    from bot.state import State
    from bot.text.marked import marked
    from tests.support.digest import service as digest_service
    from tests.support.robust import csv_files, jsonl_files, message_problems, papers, seed_files, slack_text

    state = State(work / "fuzz-state.db")
    desk = digest_service(
        ChannelDigests.of(state, Papers(index_path), None), lambda: datetime(2026, 3, 9, 8, tzinfo=UTC)
    )
    deps = Services(papers=Papers(index_path), state=state, digests=desk)

    def slash(text: str) -> list[str]:
        if text.lower().lstrip().startswith("digest now"):
            return []  # posting needs Slack; the fault scenarios post digests
        return message_problems(commands.ack_payload(deps, text, "U0BENCH", "C0BENCHFUZ1"))

    def mention(pair: tuple[str, str]) -> list[str]:
        event = {
            "type": "app_mention",
            "text": f"<@UBOT> {pair[0]}",
            "user": "U1",
            "channel": "C1",
            "ts": "1700000009.000300",
            "thread_ts": "1700000000.000100",
        }
        return message_problems(events.thread_reply(deps, event, lambda c, t: pair[1]))

    def query(text: str) -> list[str]:
        return message_problems(blocks.results_message(deps.papers.search(text, limit=5)))

    def source(pair: tuple[str, bytes]) -> list[str]:
        suffix, data = pair
        path = work / f"fuzz{suffix}"
        path.write_bytes(data)
        try:
            records = list(corpus.read(path, workers=1))
        except SourceError as exc:
            return [] if "\n" not in str(exc) else ["a multi-line source error"]
        return [f"bad record {r!r:.80}" for r in records if isinstance(r, corpus.Paper) and not r.title.strip()]

    def paper(p: PaperRow) -> list[str]:
        response = SearchResponse("q", [Result(p, 1.0, marked(str(p["abstract"])[:300]))], 9, 0, None, [])
        msgs = [
            blocks.results_message(response),
            blocks.paper_message(p, another=True),
            blocks.abstract_message(p),
            blocks.shared_message(p, "U0SHARER"),
        ]
        return [problem for m in msgs for problem in message_problems(m, users={"U0SHARER"})]

    def digest(ps: list[PaperRow]) -> list[str]:
        d = Digest("C0BENCH0001", date(2026, 3, 9), ps, 1, 20, 1, False, "kv <!here> cache", frozenset(), None)
        return message_problems(digest_blocks.digest_message(d))

    files = st.one_of(
        *(
            st.tuples(st.just(s), f)
            for s, f in ((".jsonl", jsonl_files()), (".csv", csv_files()), (".txt", seed_files()))
        ),
        st.tuples(st.sampled_from([".jsonl", ".json", ".csv", ".txt"]), st.binary(max_size=300)),
    )
    try:
        fuzz(tally, "slash-command text", slack_text, slash, examples)
        fuzz(tally, "mention and thread text", st.tuples(slack_text, slack_text), mention, examples)
        fuzz(tally, "search queries", st.one_of(slack_text, st.text(min_size=300, max_size=3000)), query, examples)
        fuzz(tally, "source files", files, source, examples)
        fuzz(tally, "paper records", papers(), paper, examples)
        fuzz(tally, "digests", st.lists(papers(), min_size=1, max_size=5), digest, max(examples // 2, 10))
    finally:
        desk.stop()
        state.close()


# ---------------------------------------------------------------------- 2. faults


@contextlib.contextmanager
def captured_log() -> Iterator[io.StringIO]:
    """Everything the bot logs (INFO and up) while the faults run."""
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield buf
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll `predicate` until it holds (True) or `timeout` s pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def seed_state(fake: Any, index_path: Path, state_path: Path) -> None:
    """What a team built up: four subscriptions and a week of digests (posted through the fake Slack)."""
    from bot.digest.subscriptions import Settings
    from tests.support.digest import make_digests

    digests = make_digests(fake, index_path, state_path)
    start = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    for n, channel in enumerate(CHANNELS):
        digests.subscriptions.subscribe(
            channel, start, Settings(topics=("", "kv cache", "speculative decoding", "tokenizer")[n], days="mon-sun")
        )
    for day in range(7):
        when = start + timedelta(days=day, hours=1)
        for channel in CHANNELS:
            digests.post_digest(channel, when.date(), when)
    digests.state.close()


def slack_faults(tally: Tally, http: Any, fake: Any, log: io.StringIO, rounds: int) -> None:
    """Mention replies and button answers while the Web API answers 429, 500, late or invalid_auth."""
    from bot.slack import blocks
    from tests.support.slack_requests import block_action_payload, mention_event

    for r in range(rounds):
        for fault in ("429", "500", "timeout", "invalid_auth"):
            ts = f"17000{r:02d}{len(fault):03d}.{abs(hash(fault)) % 999999:06d}"
            user = f"U0F{fault.upper().replace('_', '')[:6]}"
            if fault == "429":
                fake.fail_next("chat.postMessage", "ratelimited", retry_after=0)
            elif fault == "500":
                fake.fail_next("chat.postMessage", "internal_error", status=500)
            elif fault == "timeout":
                fake.delay_next("chat.postMessage", 1.5)
            else:
                # A revoked token: the bot logs it and does not try an apology that would be refused too
                fake.fail_next("chat.postMessage", "invalid_auth")
            tally.faults[f"Web API {fault}"] += 1
            started = time.perf_counter()
            reply = http.event(mention_event("kv cache", user=user, ts=ts))
            if reply.status != 200 or time.perf_counter() - started > 3:
                tally.error(f"mention under {fault}: HTTP {reply.status}")
                continue
            tally.served += 1

            def answered(ts: str = ts, user: str = user, fault: str = fault) -> bool:
                posted = any(c.ok and c.params.get("thread_ts") == ts for c in fake.calls("chat.postMessage"))
                apologised = any(c.ok and c.params.get("user") == user for c in fake.calls("chat.postEphemeral"))
                if fault == "invalid_auth":
                    return "Slack refuses the bot token (invalid_auth)" in log.getvalue()
                return posted or apologised

            if not wait_until(answered):
                tally.error(f"mention under {fault}: neither answered, apologised for nor logged")
        for status in (500, 404):
            name, user = f"r{r}s{status}", f"U0RESP{r}{status}"
            fake.fail_response(name, status=status, body="expired_url" if status == 404 else "oops")
            tally.faults[f"response_url {status}"] += 1
            reply = http.action(
                block_action_payload(blocks.ACTION_SHARE, VEGAS, user_id=user, response_url=fake.response_url(name))
            )
            tally.served += reply.status == 200

            def delivered(name: str = name, user: str = user, status: int = status) -> bool:
                if status == 500:  # retried: the share itself gets through
                    return bool(fake.responses(name))
                return any(c.ok and c.params.get("user") == user for c in fake.calls("chat.postEphemeral"))

            if reply.status != 200 or not wait_until(delivered):
                tally.error(f"share under response_url {status}: no answer and no apology")


def digest_faults(tally: Tally, fake: Any, index_path: Path, state_path: Path) -> None:
    """`/icml digest now`-style posts while Slack answers 429, 500, late or invalid_auth: never twice."""
    from bot.digest.subscriptions import Settings
    from tests.support.digest import make_digests

    # Slack's late answer (0.8 s) lands within `settle`: the history check finds it and nothing is posted twice.
    digests = make_digests(fake, index_path, state_path, timeout=0.5, settle=0.6)
    start = datetime(2026, 4, 6, 8, 0, tzinfo=UTC)
    digests.subscriptions.subscribe(FAULT_CHANNEL, start, Settings(days="mon-sun"))
    expected = {"429": "posted", "500": "posted", "timeout": "posted", "invalid_auth": "failed"}
    for n, fault in enumerate(expected):
        when = start + timedelta(days=n)
        if fault == "429":
            fake.fail_next("chat.postMessage", "ratelimited", retry_after=0)
        elif fault == "500":
            fake.fail_next("chat.postMessage", "internal_error", status=500)
        elif fault == "timeout":
            fake.delay_next("chat.postMessage", 0.8)
        else:
            fake.fail_next("chat.postMessage", "invalid_auth")
        tally.faults[f"digest {fault}"] += 1
        outcome = digests.post_digest(FAULT_CHANNEL, when.date(), when, manual=True)
        if outcome.status != expected[fault]:
            tally.error(f"digest under {fault}: {outcome.describe()}")
    digests.state.close()


class Locker:
    """Another connection holding the write lock of a database for `seconds`."""

    def __init__(self, path: Path, seconds: float) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("BEGIN IMMEDIATE")
        self.timer = threading.Timer(seconds, lambda: self.conn.execute("COMMIT"))
        self.timer.start()


def locked_state(tally: Tally, http: Any, fake: Any, state_path: Path) -> None:
    """Commands, a subscribe and a mention while another connection holds the state database's write lock."""
    from bot.slack.events import DEDUPE_WAIT_SECONDS
    from tests.support.slack_harness import texts
    from tests.support.slack_requests import mention_event

    tally.faults["state database locked"] += 1
    locker = Locker(state_path, DEDUPE_WAIT_SECONDS + 1.0)
    results: dict[str, Any] = {}
    calls: dict[str, Callable[[], Any]] = {
        "search": lambda: http.command("speculative decoding"),
        "status": lambda: http.command("digest status", channel_id=LOCK_CHANNEL),
        "subscribe": lambda: http.command("digest subscribe kv cache", channel_id=LOCK_CHANNEL),
        "mention": lambda: http.event(mention_event("kv cache", ts="1700009999.000100"), "EvBenchLocked"),
    }
    threads = [
        threading.Thread(target=lambda k=k, f=f: results.__setitem__(k, (f(), time.monotonic())))
        for k, f in calls.items()
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    for name, (reply, done) in results.items():
        if done - started > 3:
            tally.error(f"{name} while locked took {done - started:.1f} s")
        if name == "mention":
            if reply.status == 503:
                tally.refused["503 while the state database was locked"] += 1
            else:
                tally.error(f"mention while locked: HTTP {reply.status}")
        elif reply.status != 200:
            tally.error(f"{name} while locked: HTTP {reply.status}")
        else:
            tally.served += 1
            if name == "subscribe" and "database is busy" not in texts(reply.json()):
                tally.error("subscribe while locked did not say the database was busy")
    locker.timer.join()
    reply = http.event(mention_event("kv cache", ts="1700009999.000100"), "EvBenchLocked", retry_num=1)
    tally.served += reply.status == 200
    if not wait_until(
        lambda: any(c.ok and c.params.get("thread_ts") == "1700009999.000100" for c in fake.calls("chat.postMessage"))
    ):
        tally.error("the redelivered mention was not answered after the lock")


def reindex(tally: Tally, http: Any, index_path: Path, work: Path) -> None:
    """Load 400 more papers into the served index while three clients keep querying it."""
    from bot.papers import index
    from tests.support.robust import message_problems

    source = work / "more.jsonl"
    with source.open("w", encoding="utf-8") as fh:
        for n in range(400):
            fh.write(
                json.dumps(
                    {
                        "id": f"quokka{n}",
                        "title": f"Quokka networks {n} for marsupial vision",
                        "abstract": f"We study quokka networks, variant {n}, and marsupial vision. " * 4,
                    }
                )
                + "\n"
            )
    before = http.request("GET", "/healthz").json()["papers"]
    stop = threading.Event()
    counts: list[int] = []

    def fire(query: str) -> None:
        while not stop.is_set():
            reply = http.command(query)
            if reply.status != 200 or message_problems(reply.json()):
                tally.error(f"query {query!r} during re-indexing: HTTP {reply.status}")
            else:
                tally.served += 1
            counts.append(http.request("GET", "/healthz").json()["papers"])
            tally.served += 1

    tally.faults["re-index under load"] += 1
    threads = [threading.Thread(target=fire, args=(q,)) for q in ("kv cache", "quokka marsupial", "vegas")]
    for thread in threads:
        thread.start()
    writer = index.connect(index_path)
    index.load(writer, [source], workers=1)
    writer.conn.close()
    time.sleep(0.2)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    if set(counts) - {before, before + 400}:
        tally.error(f"a half-built index was visible: paper counts {sorted(set(counts))}")


def bad_signatures(tally: Tally, http: Any) -> None:
    """Unsigned, forged, stale and tampered requests, and odd routes: all 401."""
    from tests.support.slack_harness import SECRET
    from tests.support.slack_requests import form_body, sign, slash_form

    body = form_body(slash_form("kv cache"))
    now = int(time.time())
    good = sign(SECRET, body, now)
    forged = [
        ("POST", "/slack/events", body, {}),
        ("POST", "/slack/events", body, sign("wrong-secret", body, now)),
        ("POST", "/slack/events", body, sign(SECRET, body, now - 301)),
        ("POST", "/slack/events", body, {**good, "X-Slack-Request-Timestamp": "abc"}),
        ("POST", "/slack/events", body.replace(b"kv+cache", b"stats"), good),
        ("POST", "/slack/events", b"\xff" + body, good),
        ("GET", "/slack/events", b"", {}),
        ("PUT", "/slack/events", body, {}),
        ("DELETE", "/", b"", {}),
        ("GET", "/admin", b"", {}),
        ("POST", "/healthz", body, {}),
        ("GET", "/slack/install", b"", {}),
        ("GET", "/%2e%2e/etc/passwd", b"", {}),
    ]
    for method, path, data, headers in forged:
        tally.faults["forged or unsigned request"] += 1
        reply = http.request(method, path, data, {"Content-Type": "application/x-www-form-urlencoded", **headers})
        if reply.status == 401:
            tally.refused["401 without a valid signature"] += 1
        else:
            tally.error(f"{method} {path} unsigned/forged: HTTP {reply.status}")


def unusable_files(tally: Tally, index_path: Path, work: Path) -> None:
    """`search`, `stats` and `digest` on damaged, foreign or unwritable database paths: one line, exit 2."""
    from bot import cli

    garbage = work / "garbage.db"
    garbage.write_bytes(b"not an SQLite file " * 100)
    damaged = work / "damaged.db"
    damaged.write_bytes(index_path.read_bytes()[:12_000])
    (work / "a-file").write_text("x")
    (work / "a-folder").mkdir(exist_ok=True)
    state = work / "cli-state.db"
    cases = {
        "index not a database": (garbage, state),
        "index damaged": (damaged, state),
        "index under a file": (work / "a-file" / "p.db", state),
        "index is a folder": (work / "a-folder", state),
        "state not a database": (index_path, garbage),
        "state under a file": (index_path, work / "a-file" / "s.db"),
        "state is a folder": (index_path, work / "a-folder"),
    }
    saved = {k: os.environ.get(k) for k in ("ICML_BOT_DB", "ICML_BOT_STATE", "SLACK_BOT_TOKEN")}
    try:
        os.environ.pop("SLACK_BOT_TOKEN", None)
        for case, (index_file, state_file) in cases.items():
            os.environ.update(ICML_BOT_DB=str(index_file), ICML_BOT_STATE=str(state_file))
            commands = [["digest", "--channel", "C0BENCH0001", "--dry-run"]]
            if case.startswith("index"):
                commands += [["search", "kv", "cache"], ["stats"]]
            for args in commands:
                tally.faults["unusable database file"] += 1
                err = io.StringIO()
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    status = cli.main(args)
                last = err.getvalue().strip().splitlines()[-1:] or [""]
                if status != 2 or not last[0].startswith("icml-bot: error:") or "Traceback" in err.getvalue():
                    tally.error(f"{case}, icml-bot {' '.join(args)}: exit {status}, {last[0]!r}")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def sigterm(tally: Tally, fake: Any, index_path: Path, state_path: Path, now: datetime) -> None:
    """SIGTERM to `icml-bot serve` while Slack holds a digest post; a restart must post nothing more.

    The served bot reads the clock, so the channel's digest is set for the whole minute before `now`: due at once and
    within the grace. Slack holds exactly that channel's post (other subscriptions may get catch-up digests first,
    depending on the time of day) until the bot has been told to stop, so the claim and the post in flight are
    checked at a known moment, not polled for.
    """
    from zoneinfo import ZoneInfo

    from bot.digest.channels import ChannelDigests
    from bot.digest.subscriptions import Settings
    from bot.search.reader import Papers
    from bot.state import State
    from tests.support.robust import serve_http
    from tests.support.slack_harness import SECRET as secret

    slot = (now - timedelta(minutes=1)).replace(second=0, microsecond=0)
    day = slot.date().isoformat()
    state = State(state_path)
    ChannelDigests.of(state, Papers(index_path)).subscriptions.subscribe(
        SIGTERM_CHANNEL, now - timedelta(days=2), Settings(at=slot.time(), tz=ZoneInfo("UTC"), days="mon-sun")
    )
    state.close()
    slack_answers = fake.hold_next("chat.postMessage", channel=SIGTERM_CHANNEL)
    tally.faults["SIGTERM during a digest post"] += 1
    bot, _ = serve_http(fake.api_url, index_path, state_path, secret)
    claimed = stopping = False
    status: int | None = None
    try:
        in_flight = wait_until(lambda: fake.arrived("chat.postMessage", SIGTERM_CHANNEL) > 0, timeout=30)
        # Committed before the post left
        claimed = _run_status(state_path, SIGTERM_CHANNEL, day) == "claimed"
        bot.proc.send_signal(signal.SIGTERM)
        stopping = wait_until(lambda: "SIGTERM: stopping" in bot.log(), timeout=30)
        slack_answers.set()  # Slack answers only once the bot is stopping
        with contextlib.suppress(subprocess.TimeoutExpired):
            status = bot.proc.wait(timeout=60)
    finally:
        slack_answers.set()
        bot.kill()
    log = bot.log()
    finished = f"digest for {SIGTERM_CHANNEL} on {day} posted" in log
    clean = "Traceback" not in log and log.rstrip().endswith("stopped")
    if not (in_flight and claimed and stopping and finished and clean) or status != 0:
        tally.error(
            f"SIGTERM during a digest post: post in flight={in_flight}, claimed={claimed}, stopping={stopping}, "
            f"posted before stopping={finished}, stopped cleanly={clean}, exit {status}"
        )
    again, _ = serve_http(fake.api_url, index_path, state_path, secret)
    try:
        again.wait_for(r'Job "digest lease and catch-up.*executed successfully')
        again.terminate(timeout=30)
    finally:
        again.kill()
    posts = [p for p in fake.posts(SIGTERM_CHANNEL) if p["metadata"]["event_payload"]["date"] == day]
    after = _run_status(state_path, SIGTERM_CHANNEL, day)
    if after != "posted" or len(posts) != 1:
        tally.error(f"after SIGTERM and a restart the {day} digest is {after}, posted {len(posts)} times")


def _run_status(state_path: Path, channel: str, day: str) -> str | None:
    try:
        conn = sqlite3.connect(f"file:{state_path}?mode=ro", uri=True)
        try:
            row = conn.execute(
                "SELECT status FROM digest_runs WHERE channel = ? AND day = ?", [channel, day]
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def timed(tally: Tally, name: str, scenario: Callable[..., None], *args: Any, **kwargs: Any) -> None:
    """Run one scenario and note how long it took."""
    started = time.perf_counter()
    scenario(*args, **kwargs)
    tally.seconds[name] = time.perf_counter() - started


def doubled(fake: Any) -> list[tuple[str, str]]:
    """(channel, date) pairs that got more than one digest."""
    seen = Counter((p["channel"], p["metadata"]["event_payload"]["date"]) for p in fake.posts() if p.get("metadata"))
    return [key for key, n in seen.items() if n > 1]


def faults(tally: Tally, index_path: Path, work: Path, short: bool) -> dict[str, tuple[int, int]]:
    """Every fault scenario on one seeded state database; returns rows lost per table (before, lost)."""
    from tests.support.fake_slack import FakeSlack
    from tests.support.robust import lost, snapshot
    from tests.support.slack_harness import SlackHttp, slack_config

    served_index = work / "served.db"
    shutil.copy(index_path, served_index)
    state_path = work / "state.db"
    with FakeSlack() as fake, captured_log() as log:
        seed_state(fake, served_index, state_path)
        before = snapshot(state_path)
        config = slack_config(fake, served_index, state_path)  # signed with slack_harness.SECRET
        http = SlackHttp(config, client=fake.web_client(timeout=1))
        try:
            timed(tally, "Slack faults", slack_faults, tally, http, fake, log, rounds=1 if short else 3)
            timed(tally, "locked state", locked_state, tally, http, fake, state_path)
            timed(tally, "re-index", reindex, tally, http, served_index, work)
            timed(tally, "signatures", bad_signatures, tally, http)
        finally:
            http.stop()
        timed(tally, "digest faults", digest_faults, tally, fake, served_index, state_path)
        timed(tally, "unusable files", unusable_files, tally, served_index, work)
        timed(tally, "SIGTERM", sigterm, tally, fake, served_index, state_path, datetime.now(UTC))
        after = snapshot(state_path)
        tally.errors.extend(f"digest posted twice: {key}" for key in doubled(fake))
        tracebacks = log.getvalue().count("Traceback")
        if tracebacks:
            tally.error(f"{tracebacks} tracebacks in the log")
    missing = lost(before, after)
    return {name: (len(before[name]), missing[name]) for name in before}


# ---------------------------------------------------------------------- report


def main(argv: list[str] | None = None) -> int:
    """Run everything and print the figures; exit status 1 unless errors and data lost are both zero."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="the CI version: fewer inputs and rounds")
    parser.add_argument("--examples", type=int, help="generated inputs per target (default 1000; 40 with --short)")
    args = parser.parse_args(argv)
    examples = args.examples or (40 if args.short else 1000)

    from bot.papers import index

    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    tally = Tally()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "evil.jsonl").write_text(json.dumps(EVIL) + "\n", encoding="utf-8")
        index_path = work / "papers.db"
        db = index.connect(index_path)
        index.load(db, [ROOT / "seeds", work / "evil.jsonl"], workers=1)
        db.conn.close()
        inputs(tally, index_path, work, examples)
        fuzz_seconds = time.perf_counter() - started
        tables = faults(tally, index_path, work, args.short)
    data_lost = sum(n for _, n in tables.values())
    total = time.perf_counter() - started

    def parts(counter: Counter[str]) -> str:
        return " · ".join(f"{name} {n:,}" for name, n in counter.items())

    print(
        f"icml-bot robustness{' (short)' if args.short else ''}: {total:.0f} s "
        f"(inputs {fuzz_seconds:.0f} s, faults {total - fuzz_seconds:.0f} s: "
        + ", ".join(f"{name} {sec:.1f} s" for name, sec in tally.seconds.items())
        + ")\n"
    )
    print(f"inputs tried      {sum(tally.inputs.values()):>7,}   {parts(tally.inputs)}")
    print(f"faults injected   {sum(tally.faults.values()):>7,}   {parts(tally.faults)}")
    print(f"requests served   {tally.served:>7,}   signed HTTP requests answered during the faults")
    print(f"refused by design {sum(tally.refused.values()):>7,}   {parts(tally.refused)}")
    print(f"errors            {len(tally.errors):>7,}")
    for error in tally.errors[:10]:
        print(f"    {error}")
    print(
        f"data lost         {data_lost:>7,}   "
        + " · ".join(f"{name} {n} of {before}" for name, (before, n) in tables.items())
    )
    ok = not tally.errors and data_lost == 0
    print(f"\n{'OK' if ok else 'FAILED'}: errors and data lost must both be zero")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
