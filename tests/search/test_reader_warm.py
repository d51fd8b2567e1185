"""A serving process warms the index at start, and each index published or loaded under it in a thread of its own:
no user's search reads a whole table. A one-shot search reads only what its query needs, and answers alike."""

from __future__ import annotations

import json
import logging
import shutil
import threading
from pathlib import Path

import pytest

from bot.papers import index
from bot.papers.publish import publish
from bot.search import described
from bot.search.cache import index_cache
from bot.search.reader import Papers
from tests.support.venue_index import NEW_PAPER, build

# What search keeps once per index version, each a read of every paper or pair (~1 s together at 110,000 papers).
WHOLE_TABLE_READS = (
    "SELECT rowid, title FROM papers",
    "SELECT rowid, name FROM papers WHERE name IS NOT NULL",
    "SELECT last FROM people UNION SELECT first FROM people",
    "SELECT rowid, vector FROM paper_vectors ORDER BY rowid",
    "SELECT key, form, long, papers FROM acronyms",
)
# A paper's name to look for, people to ask about, meaning to weigh
QUERY = "decoding with a draft model"


def _whole_table_reads(papers: Papers) -> list[str]:
    statements: list[str] = []
    papers.db.conn.set_trace_callback(statements.append)
    assert papers.search(QUERY).results
    papers.db.conn.set_trace_callback(None)
    return [s for s in statements if s in WHOLE_TABLE_READS]


def test_a_process_searching_once_reads_no_whole_table_and_keeps_them_from_its_second_search(
    seed_index_path: Path, tmp_path: Path
) -> None:
    path = tmp_path / "cold.db"  # (its own file: search keeps its cache per file)
    shutil.copy(seed_index_path, path)
    papers = Papers(path)
    # `icml-bot search`: what the query needs, through the indexes
    assert _whole_table_reads(papers) == []
    assert sorted(s.split(" FROM ")[1].split()[0] for s in _whole_table_reads(papers)) == [
        "acronyms",
        "paper_vectors",
        "papers",  # (names and titles)
        "papers",
        "people",
    ]
    assert _whole_table_reads(papers) == []


def test_an_index_built_before_name_keys_is_searched_by_its_names(seed_index_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "older.db"
    shutil.copy(seed_index_path, path)
    db = index.connect(path)
    db.execute("DROP TABLE name_keys")
    db.conn.close()
    papers = Papers(path)
    assert _whole_table_reads(papers) == []  # (each name by pattern: cache.names_like)
    assert [r.paper["name"] for r in papers.search("knapsack-rl").results[:1]] == ["Knapsack RL"]


def test_after_warming_the_first_search_reads_no_whole_table(seed_index_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "warm.db"
    shutil.copy(seed_index_path, path)
    warmed = Papers(path)
    described.synonyms.cache_clear()
    warmed.warm().join()
    assert _whole_table_reads(warmed) == []
    assert _whole_table_reads(warmed) == []  # (the warm-up kept them: not the second search)
    # and the first description a user types does not build the synonym table either
    assert described.synonyms.cache_info().currsize == 1


def _warmed_apart() -> None:
    """Wait for the threads warming new index versions (started by the search that met the version)."""
    for thread in threading.enumerate():
        if thread.name == "warm-index-version":
            thread.join()


def test_an_index_published_under_a_server_is_warmed_beside_its_searches(tmp_path: Path) -> None:
    old, new = build(tmp_path / "old", []), build(tmp_path / "new", [NEW_PAPER])
    live = tmp_path / "live" / "papers.db"
    publish(old, live)
    served = Papers(live)
    served.warm().join()
    publish(new, live)
    # The first search on it answers as a first search does
    assert _whole_table_reads(served) == []
    _warmed_apart()
    assert index_cache(served.db).whole
    # The second one no longer reads them all in its request
    assert _whole_table_reads(served) == []
    assert [r.paper["source_id"] for r in served.search("zorblatting").results] == ["ZORB1"]


def test_warming_without_an_index_only_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="bot.search.reader"):
        Papers(tmp_path / "missing.db").warm().join()
    assert [r.getMessage().startswith("index not warmed: ") for r in caplog.records] == [True]


def _answer(papers: Papers, query: str) -> dict[str, object]:
    """What `icml-bot search --json` prints, but for the time it took."""
    answer = papers.search(query, limit=10).to_json()
    del answer["took_ms"]
    return answer


def test_a_first_search_answers_as_the_kept_look_ups_do(full_index_path: Path, tmp_path: Path) -> None:
    kept = Papers(full_index_path)
    kept.warm().join()
    rows = kept.db.execute("SELECT name, authors FROM papers WHERE name > '' ORDER BY rowid LIMIT 12").fetchall()
    names = [name for name, _ in rows]
    authors = [found[0] for _, listed in rows if (found := json.loads(listed or "[]"))]
    queries = [
        *names,
        *(name.lower().replace("-", " ") for name in names),
        *(f"{name} method" for name in names),
        *authors,
        *(author.split()[-1] for author in authors),
        *(f"{author[0]}. {author.split()[-1]}" for author in authors),
        QUERY,
        "speculatve decodng",  # typos: the model's words, the vocabulary by first letter
        "federated lerning",
        "suddenly generalize",
        "grokking transformrs",
        "Levine offline RL",
        "Dan Hendrycks",
        "MoE routing",  # acronyms, both ways, read pair by pair
        "LLMs for chemistry",
        "mixture of experts",
        "retrieval augmented generation benchmark",
        "chain-of-thought faithfulness",
        "kv cache venue:icml2026",  # a venue's papers
        "track:main reasoning",
    ]
    cold = tmp_path / "cold.db"
    shutil.copy(full_index_path, cold)
    older = tmp_path / "older.db"  # (built before name keys: names read by pattern)
    shutil.copy(full_index_path, older)
    db = index.connect(older)
    db.execute("DROP TABLE name_keys")
    db.conn.close()
    for query in queries:
        for path in (cold, older):
            fresh = Papers(path)
            # As the first search of a process: `icml-bot search`
            index_cache(fresh.db).searches = 0
            assert _answer(fresh, query) == _answer(kept, query), (query, path.name)
