"""SIGTERM while a digest is being posted: a real `icml-bot` process, a slow Slack, a clean stop, and after a restart
exactly one digest for that date."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

from tests.support.digest import due_now
from tests.support.fake_slack import FakeSlack
from tests.support.robust import BotProcess, bot_env, lost, serve_http, snapshot
from tests.support.slack_harness import SECRET

CH = "C0SIGTERM01"


def runs(state_path: Path) -> list[tuple[str, str, str | None]]:
    conn = sqlite3.connect(state_path)
    try:
        return list(conn.execute("SELECT day, status, ts FROM digest_runs WHERE channel = ? ORDER BY day", [CH]))
    finally:
        conn.close()


def test_sigterm_during_a_digest_post_stops_cleanly_and_a_restart_posts_nothing_more(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    state_path = tmp_path / "state.db"
    day = due_now(state_path, slack_index_path, CH)
    before = snapshot(state_path)
    # A slow Slack: the post stays in flight until this is set
    slack_answers = fake.hold_next("chat.postMessage")
    bot, _ = serve_http(fake.api_url, slack_index_path, state_path, SECRET)
    try:
        fake.wait_arrived("chat.postMessage", timeout=30)  # the digest is being posted...
        bot.proc.send_signal(signal.SIGTERM)
        bot.wait_for("SIGTERM: stopping")  # ...when the bot is told to stop...
        slack_answers.set()  # ...and Slack answers only after that
        assert bot.proc.wait(timeout=60) == 0
    finally:
        bot.kill()
    log = bot.log()
    assert "Traceback" not in log
    assert "SIGTERM: stopping" in log
    assert log.rstrip().endswith("bot.serve.run: stopped")
    # Finished, then stopped
    assert log.index(f"digest for {CH} on {day} posted") < log.index("stopped")
    assert [(d, s) for d, s, _ in runs(state_path)][-1] == (day, "posted")
    conn = sqlite3.connect(state_path)
    assert conn.execute("SELECT count(*) FROM leases").fetchone()[0] == 0  # handed back at once
    conn.close()

    again, _ = serve_http(fake.api_url, slack_index_path, state_path, SECRET)
    try:
        again.wait_for(r'Job "digest lease and catch-up.*executed successfully')
        assert again.terminate(timeout=30) == 0
    finally:
        again.kill()
    assert "Traceback" not in again.log()
    assert len([p for p in fake.posts(CH) if p["metadata"]["event_payload"]["date"] == day]) == 1
    after = snapshot(state_path)
    assert lost(before, after) == {"subscriptions": 0, "digests": 0, "papers shown": 0}


def test_sigterm_during_icml_bot_digest_marks_it_uncertain_and_the_rerun_finds_it(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    state_path = tmp_path / "state.db"
    env = bot_env(fake.api_url, slack_index_path, state_path, SLACK_BOT_TOKEN="xoxb-test")
    args = ["digest", "--channel", CH, "--date", "2026-03-09"]
    slack_answers = fake.hold_next("chat.postMessage")
    first = BotProcess(args, env)
    try:
        fake.wait_arrived("chat.postMessage", timeout=30)  # SIGTERM while the post is in flight
        assert first.terminate(timeout=30) == 143
    finally:
        first.kill()
    slack_answers.set()  # Slack did take the message: it answers a client that is gone...
    fake.wait_for("chat.postMessage")  # ...and the message is in the channel's history
    err = first.log()
    assert "Traceback" not in err
    assert err.rstrip().endswith("icml-bot: stopped by SIGTERM")
    assert "may or may not have been posted: interrupted while posting" in err
    assert runs(state_path) == [("2026-03-09", "uncertain", None)]
    second = BotProcess(args, env)
    try:
        assert second.proc.wait(timeout=60) == 0
    finally:
        second.kill()
    assert second.proc.stdout is not None  # started with stdout=PIPE
    out = second.proc.stdout.read()
    assert "posted" in out, (out, second.log())
    assert "found in the channel history" in out, (out, second.log())
    assert len(fake.posts(CH)) == 1
    assert runs(state_path)[0][1] == "posted"


def test_sigterm_closes_socket_mode_and_hands_back_the_lease(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    state_path = tmp_path / "state.db"
    bot = BotProcess(
        ["serve"],
        bot_env(fake.api_url, slack_index_path, state_path, SLACK_BOT_TOKEN="xoxb-test", SLACK_APP_TOKEN="xapp-test"),
    )
    try:
        bot.wait_for("connected to Slack over Socket Mode")
        assert fake.socket_connected(timeout=10)
        assert bot.terminate(timeout=30) == 0
    finally:
        bot.kill()
    log = bot.log()
    assert "SIGTERM: stopping (closing Socket Mode" in log
    assert log.rstrip().endswith("stopped")
    assert "Traceback" not in log
    assert fake.socket_closed(timeout=5)  # the bot closed its connection (Slack saw it go)
    conn = sqlite3.connect(state_path)
    assert conn.execute("SELECT count(*) FROM leases").fetchone()[0] == 0
    conn.close()
