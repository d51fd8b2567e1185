"""SIGTERM while a digest is being posted: a real `icml-bot` process, a slow Slack, a clean stop, and after a restart
exactly one digest for that date."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.digest.channels import ChannelDigests
from bot.state import State
from tests.support.fake_slack import FakeSlack
from tests.support.robust import BotProcess, bot_env, serve_http, snapshot
from tests.support.slack_harness import SECRET

CH = "C0SIGTERM01"


def wait_for_row(state_path: Path, status: str, timeout: float = 30) -> dict[str, str]:
    """The first digest run row with `status` (polling the state database like an operator would)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = sqlite3.connect(f"file:{state_path}?mode=ro", uri=True)
            conn.row_factory = sqlite3.Row
            row = conn.execute("SELECT * FROM digest_runs WHERE channel = ? AND status = ?", [CH, status]).fetchone()
            conn.close()
            if row:
                return dict(row)
        except sqlite3.Error:
            pass
        time.sleep(0.02)
    raise AssertionError(f"no {status} digest run within {timeout}s")


def runs(state_path: Path) -> list[tuple[str, str, str | None]]:
    conn = sqlite3.connect(state_path)
    try:
        return list(conn.execute("SELECT day, status, ts FROM digest_runs WHERE channel = ? ORDER BY day", [CH]))
    finally:
        conn.close()


def due_now(state_path: Path, index_path: Path) -> str:
    """A channel subscribed two days ago whose digest time was a minute ago (so serve posts it at once)."""
    now = datetime.now(UTC)
    at = (now - timedelta(minutes=1)).time().replace(second=0, microsecond=0)
    state = State(state_path)
    ChannelDigests(state, index_path).subscribe(CH, now - timedelta(days=2), at=at, days="mon-sun")
    state.close()
    return (now - timedelta(minutes=1)).date().isoformat()


def test_sigterm_during_a_digest_post_stops_cleanly_and_a_restart_posts_nothing_more(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    state_path = tmp_path / "state.db"
    day = due_now(state_path, slack_index_path)
    before = snapshot(state_path)
    fake.delay_next("chat.postMessage", 2.0)
    bot, _ = serve_http(fake.api_url, slack_index_path, state_path, SECRET)
    try:
        wait_for_row(state_path, "claimed")
        time.sleep(0.3)  # the post is on its way to (slow) Slack
        started = time.monotonic()
        assert bot.terminate(timeout=30) == 0
        assert time.monotonic() - started < 10
    finally:
        bot.kill()
    log = bot.log()
    assert "Traceback" not in log
    assert "SIGTERM: stopping" in log
    assert log.rstrip().endswith("bot.slack.server: stopped")
    assert log.index(f"digest for {CH} on {day} posted") < log.index("stopped")  # finished, then stopped
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
    assert all(not (rows - after[name]) for name, rows in before.items())


def test_sigterm_during_icml_bot_digest_marks_it_uncertain_and_the_rerun_finds_it(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    state_path = tmp_path / "state.db"
    env = bot_env(fake.api_url, slack_index_path, state_path, SLACK_BOT_TOKEN="xoxb-test")
    args = ["digest", "--channel", CH, "--date", "2026-03-09"]
    fake.delay_next("chat.postMessage", 1.5)
    first = BotProcess(args, env)
    try:
        wait_for_row(state_path, "claimed")
        time.sleep(0.3)
        assert first.terminate(timeout=30) == 143
    finally:
        first.kill()
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
    out = second.proc.stdout.read()  # type: ignore[union-attr]
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
    deadline = time.monotonic() + 5
    while fake._socket.connections and time.monotonic() < deadline:  # the fake notices the close
        time.sleep(0.05)
    assert not fake._socket.connections
    conn = sqlite3.connect(state_path)
    assert conn.execute("SELECT count(*) FROM leases").fetchone()[0] == 0
    conn.close()
