"""A serving process warms the index at start: the first user's search reads no whole table."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from bot.search.reader import Papers

# What search loads once per index version, each a read of every paper (~0.4 s together at 110,000 papers).
WHOLE_TABLE_READS = ("SELECT rowid, title FROM papers", "SELECT rowid, name FROM papers")


def _first_search_reads(papers: Papers) -> list[str]:
    statements: list[str] = []
    papers.db.conn.set_trace_callback(statements.append)
    assert papers.search("kv cache").results
    papers.db.conn.set_trace_callback(None)
    return [s for s in statements if s.startswith(WHOLE_TABLE_READS)]


def test_after_warming_the_first_search_reads_no_whole_table(seed_index_path: Path, tmp_path: Path) -> None:
    cold, warm = tmp_path / "cold.db", tmp_path / "warm.db"  # (two files: search keeps its cache per file)
    shutil.copy(seed_index_path, cold)
    shutil.copy(seed_index_path, warm)
    assert len(_first_search_reads(Papers(cold))) == 2
    warmed = Papers(warm)
    warmed.warm().join()
    assert _first_search_reads(warmed) == []


def test_warming_without_an_index_only_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="bot.search.reader"):
        Papers(tmp_path / "missing.db").warm().join()
    assert [r.getMessage().startswith("index not warmed: ") for r in caplog.records] == [True]
