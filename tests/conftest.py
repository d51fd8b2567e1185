"""Shared fixtures: indexes built by the production code from the real seed file and, when present, ../shared."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlite_utils
from hypothesis import HealthCheck, settings

from bot.papers import index
from tests.support.paths import ICML2026, SEEDS, SHARED_DATA_MISSING
from tests.support.slow import COLLECTED, is_slow

# The Slack helpers are imported by the fixtures that need them, not by every test run
if TYPE_CHECKING:
    from tests.support.digest import Clock
    from tests.support.fake_slack import FakeSlack
    from tests.support.postgres import PostgresServer
    from tests.support.slack_harness import SlackHttp

# Hypothesis profiles: "ci" (the default) keeps each property test to a few seconds; "long" tries thousands more
# inputs; "quick", the quick loop's (`-m "not slow"`), a few dozen. Pick one with `pytest --hypothesis-profile=long`
# or ICML_HYPOTHESIS_PROFILE=long.
settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile("long", parent=settings.get_profile("ci"), max_examples=5000)
settings.register_profile("quick", parent=settings.get_profile("ci"), max_examples=25)
settings.load_profile(os.environ.get("ICML_HYPOTHESIS_PROFILE", "ci"))
QUICK_LOOP = "not slow"  # the -m expression of the quick loop (README, docs/development.md)


def pytest_configure(config: pytest.Config) -> None:
    """The quick loop tries the "quick" profile's inputs per property test, unless a profile was asked for."""
    asked = config.getoption("--hypothesis-profile") or "ICML_HYPOTHESIS_PROFILE" in os.environ
    if config.getoption("markexpr") == QUICK_LOOP and not asked:
        settings.load_profile("quick")


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects by the marks added here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `slow` every test that tests/support/slow.py says is (processes, PostgreSQL, the full list); a test that
    may be the first to ask for the full list's index gets the time to build it beside its own 120 s."""
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)
        if "full_index_path" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(FULL_INDEX_TIMEOUT))
    config.stash[COLLECTED] = {(item.path, item.get_closest_marker("slow") is not None) for item in items}


# The session's full index is built inside whichever test asks first: on a loaded 2-core machine that build alone
# has passed 120 s, and every test of the full list then failed with it.
FULL_INDEX_TIMEOUT = 600


@pytest.fixture(scope="session")
def seed_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the 19 bundled abstracts, built once per test run."""
    path = tmp_path_factory.mktemp("seed-index") / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS])
    db.conn.close()
    return path


@pytest.fixture
def seed_db(seed_index_path: Path, tmp_path: Path) -> Iterator[sqlite_utils.Database]:
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
        pytest.skip(SHARED_DATA_MISSING)
    path = tmp_path_factory.mktemp("full-index") / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS])
    index.load(db, [ICML2026])
    db.conn.close()
    return path


# ---------------------------------------------------------------------- Slack


@pytest.fixture(scope="session")
def slack_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds plus EVIL_PAPER (tests/support/slack_harness.py), built once per run; the app opens it read-only."""
    from tests.support.slack_harness import build_slack_index

    return build_slack_index(tmp_path_factory.mktemp("slack-index"))


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSlack]:
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
def slack_http(fake: FakeSlack, slack_index_path: Path, tmp_path: Path) -> Iterator[SlackHttp]:
    """The production app in HTTP mode (a worker's waitress server, 127.0.0.1), talking to the fake Slack."""
    from tests.support.slack_harness import SlackHttp, slack_config

    served = SlackHttp(slack_config(fake, slack_index_path, tmp_path / "state.db"))
    yield served
    served.stop()


# ---------------------------------------------------------------------- PostgreSQL (tests/support/postgres.py)


def _running_postgres() -> Iterator[PostgresServer]:
    """A started PostgreSQL server in a temp folder, destroyed afterwards; skips when PostgreSQL is not installed."""
    from tests.support.postgres import PostgresServer

    bin_dir = PostgresServer.find()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin)")
    server = PostgresServer(bin_dir)
    try:
        server.start()
        yield server
    finally:
        server.destroy()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL cluster per test run (temp folder, unix socket); skipped when PostgreSQL is not installed."""
    yield from _running_postgres()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a new, empty database on the session's PostgreSQL server."""
    return postgres_server.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def state_target(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a test's state lives, once per backend: an SQLite file, then a new PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "state.db"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def private_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own, started, for tests that stop or crash it."""
    yield from _running_postgres()


# ---------------------------------------------------------------------- digest tests (a `clock` fixture of their own)


@pytest.fixture
def slack(clock: Clock) -> Iterator[FakeSlack]:
    """The fake Slack, stamping messages with the test's clock (so history lookups see the same time)."""
    from tests.support.fake_slack import FakeSlack

    with FakeSlack(clock=clock.timestamp) as fake:
        yield fake
