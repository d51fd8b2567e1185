"""What `icml-bot fetch` brings, as users see it in Slack: NeurIPS 2025 fetched from the fakes of its site and
OpenReview (as recorded), then signed /icml commands into the app as served."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.papers import fetching, index
from bot.papers.fetch.http import JsonClient, RetryPolicy
from tests.support import recorded
from tests.support.conference_fakes import USERS, FakeOpenReview, FakeSite, serve
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, slack_config, texts

USER, PASSWORD = next(iter(USERS.items()))


@pytest.fixture
def fetched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An index of NeurIPS 2025 as `icml-bot fetch neurips2025` builds it from the recorded shapes."""
    for var in ("ICML_BOT_STATE", "OPENREVIEW_BASEURL", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ICML_BOT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENREVIEW_USERNAME", USER)
    monkeypatch.setenv("OPENREVIEW_PASSWORD", PASSWORD)
    monkeypatch.setattr(fetching, "JsonClient", lambda: JsonClient(timeout=10, retry=RetryPolicy(sleep=lambda _: None)))
    path = tmp_path / "papers.db"
    conference = recorded.neurips2025()
    with serve(FakeSite(conference)) as site, serve(FakeOpenReview(conference)) as openreview:
        args = ["fetch", "neurips2025", "--db", str(path), "--site-url", site.url, "--openreview-url", openreview.url]
        assert main(args) == 0
    return path


@pytest.fixture
def app(fake: FakeSlack, fetched: Path, tmp_path: Path) -> Iterator[SlackHttp]:
    http = SlackHttp(slack_config(fake, fetched, tmp_path / "state.db"))
    yield http
    http.stop()


def test_a_datasets_paper_shows_its_data_link_beside_its_code_link(app: SlackHttp) -> None:
    shown = texts(app.command("Benchmark With Code").json())
    assert "<https://github.com/example/bench-code|code>" in shown
    assert "<https://huggingface.co/datasets/example/bench|data>" in shown
    only_data = texts(app.command("Dataset Only").json())
    assert "<https://zenodo.org/records/123|data>" in only_data
    assert "<https://zenodo.org/records/123|code>" not in only_data


def test_a_workshop_paper_in_full_names_its_venue_and_workshop(app: SlackHttp, fetched: Path) -> None:
    db = index.connect(fetched, readonly=True)
    try:
        (paper_id,) = db.execute("SELECT id FROM papers WHERE title = 'Workshop Poster'").fetchone()
    finally:
        db.conn.close()
    shown = texts(app.command(f"paper {paper_id}").json())
    assert "NeurIPS 2025 workshop" in shown
    # The workshop's title, as OpenReview lists it
    assert "Workshop on Mechanistic Interpretability" in shown
