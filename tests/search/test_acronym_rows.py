"""A process's first search reads acronym pairs as its query asks them: the same answers as the whole table."""

from __future__ import annotations

from pathlib import Path

from bot.papers import index
from bot.search.long_forms import load_table, rows_for


def test_pairs_read_key_by_key_are_the_whole_tables(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    try:
        whole, asked = load_table(db), rows_for(db)
        assert isinstance(whole.by_short, dict)
        assert isinstance(whole.by_long, dict)
        assert isinstance(whole.firsts, dict)
        keys = [*whole.by_short, "zorblatting", "llms"]
        longs = [*whole.by_long, "zorblatting transformer"]
        firsts = [*whole.firsts, *(w for long in longs for w in long.split())]
        assert [k for k in keys if (k in whole.by_short) != (k in asked.by_short)] == []
        assert [k for k in keys if whole.by_short.get(k, []) != asked.by_short.get(k, [])] == []
        assert [k for k in longs if whole.by_long.get(k, []) != asked.by_long.get(k, [])] == []
        assert [w for w in firsts if whole.firsts.get(w, 0) != asked.firsts.get(w, 0)] == []
        assert asked.longest > 0
    finally:
        db.conn.close()
