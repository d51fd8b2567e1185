"""Search and a changing index: a rebuild seen by the next search, one snapshot per search, older indexes,
threads with their own connections, and errors that are not hidden."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from tests.search.results import ids, source_ids
from tests.support.seed_ids import CALIBRATION, DEFENSIVE_KV, SOFTMOE, TOKENSWAP, TOKSUITE, VEGAS, VIEWMASK


def test_a_rebuilt_index_is_seen_by_the_next_search(seed_db: sqlite_utils.Database, tmp_path: Path) -> None:
    assert not search.search(seed_db, "zorblatting").results
    source = tmp_path / "new2026.jsonl"
    paper = {"id": "NEW1", "title": "Zorblatting Transformers", "abstract": "We introduce zorblatting. " * 6}
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    index.load(seed_db, [source])
    assert source_ids(search.search(seed_db, "zorblatting")) == ["NEW1"]
    assert search.search(seed_db, "zorblating").corrected == "zorblatting"


def test_a_paper_edited_by_a_reindex_in_the_same_second_is_ranked_as_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Search keeps titles and abstracts in memory per index version: a second load within the same second (one
    stamp) that edits a paper in place (one seq) must still be read afresh."""
    monkeypatch.setattr("bot.papers.loading.time.strftime", lambda fmt, when=None: "2026-12-02T10:00:00Z")
    source = tmp_path / "list.jsonl"
    paper = {"id": "P1", "title": "Token Pruning for Vision Transformers", "abstract": "We prune tokens early. " * 4}
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    db = index.connect(tmp_path / "papers.db")
    index.load(db, [source])
    assert "abstract:pruning" in search.search(db, "token pruning").results[0].matched
    paper |= {"title": "Token Zorblating for Vision Transformers", "abstract": "We zorblat tokens early. " * 4}
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    index.load(db, [source])
    (found,) = search.search(db, "token zorblat").results
    assert {"title:zorblat", "abstract:zorblat"} <= set(found.matched)


def test_a_search_reads_one_snapshot_and_ends_its_read(seed_db: sqlite_utils.Database, tmp_path: Path) -> None:
    reader = index.connect(seed_db.conn.execute("PRAGMA database_list").fetchone()[2], readonly=True)
    assert search.search(reader, "kv cache").results
    assert not reader.conn.in_transaction
    seed_db.execute("UPDATE meta SET value = 'newer' WHERE key = 'last_indexed'")
    seed_db.conn.commit()
    busy, _, _ = seed_db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0  # no read left open by the search holds a rebuild's checkpoint back
    seed_db.execute("BEGIN")  # the caller's own transaction, with an uncommitted write
    seed_db.execute("UPDATE meta SET value = 'newest' WHERE key = 'last_indexed'")
    assert search.search(seed_db, "kv cache").results
    assert seed_db.conn.in_transaction  # still theirs to end
    seed_db.execute("ROLLBACK")
    reader.conn.close()


def test_an_index_without_the_acronyms_table_still_searches(seed_db: sqlite_utils.Database) -> None:
    seed_db.execute("DROP TABLE acronyms")
    seed_db.execute("UPDATE meta SET value = 'older' WHERE key = 'last_indexed'")
    seed_db.conn.commit()
    assert ids(search.search(seed_db, "MoE"))[0] == SOFTMOE  # the built-in list


def test_threads_with_their_own_connections(seed_index_path: Path) -> None:
    queries = ("kv cahce", "TokSuite", "MoE routing", "language models", "status:oral")
    expected = [
        [DEFENSIVE_KV, VEGAS],
        [TOKSUITE],
        [SOFTMOE],
        [TOKSUITE, VIEWMASK, SOFTMOE, CALIBRATION, TOKENSWAP],
        [],
    ]
    errors: list[BaseException] = []
    answers: list[list[list[str]]] = []

    def work() -> None:
        try:
            db = index.connect(seed_index_path, readonly=True)
            answers.append([ids(search.search(db, query)) for query in queries])
            db.conn.close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    # Every thread, sharing the per-index cache, got the same answers
    assert answers == [expected] * len(threads)


def test_a_non_fts_database_error_is_not_hidden(tmp_path: Path) -> None:
    db = index.connect(tmp_path / "empty.db")
    index.ensure_schema(db)
    db.execute("DROP TABLE vocab")
    with pytest.raises(sqlite3.OperationalError):
        search.search(db, "attention")
