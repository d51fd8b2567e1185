"""`icml-bot search --blocks` and `icml-bot serve`: the payload preview, token errors, and a real server process."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest

from bot import cli
from tests.support.fake_slack import FakeSlack
from tests.support.robust import SLACK_VARS, BotProcess, bot_env, serve_http
from tests.support.slack_harness import SECRET, SlackHttp
from tests.support.slack_requests import form_body, sign, slash_form


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, slack_index_path: Path, tmp_path: Path) -> pytest.MonkeyPatch:
    """An environment with no Slack credentials, the test index and a private state file."""
    for var in SLACK_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ICML_BOT_DB", str(slack_index_path))
    monkeypatch.setenv("ICML_BOT_STATE", str(tmp_path / "state.db"))
    return monkeypatch


def test_blocks_prints_exactly_what_the_slash_command_answers(
    env: pytest.MonkeyPatch, slack_http: SlackHttp, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["search", "kv", "cache", "--blocks"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == slack_http.command("kv cache").json()
    assert printed["response_type"] == "ephemeral"
    assert printed["blocks"][0]["type"] == "section"


@pytest.mark.parametrize(
    ("args", "variables", "named"),
    [
        (["serve"], {}, "SLACK_BOT_TOKEN is not set. Bot token `xoxb-…`: Slack app → OAuth & Permissions"),
        (
            ["serve"],
            {"SLACK_BOT_TOKEN": "xoxp-user-token-secret"},
            "SLACK_BOT_TOKEN is malformed: it must start with xoxb-.",
        ),
        (["serve"], {"SLACK_BOT_TOKEN": "xoxb-good"}, "SLACK_APP_TOKEN is not set (needed for Socket Mode"),
        (
            ["serve"],
            {"SLACK_BOT_TOKEN": "xoxb-good", "SLACK_APP_TOKEN": "xoxb-wrong-kind-secret"},
            "SLACK_APP_TOKEN is malformed: it must start with xapp-.",
        ),
        (
            ["serve", "--http"],
            {"SLACK_BOT_TOKEN": "xoxb-good"},
            "SLACK_SIGNING_SECRET is not set (needed with --http).",
        ),
    ],
)
def test_missing_or_malformed_tokens_are_one_line_and_exit_2(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str], variables: dict[str, str], named: str
) -> None:
    for key, value in variables.items():
        env.setenv(key, value)
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"icml-bot: error: {named}"), err
    assert not [v for v in variables.values() if v in err]
    assert "Traceback" not in err


def test_a_token_slack_rejects_is_one_line_without_the_token(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    env = bot_env(
        fake.api_url,
        slack_index_path,
        tmp_path / "state.db",
        SLACK_BOT_TOKEN="xoxb-revoked-123",
        SLACK_APP_TOKEN="xapp-test",
    )
    bot = BotProcess(["serve"], env)
    try:
        assert bot.proc.wait(timeout=60) == 2
    finally:
        bot.kill()
    err = bot.log()
    assert err.strip().splitlines()[-1] == (
        "icml-bot: error: SLACK_BOT_TOKEN was rejected by Slack (invalid_auth). Bot token `xoxb-…`: Slack app → "
        "OAuth & Permissions → Bot User OAuth Token."
    )
    assert "xoxb-revoked-123" not in err
    assert "Traceback" not in err


def test_serve_http_runs_answers_and_stops_on_sigterm(fake: FakeSlack, slack_index_path: Path, tmp_path: Path) -> None:
    bot, port = serve_http(fake.api_url, slack_index_path, tmp_path / "state.db", SECRET, ICML_BOT_LOG_LEVEL="DEBUG")
    try:
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(f"{base}/healthz", timeout=10) as resp:
            assert json.loads(resp.read()) == {"ok": True, "papers": 20, "index": "ok", "state": "ok"}
        body = form_body(slash_form("kv cache"))
        request = urllib.request.Request(
            f"{base}/slack/events",
            data=body,
            method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)},
        )
        with urllib.request.urlopen(request, timeout=10) as resp:
            assert json.loads(resp.read())["response_type"] == "ephemeral"
        assert bot.terminate(timeout=15) == 0
    finally:
        bot.kill()
    log = bot.log()
    # The debug log shows the calls to Slack
    assert re.search(r" DEBUG \S+: .*/api/auth\.test", log), log
    assert "xoxb-test" not in log
    assert SECRET not in log
    assert log.rstrip().endswith("stopped")
