"""`icml-bot digest` and the digest in `icml-bot serve`: dry runs, posting once, bad settings, one scheduler."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot import cli
from bot.state import State
from bot.state.digests import SubscriptionRow
from tests.support.fake_slack import FakeSlack
from tests.support.robust import SLACK_VARS, BotProcess, bot_env
from tests.support.slack_harness import SECRET

CH = "C0CLI00001"


def subscribe(tmp_path: Path, subscriptions: list[tuple[str, str]], size: int) -> None:
    """Write CH's digest subscriptions, (workspace, topics) each, into the state file as `/icml digest` does."""
    state = State(tmp_path / "state.db")
    at = datetime(2026, 3, 1, tzinfo=UTC).timestamp()
    for team, topics in subscriptions:
        state.digests.save_subscription(
            SubscriptionRow(
                channel=CH, team=team, topics=topics, at="09:00", tz="UTC", days="mon-fri", size=size,
                source="slack", created_at=at, updated_at=at, schedule_from=at, enterprise="", active=True,
                created_by="U1", last_error=None, last_error_at=None,
            )
        )  # fmt: skip
    state.close()


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, slack_index_path: Path, tmp_path: Path) -> pytest.MonkeyPatch:
    for var in (*SLACK_VARS, "ICML_DIGEST_CHANNEL", "ICML_DIGEST_TZ", "ICML_DIGEST_TIME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ICML_BOT_DB", str(slack_index_path))
    monkeypatch.setenv("ICML_BOT_STATE", str(tmp_path / "state.db"))
    return monkeypatch


def test_dry_run_prints_the_digest_and_posts_nothing(
    env: pytest.MonkeyPatch, fake: FakeSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    env.setenv("SLACK_API_URL", fake.api_url)
    env.setenv("ICML_DIGEST_TZ", "Asia/Seoul")
    assert cli.main(["digest", "--channel", CH, "--date", "2026-03-09", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Digest for {CH} on 2026-03-09 (dry run: nothing posted)\n\nICML 2026 digest · Mon 9 Mar")
    assert "Papers 1-3 of 20" in out
    assert cli.main(["digest", "--channel", CH, "--date", "2026-03-09", "--dry-run", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["channel"] == CH
    assert payload["metadata"]["event_payload"]["date"] == "2026-03-09"
    assert payload["blocks"][0]["block_id"] == f"icml_digest:{CH}:2026-03-09"
    assert fake.calls() == []


def test_a_dry_run_prints_the_digest_as_terminal_text_with_no_slack_markup(
    env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Papers numbered in their round as `icml-bot search` lists them, links as URLs, the topic words in ANSI bold on a
    terminal (it once printed the Slack message: `_headline_`, `` `id` ``, `code (url)`, `[Similar]` buttons);
    --json still prints the Slack payload."""
    subscribe(tmp_path, [("T1", "kv cache")], size=2)
    assert cli.main(["digest", "--channel", CH, "--date", "2026-03-09", "--dry-run"]) == 0
    out = capsys.readouterr().out
    defensive = (
        "1. [txyyds] DefensiveKV: A formal study on identifying critical KV cache entries by analyzing…\n"
        "   This paper presents a formal study on identifying critical KV cache entries by analyzing attention output "
        "perturbation.\n   Large language models have revolutionized natural language processing but face "
    )
    assert out.startswith(
        f"Digest for {CH} on 2026-03-09 (dry run: nothing posted)\n\n"
        "ICML 2026 digest · Mon 9 Mar 2026\n=================================\n"
        "Papers on kv cache first, then the rest of ICML 2026.\n\n" + defensive
    )
    assert "…\n   https://github.com/FFY0/DefensiveKV\n\n2. [yg1gm3] Vegas: A self-speculative decoding method" in out
    assert out.endswith("…\n   https://github.com/platformxlab/vegas\n\nPapers 1-2 of 20 · next digest Tue 09:00 UTC\n")
    for slack_markup in ("*", "`", "_We propose", "<https://github.com", "code (", "[Similar]", ":tada:"):
        assert slack_markup not in out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert cli.main(["digest", "--channel", CH, "--date", "2026-03-09", "--dry-run"]) == 0
    assert "Papers on \x1b[1mkv cache\x1b[0m first, then the rest of ICML 2026.\n" in capsys.readouterr().out
    assert cli.main(["digest", "--channel", CH, "--date", "2026-03-09", "--dry-run", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["blocks"][1]["elements"][0]["text"] == "Papers on *kv cache* first, then the rest of ICML 2026."


def test_posting_from_the_shell_is_once_per_channel_and_date(
    env: pytest.MonkeyPatch, fake: FakeSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    env.setenv("SLACK_API_URL", fake.api_url)
    env.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    env.setenv("ICML_DIGEST_CHANNEL", CH)
    assert cli.main(["digest", "--date", "2026-03-09"]) == 0
    assert capsys.readouterr().out.startswith(f"digest for {CH} on 2026-03-09 posted (ts ")
    assert cli.main(["digest", "--date", "2026-03-09"]) == 0
    assert capsys.readouterr().out.startswith(f"digest for {CH} on 2026-03-09 already posted")
    assert len(fake.posts(CH)) == 1
    fake.fail_next("chat.postMessage", "channel_not_found")
    assert cli.main(["digest", "--channel", "C0GONE0001", "--date", "2026-03-09"]) == 1
    assert "not posted: channel_not_found" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "variables", "message"),
    [
        (["digest"], {}, "no channel: pass --channel C0123456789 or set ICML_DIGEST_CHANNEL"),
        (["digest", "--channel", "#papers"], {}, "--channel='#papers' is not a channel id"),
        (["digest", "--channel", CH], {}, "SLACK_BOT_TOKEN is not set: it is needed to post the digest"),
        (["digest", "--dry-run"], {"ICML_DIGEST_CHANNEL": "general"}, "ICML_DIGEST_CHANNEL='general' is not a channel"),
        (
            ["digest", "--dry-run"],
            {"ICML_DIGEST_TZ": "Asia/Seol"},
            "ICML_DIGEST_TZ='Asia/Seol' is not an IANA time zone",
        ),
        (
            ["serve", "--http"],
            {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": "s", "ICML_DIGEST_CHANNEL": "#general"},
            "ICML_DIGEST_CHANNEL='#general' is not a channel id",
        ),
    ],
)
def test_bad_digest_settings_are_one_line_and_exit_2(
    env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    variables: dict[str, str],
    message: str,
) -> None:
    for key, value in variables.items():
        env.setenv(key, value)
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"icml-bot: error: {message}"), err
    assert err.count("\n") == 1, err


def test_a_second_serve_on_the_same_state_database_does_not_schedule(
    fake: FakeSlack, slack_index_path: Path, tmp_path: Path
) -> None:
    env = bot_env(
        fake.api_url,
        slack_index_path,
        tmp_path / "state.db",
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_SIGNING_SECRET=SECRET,
        ICML_DIGEST_CHANNEL=CH,
        ICML_DIGEST_TZ="Asia/Seoul",
    )
    bots: list[BotProcess] = []
    try:
        for _ in range(2):
            bots.append(BotProcess(["serve", "--http", "--host", "127.0.0.1", "--port", "0"], env))
            bots[-1].wait_for(r"serving HTTP on")
        first, second = (bot.log() for bot in bots)
        assert re.search(r"this process \(\S+\) schedules the daily digests for .*state\.db \(1 channels\)", first)
        assert "digest for C0CLI00001 scheduled mon-fri at 09:00 Asia/Seoul" in first
        assert re.search(
            r"another icml-bot process \(\S+\) schedules the daily digests for .*: this one answers "
            r"commands but posts no scheduled digests",
            second,
        )
        assert "scheduled mon-fri" not in second
        assert [bot.terminate(timeout=15) for bot in bots] == [0, 0]
    finally:
        for bot in bots:
            bot.kill()


def test_a_shared_channel_digest_is_chosen_by_team_from_the_shell(
    env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One Slack Connect channel, two workspaces
    subscribe(tmp_path, [("T2", "kv cache"), ("T3", "grokking")], size=3)
    assert cli.main(["digest", "--channel", CH, "--date", "2026-03-09", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "is shared: workspaces T2, T3 each have a digest there; pass --team with one of them" in err
    assert cli.main(["digest", "--channel", CH, "--team", "T3", "--date", "2026-03-09", "--dry-run"]) == 0
    assert "grokking" in capsys.readouterr().out.lower()
