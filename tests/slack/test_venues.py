"""Venues through the app as served: signed /icml commands and mentions into waitress, a two-venue index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.papers import index
from bot.papers.venues import parse_scope
from bot.slack import blocks
from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.papers import known
from tests.support.slack_harness import SlackHttp, buttons, slack_config, texts
from tests.support.slack_requests import mention_event
from tests.support.venue_index import build_venue_index


@pytest.fixture(scope="module")
def venue_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_venue_index(tmp_path_factory.mktemp("slack-venues"))


def served(fake: FakeSlack, path: Path, tmp_path: Path, **overrides: Any) -> SlackHttp:
    return SlackHttp(slack_config(fake, path, tmp_path / "state.db", **overrides))


@pytest.fixture
def app(fake: FakeSlack, venue_index_path: Path, tmp_path: Path) -> Iterator[SlackHttp]:
    http = served(fake, venue_index_path, tmp_path)
    yield http
    http.stop()


def venues_shown(message: dict[str, Any], path: Path) -> list[str | None]:
    """The venue of each result, looked up in the index by the id on its Similar button."""
    db = index.connect(path, readonly=True)
    try:
        ids = [b["value"] for b in buttons(message) if b["action_id"] == blocks.ACTION_SIMILAR]
        return [known(db, i)["venue"] for i in ids]
    finally:
        db.conn.close()


def contexts(message: dict[str, Any]) -> list[str]:
    return [e["text"] for b in message["blocks"] if b["type"] == "context" for e in b["elements"]]


def test_kv_cache_answers_from_icml_2026_unless_asked(app: SlackHttp, venue_index_path: Path) -> None:
    default = app.command("kv cache").json()
    assert set(venues_shown(default, venue_index_path)) == {"icml2026"}
    # One venue in scope: results don't name it
    assert not [c for c in contexts(default) if "ICML 20" in c]
    everything = app.command("kv cache venue:all").json()
    shown = venues_shown(everything, venue_index_path)
    assert shown[0] == "icml2024"
    assert "icml2026" in shown
    paper_lines = [c for c in contexts(everything) if c.startswith("Ada Lovelace") or "`" in c]
    assert len(paper_lines) == len(shown)
    for line, venue in zip(paper_lines, shown, strict=True):  # each result names its venue
        label, other = ("ICML 2024", "ICML 2026") if venue == "icml2024" else ("ICML 2026", "ICML 2024")
        assert label in line, line
        assert other not in line, line
    assert problems(everything) == []
    only = app.command("kv cache venue:icml2024").json()
    assert set(venues_shown(only, venue_index_path)) == {"icml2024"}


def test_unknown_venue_answer_names_the_venues_held(app: SlackHttp) -> None:
    body = app.command("kv cache venue:neurips2025").json()
    assert body["response_type"] == "ephemeral"
    assert (
        "This index has no papers for venue:neurips2025; it has ICML 2026 (21 papers: 19 main, 1 position, "
        "1 workshop); ICML 2024 (3 papers). An admin can load them with `icml-bot fetch neurips2025`."
    ) in texts(body)
    assert "No papers match *kv cache venue:neurips2025*." in texts(body)


def test_thread_answers_search_the_scope(app: SlackHttp, fake: FakeSlack, venue_index_path: Path) -> None:
    app.event(mention_event("kv cache", ts="1700000005.000200", thread_ts="1700000000.000100"))
    (call,) = fake.wait_for("chat.postMessage")
    assert set(venues_shown(call.params, venue_index_path)) == {"icml2026"}


def test_stats_lists_venues_tracks_scope_and_age(app: SlackHttp) -> None:
    text = texts(app.command("stats").json())
    assert "*24 papers* and " in text
    assert "• ICML 2026: 21 papers (19 main, 1 position, 1 workshop)\n• ICML 2024: 3 papers" in text
    assert "Searched unless a query names venues: ICML 2026 (ICML_BOT_VENUES: automatic)" in text
    assert " ago)." in text


def test_configured_venues(fake: FakeSlack, venue_index_path: Path, tmp_path: Path) -> None:
    http = served(fake, venue_index_path, tmp_path, venues=parse_scope("icml2024"))
    try:
        assert set(venues_shown(http.command("kv cache").json(), venue_index_path)) == {"icml2024"}
        # The query names its own venue: that wins over ICML_BOT_VENUES.
        own = http.command("kv cache venue:icml2026-position").json()
        assert venues_shown(own, venue_index_path) == ["icml2026"]
    finally:
        http.stop()


def test_a_digest_subscription_names_its_venues(app: SlackHttp, fake: FakeSlack, venue_index_path: Path) -> None:
    channel = "C0VENUES01"
    reply = texts(app.command("digest subscribe kv cache venue:icml2024 at 08:30 UTC", channel_id=channel).json())
    assert "Mon-Fri at 08:30 UTC, 3 papers, topics *kv cache*, from ICML 2024." in reply
    status = texts(app.command("digest status", channel_id=channel).json())
    assert "topics *kv cache*, from ICML 2024" in status
    assert "*Left in round 1:* 3 of 3 papers" in status  # the round covers ICML 2024 only
    assert "Posted the digest" in texts(app.command("digest now", channel_id=channel).json())
    [post] = fake.posts(channel)
    assert "Papers on *kv cache* first, then the rest of ICML 2024." in texts(post)
    db = index.connect(venue_index_path, readonly=True)
    try:
        venues = {known(db, i)["venue"] for i in post["metadata"]["event_payload"]["papers"]}
    finally:
        db.conn.close()
    assert venues == {"icml2024"}
    again = texts(app.command("digest subscribe venue:icml2026-position", channel_id=channel).json())
    assert "topics *venue:icml2026-position*" not in again
    assert "from ICML 2026 position" in again


def test_a_digest_over_several_venues_names_each_papers_venue(app: SlackHttp, fake: FakeSlack) -> None:
    channel = "C0VENUES02"
    reply = texts(app.command("digest subscribe kv cache venue:all 5 papers", channel_id=channel).json())
    assert "topics *kv cache*, from every venue" in reply
    assert "Posted the digest" in texts(app.command("digest now", channel_id=channel).json())
    [post] = fake.posts(channel)
    lines = [c for c in contexts(post) if "`" in c]  # each paper's context line ends with its id
    assert len(lines) == 5
    # The best kv cache matches
    assert ["ICML 2024" in line for line in lines] == [True, True, True, False, False]
    assert all("ICML 2026" in line for line in lines[3:])


def test_a_question_naming_a_venue_and_year_answers_from_it(app: SlackHttp, venue_index_path: Path) -> None:
    """`/icml any ICML 2024 papers on kv cache?` answers from ICML 2024, as `kv cache venue:icml year:2024` does,
    instead of looking for the words icml and 2024 in ICML 2026 papers."""
    asked = app.command("any ICML 2024 papers on kv cache?").json()
    filtered = app.command("kv cache venue:icml year:2024").json()
    assert venues_shown(asked, venue_index_path) == venues_shown(filtered, venue_index_path)
    assert set(venues_shown(asked, venue_index_path)) == {"icml2024"}
    after = app.command("kv cache papers from ICML 2024").json()
    assert set(venues_shown(after, venue_index_path)) == {"icml2024"}
    assert problems(asked) == []
