"""`icml-bot search --blocks` and `icml-bot serve`: the payload preview, token errors, and a real server process."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from bot import cli
from tests.support.fake_slack import FakeSlack
from tests.support.paths import ROOT
from tests.support.slack_harness import SECRET, SlackHttp
from tests.support.slack_requests import form_body, sign, slash_form

SLACK_VARS = (
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_API_URL",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
)


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


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def process_env(fake: FakeSlack, index_path: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in SLACK_VARS and not k.lower().endswith("_proxy")}
    return {
        **base,
        "PYTHONPATH": str(ROOT),
        "ICML_BOT_DB": str(index_path),
        "ICML_BOT_STATE": str(tmp_path / "state.db"),
        "SLACK_API_URL": fake.api_url,
        **extra,
    }


def test_a_token_slack_rejects_is_one_line_without_the_token(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    proc = run_cli(
        ["serve"],
        process_env(fake, slack_index_path, tmp_path, SLACK_BOT_TOKEN="xoxb-revoked-123", SLACK_APP_TOKEN="xapp-test"),
    )
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2
    assert err.strip().splitlines()[-1] == (
        "icml-bot: error: SLACK_BOT_TOKEN was rejected by Slack (invalid_auth). Bot token `xoxb-…`: Slack app → "
        "OAuth & Permissions → Bot User OAuth Token."
    )
    assert "xoxb-revoked-123" not in err
    assert "Traceback" not in err


def test_serve_http_runs_answers_and_stops_on_sigterm(fake: FakeSlack, slack_index_path: Path, tmp_path: Path) -> None:
    proc = run_cli(
        ["serve", "--http", "--host", "127.0.0.1", "--port", "0"],
        process_env(
            fake,
            slack_index_path,
            tmp_path,
            SLACK_BOT_TOKEN="xoxb-test",
            SLACK_SIGNING_SECRET=SECRET,
            ICML_BOT_LOG_LEVEL="DEBUG",
        ),
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(
        target=lambda: [lines.put(line) for line in proc.stderr],  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 60
        port = None
        while port is None:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.1))
            seen.append(line)
            match = re.search(r"serving HTTP on http://127\.0\.0\.1:(\d+)/slack/events", line)
            port = int(match.group(1)) if match else None
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
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    while not lines.empty():
        seen.append(lines.get())
    log = "".join(seen)
    assert re.search(r" DEBUG \S+: .*/api/auth\.test", log), log  # the debug log shows the calls to Slack
    assert "xoxb-test" not in log
    assert SECRET not in log
    assert "stopped" in log
