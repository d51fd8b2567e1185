"""Ideas described in plain words (bot.search.described): what a researcher types when the term escapes them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.search import described
from bot.search.weights import DEFAULT

BEFORE = DEFAULT.with_values({"described.weight": "0"})


@pytest.fixture(scope="module")
def full_db(full_index_path: Path) -> Iterator[sqlite_utils.Database]:
    db = index.connect(full_index_path, readonly=True)
    yield db
    db.conn.close()


def test_a_description_keeps_the_words_that_carry_its_idea() -> None:
    words = described.content_words(["making", "a", "big", "model", "answer", "faster", "by", "guessing", "it"])
    assert words == ["making", "big", "answer", "faster", "guessing"]


def test_only_a_long_query_reads_as_a_description() -> None:
    assert not described.is_description(["kv", "cache", "compression"], DEFAULT.described)
    assert described.is_description(["a", "b", "c", "d", "e", "f"], DEFAULT.described)
    assert not described.is_description(["a", "b", "c", "d", "e", "f"], BEFORE.described)


def test_a_plain_word_has_the_researchers_word_among_its_synonyms() -> None:
    near = described.synonyms().nearest(["big", "checking", "qqqzzz"], 4, 0.6)
    assert "large" in [w for w, _ in near["big"]]
    assert "verify" in [w for w, _ in near["checking"]]
    assert near["qqqzzz"] == []  # a word the model does not know has none, and no error


def test_a_paper_is_read_by_its_best_sentence() -> None:
    papers = {
        1: ("Fast decoding", "We study many things. A small model drafts tokens and the large model verifies them."),
        2: ("Big models", "Large models are big. They answer questions about many tokens in many settings."),
    }
    words = ["big", "model", "guessing", "tokens", "checking"]
    expanded = described.expansions(words, lambda ws: dict.fromkeys(ws, 10), DEFAULT.described)
    ordered = described.order(
        "big model guessing tokens ahead and checking them",
        words,
        expanded,
        papers,
        {},
        described.nothing_stored,
        {},
        100,
        {},
        DEFAULT.described,
    )
    assert [r for r, _ in ordered] == [1, 2]


def test_the_sentences_kept_for_an_index_are_bounded_and_shared_safely() -> None:
    memory: dict[int, described.Sentences] = {}
    papers = {
        n: (f"title {n}", "One sentence here that is long enough. Another one, long enough too.") for n in range(5)
    }
    first = described.remembered(papers, memory, described.nothing_stored)
    assert set(first) == set(memory) == set(range(5))
    # Encoded once
    assert described.remembered({0: papers[0]}, memory, described.nothing_stored)[0] is first[0]


@pytest.mark.parametrize(
    ("query", "about"),
    [
        ("making a big model answer faster by guessing several tokens ahead and checking them", "speculative"),
    ],
)
def test_an_idea_in_plain_words_finds_the_papers_that_name_it(
    full_db: sqlite_utils.Database, query: str, about: str
) -> None:
    def found(weights: object) -> list[str]:
        results = search.search(full_db, query, limit=5, weights=weights).results  # type: ignore[arg-type]
        return [f"{r.paper['title']} {r.paper['abstract']}".lower() for r in results]

    assert any(about in text for text in found(DEFAULT))
    assert not any(about in text for text in found(BEFORE))  # (what the same query found before)


def test_a_title_typed_out_still_finds_its_paper_first(full_db: sqlite_utils.Database) -> None:
    title = "SelfJudge: Faster Speculative Decoding via Self-Supervised Judge Verification"
    assert search.search(full_db, title, limit=1).results[0].paper["title"] == title


def test_the_index_stores_each_sentence_vector_as_a_query_would_encode_it(seed_db: sqlite_utils.Database) -> None:
    from bot.papers import sentence_vectors
    from bot.text import embedding

    rows = seed_db.execute("SELECT rowid, title, abstract FROM papers ORDER BY rowid").fetchall()
    stored = sentence_vectors.read(seed_db, [r for r, _, _ in rows], embedding.model().dims)
    assert set(stored) == {r for r, _, _ in rows}
    for rowid, title, abstract in rows:
        texts = sentence_vectors.sentences_of(title, abstract)
        fresh = embedding.model().encode(texts)
        assert stored[rowid].shape == fresh.shape
        assert (stored[rowid] * fresh).sum(axis=1).min() > 0.99  # int8 keeps the direction


def test_an_index_built_before_sentence_vectors_encodes_them_at_query_time(seed_db: sqlite_utils.Database) -> None:
    seed_db.execute("DROP TABLE sentence_vectors")
    memory: dict[int, described.Sentences] = {}
    rowid, title, abstract = seed_db.execute("SELECT rowid, title, abstract FROM papers LIMIT 1").fetchone()
    read = described.remembered({rowid: (title, abstract)}, memory, described.stored_in(seed_db))
    assert len(read[rowid][0]) == len(read[rowid][1]) > 1
