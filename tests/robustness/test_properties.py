"""Property tests: whatever people type and whatever the paper lists hold, nothing raises, every message fits
Block Kit's limits, and no user or paper text can ping, link or break out of the bot's markup.

Inputs per test come from the Hypothesis profile: "ci" by default (a few seconds each), thousands more with
`pytest --hypothesis-profile=long` or ICML_HYPOTHESIS_PROFILE=long.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import search
from bot.digest.channels import ChannelDigests
from bot.digest.model import Digest, DigestStatus, Subscription
from bot.papers import corpus, index
from bot.papers.corpus import Paper, Skip, SourceError
from bot.papers.row import PaperRow
from bot.search import Result, SearchResponse
from bot.search import query as ql
from bot.search.reader import Papers
from bot.slack import blocks, commands, events
from bot.slack.blocks import digest as digest_blocks
from bot.slack.services import Services
from bot.state import State
from bot.state.digests import RunRow, RunStatus
from bot.text.marked import marked
from tests.support.digest import service as digest_service
from tests.support.robust import (
    csv_files,
    jsonl_files,
    message_problems,
    paper_text,
    papers,
    seed_files,
    slack_text,
)

CHANNEL = "C0PROP00001"


class MemoryPoster:
    """A digest poster that keeps posts in memory (the fuzzed `/icml digest now` posts somewhere)."""

    def __init__(self) -> None:
        self.posted: list[Digest] = []

    def post(self, digest: Digest) -> str:
        self.posted.append(digest)
        return f"1700000000.{len(self.posted):06d}"

    def find(self, channel: str, day: date, since: float, team: str = "") -> str | None:
        return None


@pytest.fixture(scope="module")
def deps(slack_index_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """The listeners' dependencies on the seed index (with the hostile paper) and a private state database."""
    state = State(tmp_path_factory.mktemp("prop-state") / "state.db")
    digests = ChannelDigests.of(state, Papers(slack_index_path), MemoryPoster(), settle=0.0)
    desk = digest_service(digests, clock=lambda: datetime(2026, 3, 9, 8, 0, tzinfo=UTC))
    yield Services(papers=Papers(slack_index_path), state=state, digests=desk)
    desk.stop()


# ---------------------------------------------------------------------- what people type


@given(text=slack_text)
def test_any_slash_command_text_gets_a_valid_safe_answer(deps: Services, text: str) -> None:
    msg = commands.ack_payload(deps, text, "U0PROP", CHANNEL)
    assert msg["response_type"] == "ephemeral"
    assert message_problems(msg) == []


@given(text=slack_text, parent=st.one_of(st.none(), slack_text))
def test_any_mention_gets_a_valid_safe_reply(deps: Services, text: str, parent: str | None) -> None:
    event: dict[str, Any] = {
        "type": "app_mention",
        "text": f"<@UBOT> {text}",
        "user": "U1",
        "channel": CHANNEL,
        "ts": "1700000009.000300",
    }
    if parent is not None:
        event["thread_ts"] = "1700000000.000100"
    msg = events.thread_reply(deps, event, lambda channel, ts: parent or "")
    assert message_problems(msg) == []


@given(
    text=st.one_of(slack_text, st.text(min_size=400, max_size=3000)),
    offset=st.integers(0, 200),
    limit=st.integers(1, 20),
)
def test_query_parsing_and_search_take_any_text(deps: Services, text: str, offset: int, limit: int) -> None:
    parsed = ql.parse(text)
    assert len(parsed.terms) <= ql.MAX_TERMS
    assert len(parsed.text) <= ql.MAX_CHARS
    response = deps.papers.search(text, limit=limit, offset=offset)
    assert len(response.results) <= limit
    assert response.total >= 0
    assert message_problems(blocks.results_message(response)) == []


@given(text=slack_text, offset=st.integers(-5, 10_000), public=st.booleans())
def test_page_buttons_round_trip_within_slack_limits(text: str, offset: int, public: bool) -> None:
    value = blocks.page_value(text * 20, max(offset, 0), replace=not public)
    assert len(value) <= blocks.MAX_BUTTON_VALUE
    parsed = blocks.parse_page_value(value)
    assert parsed is not None
    assert parsed[1] == max(offset, 0)
    assert parsed[2] is (not public)
    # Any other value: refused, or read as a well-formed page
    forged = blocks.parse_page_value(text)
    assert forged is None or (isinstance(forged[0], str) and forged[1] >= 0 and isinstance(forged[2], bool)), forged


@given(text=slack_text)
def test_thread_topics_take_any_message(deps: Services, text: str) -> None:
    for query in deps.papers.topic_queries(text * 3):
        assert query
        assert "<" not in query


# ---------------------------------------------------------------------- what the paper lists hold


def _read_all(path: Path) -> list[Paper | Skip]:
    """Every record of a source, or SourceError: nothing else may escape."""
    try:
        return list(corpus.read(path, workers=1))
    except SourceError as exc:
        message = str(exc)
    assert message.startswith(str(path))
    assert "\n" not in message
    return []


def _check_records(records: list[Paper | Skip]) -> None:
    for rec in records:
        if isinstance(rec, Skip):
            assert rec.reason
            continue
        assert isinstance(rec.title, str)
        assert rec.title.strip()
        assert isinstance(rec.abstract, str)
        assert all(isinstance(a, str) for a in rec.authors)
        for url in (rec.url, rec.pdf_url, rec.code_url):
            assert url is None or url.startswith(("http://", "https://"))


@pytest.mark.parametrize(
    ("suffix", "files"),
    [(".jsonl", jsonl_files()), (".csv", csv_files()), (".txt", seed_files()), (".json", jsonl_files())],
)
def test_any_source_file_is_read_or_refused_in_one_line(suffix: str, files: st.SearchStrategy[bytes]) -> None:
    @given(data=st.one_of(files, st.binary(max_size=300)))
    def check(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"papers{suffix}"
            path.write_bytes(data if suffix != ".json" else b"[" + data.replace(b"\n", b",") + b"]")
            _check_records(_read_all(path))

    check()


@settings(max_examples=max(10, settings().max_examples // 10))
@given(records=st.lists(papers(), min_size=1, max_size=4))
def test_any_paper_that_is_indexed_is_shown_safely(records: list[dict[str, Any]]) -> None:
    import json

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "list.jsonl"
        rows = [{**r, "abstract": (r["abstract"] or "") + " zebrafish transformers " * 5} for r in records]
        source.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
        db = index.connect(Path(tmp) / "papers.db")
        try:
            index.load(db, [source], workers=1)
        except SourceError:
            return
        for (paper_id,) in db.execute("SELECT id FROM papers").fetchall():
            paper = index.get_paper(db, paper_id)
            assert paper is not None
            for msg in (
                blocks.paper_message(paper, another=True),
                blocks.abstract_message(paper),
                blocks.shared_message(paper, "U0SHARER"),
            ):
                assert message_problems(msg, users={"U0SHARER"}) == []
        response = search.search(db, "zebrafish transformers", limit=5)
        assert message_problems(blocks.results_message(response)) == []
        db.conn.close()


# ---------------------------------------------------------------------- block building


@given(
    paper=papers(),
    others=st.lists(papers(), max_size=4),
    query=slack_text,
    snippet=paper_text,
    notes=st.lists(paper_text, max_size=4),
    suggestions=st.lists(paper_text, max_size=6),
    offset=st.integers(0, 500),
    total=st.integers(0, 10_000),
    public=st.booleans(),
    user=st.text(max_size=20),
)
def test_any_paper_text_builds_valid_escaped_messages(
    paper: PaperRow,
    others: list[PaperRow],
    query: str,
    snippet: str,
    notes: list[str],
    suggestions: list[str],
    offset: int,
    total: int,
    public: bool,
    user: str,
) -> None:
    results = [Result(p, 1.0, marked(snippet)) for p in [paper, *others]]
    response = SearchResponse(
        query, results, total, offset, query[::-1] or None, suggestions, notes=[marked(n) for n in notes]
    )
    empty = SearchResponse(query, [], total, offset, None, suggestions, notes=[marked(n) for n in notes])
    sharer = user if blocks.mention(user) != "someone" else None
    for msg in (
        blocks.results_message(response, public, intro=blocks.bold(query)),
        blocks.results_message(empty, public),
        blocks.paper_message(paper, note=blocks.escape(query)),
        blocks.abstract_message(paper),
        blocks.shared_message(paper, user),
        blocks.similar_message(paper, results, public),
    ):
        assert message_problems(msg, users={sharer} if sharer else ()) == []


@given(
    digest_papers=st.lists(papers(), min_size=1, max_size=4),
    topics=paper_text,
    first=st.integers(1, 6000),
    round_=st.integers(1, 50),
    done=st.booleans(),
    error=paper_text,
    channel=st.sampled_from([CHANNEL, "G0ABCDEFG"]),
)
def test_any_digest_and_status_message_is_valid(
    digest_papers: list[PaperRow], topics: str, first: int, round_: int, done: bool, error: str, channel: str
) -> None:
    day = date(2026, 3, 9)
    ids = frozenset(str(p["id"]) for p in digest_papers[::2])
    digest = Digest(
        channel,
        day,
        digest_papers,
        first,
        first + len(digest_papers) + 10,
        round_,
        done,
        topics,
        ids,
        datetime(2026, 3, 10, 9, 0, tzinfo=UTC),
    )
    for msg in (digest_blocks.digest_message(digest), digest_blocks.preview_message(digest)):
        assert message_problems(msg) == []
        assert digest_blocks.is_digest({"blocks": msg["blocks"]}, channel, day)
    sub = Subscription(channel, topics=topics, last_error=error, last_error_at=0.0, created_at=1.0)
    status = DigestStatus(
        channel,
        sub,
        None,
        None,
        [RunRow("", channel, "2026-03-09", RunStatus.FAILED, 1.0, 1.0, papers=[], error=error)],
        3,
        20,
        round_,
        (error, datetime(2026, 3, 9, tzinfo=UTC)),
    )
    assert message_problems(digest_blocks.status_message(status, error)) == []
