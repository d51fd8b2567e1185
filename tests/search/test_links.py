"""A pasted link (OpenReview, the conference site) finds the paper it names; its pieces are never searched as words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.search import query as ql
from tests.support.fake_slack import FakeSlack
from tests.support.marks import starred_notes
from tests.support.slack_harness import SlackHttp, slack_config
from tests.support.slack_requests import mention_event
from tests.support.venue_index import index_of

ABSTRACT = "We study {} for language models and release code. Experiments on standard benchmarks show gains."
PAPERS = [
    {
        "id": "kz7n1D8Y1o",
        "conference": "ICML",
        "year": 2026,
        "title": "Paged Attention for Serving",
        "abstract": ABSTRACT.format("paged attention"),
        "authors": ["Ada Lovelace"],
        "url": "https://openreview.net/forum?id=kz7n1D8Y1o",
        "site_url": "https://icml.cc/virtual/2026/poster/615",
        "status": "Poster",
    },
    {
        "id": "Q2xyWv9aBc",
        "conference": "ICML",
        "year": 2026,
        "title": "Forum Posters and Virtual Forms",
        "abstract": ABSTRACT.format("forum poster virtual https"),
        "authors": ["Alan Turing"],
        "url": "https://openreview.net/forum?id=Q2xyWv9aBc",
        "site_url": "https://icml.cc/virtual/2026/poster/616",
        "status": "Oral",
    },
]


@pytest.fixture(scope="module")
def linked_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_of(tmp_path_factory.mktemp("links"), PAPERS)


@pytest.fixture
def linked(linked_path: Path) -> Iterator[sqlite_utils.Database]:
    db = index.connect(linked_path, readonly=True)
    yield db
    db.conn.close()


@pytest.mark.parametrize(
    "text",
    [
        "https://openreview.net/forum?id=kz7n1D8Y1o",
        "<https://openreview.net/forum?id=kz7n1D8Y1o>",  # as Slack sends a link
        "<https://openreview.net/pdf?id=kz7n1D8Y1o|openreview.net/pdf?id=kz7n1D8Y1o>",
        "openreview.net/forum?id=kz7n1D8Y1o&noteId=abc",
        "https://icml.cc/virtual/2026/poster/615",
        "http://www.icml.cc/virtual/2026/poster/615/",
        "icml.cc/virtual/2026/poster/615#details",
        # in prose: brackets, a query, a full stop
        "see (https://ICML.cc/virtual/2026/poster/615?session=2).",
        '"https://openreview.net/forum?id=kz7n1D8Y1o"',
    ],
)
def test_a_pasted_link_finds_its_paper_and_nothing_else(linked: sqlite_utils.Database, text: str) -> None:
    response = search.search(linked, text)
    assert [r.paper["source_id"] for r in response.results] == ["kz7n1D8Y1o"]
    assert response.total == 1
    assert response.corrected is None
    assert starred_notes(response) == []


def test_a_link_is_not_words() -> None:
    parsed = ql.parse("<https://openreview.net/forum?id=kz7n1D8Y1o> kv cache")
    assert parsed.links == ("https://openreview.net/forum?id=kz7n1D8Y1o",)
    assert [t.text for t in parsed.terms] == ["kv", "cache"]
    # A link inside a quoted phrase: the phrase, as typed
    phrase = ql.parse('"see https://icml.cc"')
    assert (phrase.links, [t.words for t in phrase.terms]) == ((), [("see", "https", "icml", "cc")])


def test_a_link_with_words_leads_the_papers_the_words_find(linked: sqlite_utils.Database) -> None:
    response = search.search(linked, "https://icml.cc/virtual/2026/poster/616 paged attention")
    assert [r.paper["source_id"] for r in response.results] == ["Q2xyWv9aBc", "kz7n1D8Y1o"]


def test_a_link_no_paper_has_says_so_beside_the_words_results(linked: sqlite_utils.Database) -> None:
    response = search.search(linked, "paged attention https://example.com/x")
    assert [r.paper["source_id"] for r in response.results] == ["kz7n1D8Y1o"]
    assert starred_notes(response) == ["No paper in the index has the link https://example.com/x."]


def test_two_links_to_one_paper_are_both_found(linked: sqlite_utils.Database) -> None:
    # Its OpenReview page and its conference page: the second link used to be reported as unknown.
    text = "https://openreview.net/forum?id=kz7n1D8Y1o https://icml.cc/virtual/2026/poster/615 https://example.com/x"
    response = search.search(linked, text)
    assert [r.paper["source_id"] for r in response.results] == ["kz7n1D8Y1o"]
    assert starred_notes(response) == ["No paper in the index has the link https://example.com/x."]


def test_a_link_no_paper_has_says_so(linked: sqlite_utils.Database) -> None:
    unknown = search.search(linked, "https://openreview.net/forum?id=NOPE123456")
    assert unknown.results == []
    assert starred_notes(unknown) == ["No paper in the index has the link https://openreview.net/forum?id=NOPE123456."]
    filtered = search.search(linked, "https://icml.cc/virtual/2026/poster/615 status:oral")
    assert filtered.results == []  # the poster is not an oral: no list of every oral instead
    assert starred_notes(filtered) == [
        "No paper in the index has the link https://icml.cc/virtual/2026/poster/615 with these filters."
    ]


def test_a_link_pasted_into_slack_answers_with_its_paper(fake: FakeSlack, linked_path: Path, tmp_path: Path) -> None:
    served = SlackHttp(slack_config(fake, linked_path, tmp_path / "state.db"))
    try:
        reply = served.command("<https://openreview.net/forum?id=kz7n1D8Y1o>").json()
        # A mention: Slack wraps the link, with the label it shows (`&` escaped as it sends it).
        linked = "<https://icml.cc/virtual/2026/poster/616?x=1&amp;y=2|this paper>"
        assert served.event(mention_event(f"what about {linked}?", ts="1700000008.000200")).status == 200
        (call,) = fake.wait_for("chat.postMessage")
    finally:
        served.stop()
    shown = str(reply["blocks"])
    assert "Paged Attention for Serving" in shown
    assert "Forum Posters" not in shown
    in_thread = str(call.params["blocks"])
    assert "Forum Posters and Virtual Forms" in in_thread
    assert "Paged Attention" not in in_thread
