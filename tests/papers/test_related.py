"""Related papers computed at index time: terms, vectors, neighbours, and the table `Similar` reads."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from bot.papers import index, related
from tests.support.paths import SEEDS

# Three topics, four papers each, written differently; words like "method" and "results" appear everywhere.
TOPICS = {
    "kv": [
        ("Evicting KV cache entries", "We evict key value cache entries during long context decoding. Our method"),
        ("Compressing the KV cache", "Quantized key value cache for long context inference. The results show"),
        ("KV cache merging for decoding", "Merging key value cache entries keeps long context decoding cheap."),
        ("Paged attention memory", "A key value cache allocator for long context serving; our method results."),
    ],
    "graph": [
        ("Graph neural networks oversmoothing", "Message passing on graph neural networks oversmooths node features."),
        ("Expressive message passing", "We study graph neural networks beyond message passing; node features."),
        ("Graph transformers for molecules", "Molecule graph neural networks with node features and our method."),
        ("Node classification at scale", "Node classification with message passing graph neural networks."),
    ],
    "rl": [
        ("Offline reinforcement learning", "Policy optimization from offline data with conservative value targets."),
        ("Reward models for policy learning", "Reinforcement learning policy optimization with a learned reward."),
        ("Exploration bonuses", "Reinforcement learning exploration for policy optimization; our method."),
        ("Model-based policy search", "Reinforcement learning with a world model for policy optimization results."),
    ],
}


def corpus() -> tuple[list[tuple[str, str]], list[str]]:
    texts, topics = [], []
    for topic, papers in TOPICS.items():
        texts += papers
        topics += [topic] * len(papers)
    return texts, topics


def test_terms_are_topic_stems_and_pairs_with_the_title_counted_more() -> None:
    counts = related.Terms()("Caching tokens", "We cache the tokens of a cache.")
    assert counts == {"cach": 2 + 2, "token": 2 + 1, "cach token": 2}
    # "we", "the", "of", "a" are stopwords, and they break pairs: "cache the tokens" is no pair


def test_a_pair_is_a_term_once_it_occurs_twice() -> None:
    texts = [("Caching tokens", "Token budgets."), ("Tokens", "We cache tokens."), ("Caching", "Token budgets.")]
    title_pair, abstract_pair, _ = related.vectors(texts)
    assert "cach token" in title_pair  # twice: the title counts twice
    assert "cach token" not in abstract_pair  # once in an abstract: half a word, too little
    assert "budget" in title_pair  # in 2 of 3 papers; "token" is in all 3 and weighs nothing
    assert sum(w * w for w in title_pair.values()) == pytest.approx(1.0)


def test_each_paper_finds_its_own_topic_first_never_itself() -> None:
    texts, topics = corpus()
    found = related.neighbours(related.vectors(texts))
    for i, row in enumerate(found):
        assert i not in [j for j, _ in row]
        assert [topics[j] for j, _ in row[:3]] == [topics[i]] * 3, (texts[i], [texts[j] for j, _ in row])
        assert [s for _, s in row] == sorted((s for _, s in row), reverse=True)


def test_bounds_keep_each_answer_small_and_the_work_per_paper_bounded() -> None:
    texts, _ = corpus()
    tight = related.Settings(postings=2, probe=2, candidates=2, keep=2)
    vecs = related.vectors(texts, tight)
    assert all(len(plist) <= 2 for plist in related.postings_of(vecs, tight).values())
    assert all(len(row) <= 2 for row in related.neighbours(vecs, tight))


def test_a_paper_with_no_shared_words_has_no_neighbours() -> None:
    texts, _ = corpus()
    found = related.neighbours(related.vectors([*texts, ("Zebra", "Quokka wombat platypus.")]))
    assert found[-1] == []


def test_pack_keeps_rowids_and_scores_in_order() -> None:
    blob = related.pack([(7, 0.5), (3, 0.25), (2_000_000, 0.125)])
    assert len(blob) == 3 * 8
    assert related.unpack(blob) == [(7, 0.5), (3, 0.25), (2_000_000, 0.125)]
    assert related.unpack(related.pack([])) == []


def test_loading_stores_neighbours_for_every_paper(tmp_path: Path) -> None:
    db = index.connect(tmp_path / "papers.db")
    index.load(db, [SEEDS])
    rowids = [r[0] for r in db.execute("SELECT rowid FROM papers")]
    assert sorted(r[0] for r in db.execute("SELECT paper FROM neighbours")) == sorted(rowids)
    for rowid in rowids:
        row = related.stored(db, rowid)
        assert row is not None
        assert rowid not in [other for other, _ in row]
        assert set(other for other, _ in row) <= set(rowids)


def test_an_index_built_before_neighbours_says_so_with_none(tmp_path: Path) -> None:
    db = index.connect(tmp_path / "papers.db")
    index.load(db, [SEEDS])
    db.execute("DROP TABLE neighbours")
    assert related.stored(db, 1) is None
    assert related.stored(index.connect(tmp_path / "papers.db", readonly=True), 1) is None


def test_other_database_errors_are_not_taken_for_an_old_index() -> None:
    db = sqlite_utils.Database(sqlite3.connect(":memory:"))
    db.execute("CREATE TABLE neighbours (paper INTEGER PRIMARY KEY)")  # no `related` column: a broken index
    with pytest.raises(sqlite3.OperationalError):
        related.stored(db, 1)


def test_an_index_above_the_size_cap_stores_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = index.connect(tmp_path / "papers.db")
    index.load(db, [SEEDS])
    assert related.stored(db, 1) is not None
    monkeypatch.setattr(related, "MOST_PAPERS", 18)  # the seeds are 19 papers
    index.load(db, [SEEDS])
    assert related.stored(db, 1) is None  # and `Similar` searches by words (tests/search/test_similar.py)
