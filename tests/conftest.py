"""Shared fixtures: indexes built by the production code from the real seed file and, when present, ../shared."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bot.papers import index
from tests.support.paths import ICML2026, SEEDS

# Hypothesis profiles: "ci" (the default) keeps each property test to a few seconds; "long" tries thousands more
# inputs. Pick one with `pytest --hypothesis-profile=long` or ICML_HYPOTHESIS_PROFILE=long.
settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile("long", parent=settings.get_profile("ci"), max_examples=5000)
settings.load_profile(os.environ.get("ICML_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def seed_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the 19 bundled abstracts, built once per test run."""
    path = tmp_path_factory.mktemp("seed-index") / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS])
    db.conn.close()
    return path


@pytest.fixture
def seed_db(seed_index_path: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A private, writable copy of the seed index."""
    path = tmp_path / "papers.db"
    shutil.copy(seed_index_path, path)
    db = index.connect(path)
    yield db
    db.conn.close()


@pytest.fixture(scope="session")
def full_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds merged with the real ICML 2026 list (5,863 papers); skipped when ../shared is absent."""
    if not ICML2026.exists():
        pytest.skip("../shared/data/icml2026.jsonl is not available")
    path = tmp_path_factory.mktemp("full-index") / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS])
    index.load(db, [ICML2026])
    db.conn.close()
    return path


# ---------------------------------------------------------------------- Slack (tests/test_slack_*.py)

# A paper whose every field tries to ping a channel or inject a link; loaded next to the seeds for the Slack tests.
EVIL_PAPER = {
    "id": "evil0001",
    "title": "<!channel> Attention & Friends <@U999>",
    "abstract": "We study <!here> pings in abstracts: a <https://evil.example|click me> link, an ampersand & and "
    "<@U123> mentions should all stay plain text. Zebrafish transformers outperform baselines on "
    "xylophone benchmarks. " * 3,
    "authors": ["Ada <!everyone> Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"],
    "url": "javascript:alert(1)",
    "code_url": "https://github.com/example/zebra>|x",
    "status": "Oral",
    "session": "Poster Session 9 <!here>",
}


@pytest.fixture(scope="session")
def slack_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds plus EVIL_PAPER, built once per run; the app opens it read-only."""
    import json

    folder = tmp_path_factory.mktemp("slack-index")
    evil = folder / "evil.jsonl"
    evil.write_text(json.dumps(EVIL_PAPER) + "\n", encoding="utf-8")
    path = folder / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS, evil])
    db.conn.close()
    return path


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A started fake Slack (tests/support/fake_slack.py); real credentials and proxies are kept out of the env."""
    from tests.support.fake_slack import serve_fake_slack

    for var in (
        "SLACK_BOT_TOKEN",
        "SLACK_APP_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_CLIENT_ID",
        "SLACK_CLIENT_SECRET",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
    ):
        monkeypatch.delenv(var, raising=False)
    yield from serve_fake_slack()


@pytest.fixture
def slack_http(fake, slack_index_path: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The production app in HTTP mode (waitress on 127.0.0.1, free port), talking to the fake Slack."""
    from tests.support.slack_harness import SlackHttp, slack_config

    served = SlackHttp(slack_config(fake, slack_index_path, tmp_path / "state.db"))
    yield served
    served.stop()
