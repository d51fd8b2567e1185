"""Faults: Slack answering 429, 500, late or `invalid_auth`; the state database locked by another writer; the index
rebuilt under a serving bot; unusable database files. Every request still gets an answer, nothing is lost."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.papers import index
from bot.slack import blocks
from bot.slack.errors import APOLOGY, SLOW_DOWN
from bot.slack.events import DEDUPE_WAIT_SECONDS
from tests.support.digest import make_digests
from tests.support.fake_slack import FakeSlack
from tests.support.robust import BotProcess, bot_env, message_problems
from tests.support.seed_ids import VEGAS
from tests.support.slack_harness import ACK_DEADLINE, SECRET, Reply, SlackHttp, slack_config, texts, timed
from tests.support.slack_requests import block_action_payload, mention_event

CH = "C0FAULT0001"


@pytest.fixture
def short_timeout_http(fake: FakeSlack, slack_index_path: Path, tmp_path: Path) -> Iterator[SlackHttp]:
    """The app in HTTP mode with a Web API client that gives up after 1 s (so a timeout takes 1 s to test)."""
    served = SlackHttp(slack_config(fake, slack_index_path, tmp_path / "state.db"), client=fake.web_client(timeout=1))
    yield served
    served.stop()


# ---------------------------------------------------------------------- the Slack Web API misbehaves


@pytest.mark.ack_deadline
@pytest.mark.parametrize("fault", ["ratelimited", "server_error", "timeout", "invalid_auth"])
def test_mention_replies_survive_web_api_faults(
    short_timeout_http: SlackHttp, fake: FakeSlack, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    if fault == "ratelimited":
        fake.fail_next("chat.postMessage", "ratelimited", retry_after=30)
    elif fault == "server_error":
        fake.fail_next("chat.postMessage", "internal_error", status=500)
    elif fault == "timeout":
        fake.delay_next("chat.postMessage", 1.5)
    else:  # the token was revoked while the bot runs: every call is refused
        fake.fail_next("*", "invalid_auth", times=10)
    with caplog.at_level(logging.INFO):
        reply, took = timed(short_timeout_http.event, mention_event("kv cache", user="U5", ts="1700000000.000100"))
        assert reply.status == 200
        assert took < ACK_DEADLINE  # acked before the reply is even tried
        # No listener waits out Slack's 30 s: the user is told to ask again
        if fault == "ratelimited":
            (told,) = fake.wait_for("chat.postEphemeral", timeout=ACK_DEADLINE)
            assert told.params["text"] == SLOW_DOWN
            short_timeout_http.drain()
            assert [c.ok for c in fake.calls("chat.postMessage")] == [False]
        elif fault == "server_error":
            fake.wait_for("chat.postMessage", count=2)
            short_timeout_http.drain()
            # Retried once, posted once
            assert [c.ok for c in fake.calls("chat.postMessage")] == [False, True]
        elif fault == "timeout":
            (apology,) = fake.wait_for("chat.postEphemeral", timeout=10)
            assert apology.params["text"] == APOLOGY
            # Slack took it late
            fake.wait_for(lambda c: c.method == "chat.postMessage" and c.ok, timeout=10)
            assert "chat.postMessage failed: TimeoutError" in caplog.text
        else:
            fake.wait_for("chat.postMessage", ok=False)
            short_timeout_http.drain()  # the error handler has run
            assert "chat.postMessage failed: invalid_auth" in caplog.text
            assert "Slack refuses the bot token (invalid_auth)" in caplog.text
            # No apology that would be refused the same way
            assert fake.calls("chat.postEphemeral") == []
    assert "Traceback" not in caplog.text


def test_a_response_url_that_fails_once_with_500_is_retried(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.fail_response("share", status=500, body="oops")
    reply = slack_http.action(block_action_payload(blocks.ACTION_SHARE, VEGAS, response_url=fake.response_url("share")))
    assert reply.status == 200
    fake.wait_for(lambda c: c.method == "response" and c.ok)
    slack_http.drain()
    assert [c.status for c in fake.calls("response")] == [500, 200]  # retried once, delivered once


@pytest.mark.ack_deadline
def test_a_button_whose_answer_fails_fast_is_still_acknowledged_at_once(slack_http: SlackHttp, fake: FakeSlack) -> None:
    # Bolt resets an ack when the listener raises right after it; within its 10 ms polling window the request then
    # waited 3 s and answered 404 (6 of 10 clicks here before deliver.acks_first).
    for n in range(10):
        fake.fail_response(f"gone{n}", status=404, body="expired_url")
        reply, took = timed(
            slack_http.action,
            block_action_payload(
                blocks.ACTION_SHARE, VEGAS, user_id=f"U0CLICK{n}", response_url=fake.response_url(f"gone{n}")
            ),
        )
        # not Bolt's 3 s wait
        assert (reply.status, took < ACK_DEADLINE) == (200, True), (n, reply.status, took)
    apologies = fake.wait_for("chat.postEphemeral", count=10)
    assert {c.params["user"] for c in apologies} == {f"U0CLICK{n}" for n in range(10)}


def test_a_digest_refused_with_invalid_auth_is_recorded_and_shown(
    fake: FakeSlack, seed_index_path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    digests = make_digests(fake, seed_index_path, tmp_path / "state.db")
    now = datetime(2026, 3, 9, 9, 0, tzinfo=UTC)
    digests.subscriptions.subscribe(CH, now)
    fake.fail_next("chat.postMessage", "invalid_auth")
    with caplog.at_level(logging.ERROR):
        outcome = digests.post_digest(CH, date(2026, 3, 9), now)
    assert (outcome.status, outcome.error) == ("failed", "invalid_auth")
    assert "not posted: invalid_auth" in caplog.text
    error = digests.builder.status(CH, now).error
    assert error is not None
    assert error[0] == "invalid_auth"
    # Permanent: not retried by itself
    assert digests.post_digest(CH, date(2026, 3, 9), now).status == "failed"
    assert fake.posts() == []


# ---------------------------------------------------------------------- the state database is locked


class Locker:
    """Another connection holding the state database's write lock (BEGIN IMMEDIATE) for `seconds`."""

    def __init__(self, path: Path, seconds: float) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("BEGIN IMMEDIATE")
        self.released = threading.Event()
        self.timer = threading.Timer(seconds, self.release)
        self.timer.start()

    def release(self) -> None:
        """Commit, so that writers waiting for the lock get it."""
        if self.conn.in_transaction:
            self.conn.execute("COMMIT")
        self.released.set()


@pytest.mark.ack_deadline
def test_a_locked_state_database_delays_or_refuses_cleanly_and_loses_nothing(
    slack_http: SlackHttp, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    state_path = slack_http.config.state_path
    assert slack_http.command("digest subscribe kv cache", channel_id=CH).status == 200
    locker = Locker(state_path, DEDUPE_WAIT_SECONDS + 1.0)
    results: dict[str, tuple[Reply, float]] = {}

    def run(name: str, call: Callable[..., Reply], *args: Any, **kwargs: Any) -> None:
        results[name] = timed(call, *args, **kwargs)

    with caplog.at_level(logging.WARNING):
        threads = [
            threading.Thread(target=run, args=args)
            for args in (
                ("search", slack_http.command, "kv cache"),
                ("status", partial(slack_http.command, channel_id=CH), "digest status"),
                ("subscribe", partial(slack_http.command, channel_id=CH), "digest subscribe speculative decoding"),
                (
                    "mention",
                    slack_http.event,
                    mention_event("speculative decoding", ts="1700000000.000100"),
                    "EvLocked",
                ),
            )
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=20)
    search, took = results["search"]
    assert search.status == 200
    assert took < ACK_DEADLINE  # reads never wait for a writer
    assert "DefensiveKV" in texts(search.json())
    status, took = results["status"]
    assert status.status == 200
    assert took < ACK_DEADLINE
    subscribe, took = results["subscribe"]
    assert subscribe.status == 200
    assert took < ACK_DEADLINE  # gives up on the lock in time to say so
    assert "database is busy right now" in texts(subscribe.json())
    assert "nothing was changed" in texts(subscribe.json())
    mention, took = results["mention"]
    # Refused in time, so that Slack sends it again
    assert (mention.status, took < ACK_DEADLINE) == (503, True)
    assert fake.posts() == []
    assert "is locked by another writer" in caplog.text
    assert "Traceback" not in caplog.text
    locker.timer.join()
    # Slack redelivers the event: now it is answered, once.
    assert (
        slack_http.event(mention_event("speculative decoding", ts="1700000000.000100"), "EvLocked", retry_num=1).status
        == 200
    )
    fake.wait_for(lambda c: c.method == "chat.postMessage" and c.ok)
    assert (
        slack_http.event(mention_event("speculative decoding", ts="1700000000.000100"), "EvLocked", retry_num=2).status
        == 200
    )
    assert slack_http.command("digest subscribe speculative decoding", channel_id=CH).status == 200
    sub = slack_http.state.digests.subscription(CH, "T1")
    assert sub is not None
    assert sub.topics == "speculative decoding"
    slack_http.drain()
    assert len(fake.posts()) == 1


@pytest.mark.ack_deadline
def test_a_short_lock_only_delays_and_a_digest_claim_waits_for_it(
    fake: FakeSlack, seed_index_path: Path, tmp_path: Path, slack_http: SlackHttp
) -> None:
    digests = make_digests(fake, seed_index_path, tmp_path / "digest-state.db")
    now = datetime(2026, 3, 9, 9, 0, tzinfo=UTC)
    digests.subscriptions.subscribe(CH, now)
    locker = Locker(tmp_path / "digest-state.db", 1.0)
    assert digests.post_digest(CH, date(2026, 3, 9), now).status == "posted"
    assert locker.released.is_set()  # it waited for the lock instead of failing
    locker = Locker(slack_http.config.state_path, 1.0)
    reply, took = timed(slack_http.event, mention_event("kv cache", ts="1700000000.000200"), "EvShortLock")
    assert reply.status == 200
    assert locker.released.is_set()  # the redelivery check waited for the lock...
    assert took < ACK_DEADLINE  # ...and still acked in time
    fake.wait_for(lambda c: c.method == "chat.postMessage" and c.ok and c.params.get("channel") == "C1")
    assert len(fake.posts(CH)) == 1


# ---------------------------------------------------------------------- re-indexing under a serving bot


def test_reindexing_while_serving_fails_no_query_and_shows_no_half_index(
    fake: FakeSlack, seed_index_path: Path, tmp_path: Path
) -> None:
    served_index = tmp_path / "papers.db"
    shutil.copy(seed_index_path, served_index)
    source = tmp_path / "more.jsonl"
    with source.open("w", encoding="utf-8") as fh:
        for n in range(400):
            fh.write(
                json.dumps(
                    {
                        "id": f"quokka{n}",
                        "title": f"Quokka networks {n} for marsupial vision",
                        "abstract": f"We study quokka networks, variant {n}, and their marsupial vision "
                        "benchmarks in depth. " * 3,
                    }
                )
                + "\n"
            )
    served = SlackHttp(slack_config(fake, served_index, tmp_path / "state.db"))
    queries = ("kv cache", "quokka marsupial", "vegas")
    stop, loading = threading.Event(), threading.Event()
    seen: list[tuple[str, str]] = []  # (query or "healthz", what the user read or the paper count)
    during: list[str] = []  # queries asked and answered while the load ran
    failures: list[str] = []
    rounds = [0] * len(queries)
    progress = threading.Condition()

    def fire(n: int, query: str) -> None:
        while not stop.is_set():
            started_loading = loading.is_set()
            reply = served.command(query)
            if reply.status != 200 or message_problems(reply.json()):
                failures.append(f"{query}: HTTP {reply.status} {message_problems(reply.json())[:1]}")
            else:
                seen.append((query, texts(reply.json())))
            seen.append(("healthz", str(served.request("GET", "/healthz").json()["papers"])))
            if started_loading and loading.is_set():
                during.append(query)
            with progress:
                rounds[n] += 1
                progress.notify_all()

    def each_client_answered(times: int) -> None:
        target = [r + times for r in rounds]
        with progress:
            assert progress.wait_for(lambda: all(r >= t for r, t in zip(rounds, target, strict=True)), timeout=30)

    threads = [threading.Thread(target=fire, args=(n, q)) for n, q in enumerate(queries)]
    try:
        for thread in threads:
            thread.start()
        each_client_answered(1)  # every client has read the old index
        loading.set()
        writer = index.connect(served_index)
        report = index.load(writer, [source], workers=1)  # what `icml-bot index more.jsonl` does
        writer.conn.close()
        loading.clear()
        # Every client has asked at least once after the load, from start to answer
        each_client_answered(2)
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
        after = served.command("quokka marsupial").json()
    finally:
        stop.set()
        served.stop()
    assert report.added == 400
    assert failures == []
    assert during  # queries really ran during the load
    # The old index or the new one, never half
    assert {n for q, n in seen if q == "healthz"} == {"19", "419"}
    quokka = {("No papers match" in text, " of 400 for " in text) for q, text in seen if q == "quokka marsupial"}
    assert quokka == {(True, False), (False, True)}  # none of the new papers, or all of them
    assert after["blocks"][-1]["text"]["text"].startswith("1-5 of 400 for ")


# ---------------------------------------------------------------------- unusable database files


def _bad_paths(tmp_path: Path, seed_index_path: Path) -> dict[str, tuple[Path, Path]]:
    """(index, state) pairs where one of the two cannot be used."""
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not an SQLite database, just text that happens to be here " * 20)
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(seed_index_path.read_bytes()[:12_000])
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    folder = tmp_path / "a-folder"
    folder.mkdir()
    good_index, good_state = seed_index_path, tmp_path / "state.db"
    return {
        "index is not a database": (garbage, good_state),
        "index is damaged": (damaged, good_state),
        "index under a file": (a_file / "papers.db", good_state),
        "index is a folder": (folder, good_state),
        "state is not a database": (good_index, garbage),
        "state under a file": (good_index, a_file / "state.db"),
        "state is a folder": (good_index, folder),
    }


@pytest.mark.parametrize(
    "case",
    [
        "index is not a database",
        "index is damaged",
        "index under a file",
        "index is a folder",
        "state is not a database",
        "state under a file",
        "state is a folder",
    ],
)
def test_unusable_databases_are_one_line_and_exit_2(
    case: str,
    tmp_path: Path,
    seed_index_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    index_path, state_path = _bad_paths(tmp_path, seed_index_path)[case]
    monkeypatch.setenv("ICML_BOT_DB", str(index_path))
    monkeypatch.setenv("ICML_BOT_STATE", str(state_path))
    for var in ("SLACK_BOT_TOKEN", "ICML_DIGEST_CHANNEL"):
        monkeypatch.delenv(var, raising=False)
    commands = [["digest", "--channel", CH, "--dry-run"]]
    if case.startswith("index"):
        commands += [["search", "kv", "cache"], ["stats"]]
    for args in commands:
        assert cli.main(args) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("icml-bot: error: "), err
        assert "Traceback" not in "\n".join(err), err
        named = state_path if case.startswith("state") else index_path
        assert str(named) in err[-1], err


@pytest.mark.parametrize("case", ["index is damaged", "state is not a database"])
def test_serve_with_an_unusable_database_is_one_line_and_exit_2(
    case: str, fake: FakeSlack, tmp_path: Path, seed_index_path: Path
) -> None:
    index_path, state_path = _bad_paths(tmp_path, seed_index_path)[case]
    bot = BotProcess(
        ["serve", "--http", "--host", "127.0.0.1", "--port", "0"],
        bot_env(fake.api_url, index_path, state_path, SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SECRET),
    )
    try:
        assert bot.proc.wait(timeout=60) == 2
    finally:
        bot.kill()
    lines = bot.log().strip().splitlines()
    assert lines[-1].startswith("icml-bot: error: "), lines
    assert "Traceback" not in bot.log(), lines
    assert str(state_path if case.startswith("state") else index_path) in lines[-1]


def test_healthz_reports_an_index_that_broke_under_the_running_bot(
    fake: FakeSlack, seed_index_path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    served_index = tmp_path / "papers.db"
    shutil.copy(seed_index_path, served_index)
    served = SlackHttp(slack_config(fake, served_index, tmp_path / "state.db"))
    try:
        served_index.write_bytes(b"overwritten by a careless copy " * 100)
        with caplog.at_level(logging.ERROR, logger="bot.serve.gate"):
            health = served.request("GET", "/healthz")
        # Anyone may ask: only ok or failing per part; what failed is for the log.
        assert (health.status, health.json()) == (503, {"ok": False, "index": "failing", "state": "ok"})
        assert "DatabaseError: file is not a database" in caplog.text
        reply = served.command("kv cache")
        assert reply.status == 200
        assert reply.json()["text"] == APOLOGY
    finally:
        served.stop()
