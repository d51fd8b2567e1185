"""`icml-bot serve --workers N` in Socket Mode: N processes, each with its own connection; an event Slack delivers
again on another connection (so to another process) is answered once, and a stop reaches every process once."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.fake_slack import FakeSlack
from tests.support.processes import children
from tests.support.robust import BotProcess, bot_env
from tests.support.slack_requests import event_body, mention_event, slash_form

CH = "C0SOCKETW1"


def test_two_socket_mode_workers_each_connect_and_a_redelivery_to_the_other_is_answered_once(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    env = bot_env(
        fake.api_url, slack_index_path, tmp_path / "state.db", SLACK_BOT_TOKEN="xoxb-test", SLACK_APP_TOKEN="xapp-test"
    )
    bot = BotProcess(["serve", "--workers", "2"], env)
    try:
        assert fake.socket.wait_open(2, timeout=60), bot.log()
        assert len(children(bot.pid)) == 2
        for to in (0, 1):  # each process answers a command on its own connection
            envelope = fake.socket_send("slash_commands", slash_form("kv cache"), to=to)
            assert fake.socket_ack(envelope, timeout=10)["payload"]["response_type"] == "ephemeral"
        body = event_body(mention_event("speculative decoding", channel=CH, ts="1700000000.000100"))
        first = fake.socket_send("events_api", body, to=0)
        again = fake.socket_send("events_api", body, retry_attempt=1, retry_reason="timeout", to=1)
        assert fake.socket_ack(first, timeout=10) == {"envelope_id": first}
        assert fake.socket_ack(again, timeout=10) == {"envelope_id": again}
        fake.wait_for("chat.postMessage", timeout=20)
        assert bot.terminate(timeout=60) == 0  # each worker finishes its replies before it exits
    finally:
        bot.kill()
    log = bot.log()
    assert len(fake.posts(CH)) == 1
    assert "Traceback" not in log
    assert len(re.findall(r"Socket Mode worker \d started", log)) == 2
    # Two workers, then the supervisor
    assert len(re.findall(r"bot\.serve\.run: stopped", log)) == 3


def test_a_socket_mode_worker_that_cannot_start_stops_them_all_with_its_status(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    env = bot_env(
        fake.api_url,
        slack_index_path,
        tmp_path / "state.db",
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_APP_TOKEN="xapp-revoked-1",  # the fake refuses it when a worker opens its connection
    )
    bot = BotProcess(["serve", "--workers", "2"], env)
    try:
        assert bot.proc.wait(timeout=60) == 2
    finally:
        bot.kill()
    log = bot.log()
    assert "SLACK_APP_TOKEN was rejected by Slack (invalid_auth)" in log
    assert "could not start (exit status 2): stopping" in log
    assert "Traceback" not in log
    assert not children(bot.pid)
