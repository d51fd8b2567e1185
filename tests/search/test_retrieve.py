"""Retrieval: the FTS5 expressions it builds match what the plain query would, however they are arranged for speed."""

from __future__ import annotations

import pytest
import sqlite_utils

from bot.search.retrieve import conjunction


def rowids(db: sqlite_utils.Database, expression: str) -> list[int]:
    return [r[0] for r in db.execute("SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?", [expression])]


def test_the_empty_phrase_matches_nothing(seed_db: sqlite_utils.Database) -> None:
    """What the fence in conjunction() relies on: FTS5 parses "" as a phrase that matches no row."""
    assert rowids(seed_db, '""') == []
    assert rowids(seed_db, '"model" NOT ""') == rowids(seed_db, '"model"') != []


@pytest.mark.parametrize(
    ("cheap", "costly"),
    [
        (['"learning"', '"model"', '"language"'], ['("llm" OR "large language model")']),
        (['"cache"', '"memory"'], ['"kv cache"']),
        (['"attention"', '"model"'], ['{title} : "attention"', '("kv cache" OR "key value cache")']),
        (['"reasoning"'], ['"reinforcement learning"']),  # one cheap part: nothing to fence
        (['"diffusion"', '"model"'], []),
        ([], ['"kv cache"', '"language model"']),
    ],
)
def test_conjunction_matches_the_plain_and(seed_db: sqlite_utils.Database, cheap: list[str], costly: list[str]) -> None:
    fenced = conjunction(cheap, costly)
    assert rowids(seed_db, fenced) == rowids(seed_db, " AND ".join(cheap + costly)) != []
    assert ('NOT ""' in fenced) == (len(cheap) > 1 and bool(costly))
