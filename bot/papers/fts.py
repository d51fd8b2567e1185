"""FTS5 query syntax in one place: every word that reaches MATCH is quoted here, so user text is never syntax.

The index owns the FTS5 table (its columns and tokenizer, see index.py); search and find_twin build their MATCH
expressions from these pieces rather than quoting words themselves, and `ranked` runs one.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.papers.reading import Reader


def phrase(words: Iterable[str], prefix: bool = False) -> str:
    """Words as one quoted FTS5 phrase (`"kv cache"`, quotes doubled); `prefix` also matches longer last words."""
    quoted = '"' + " ".join(w.replace('"', '""') for w in words) + '"'
    return quoted + " *" if prefix else quoted


def in_columns(columns: Iterable[str], expression: str) -> str:
    """An expression limited to some FTS5 columns: `{title} : "kv"`, `{name title abstract} : (...)`."""
    return "{" + " ".join(columns) + "} : " + expression


def ranked(db: Reader, expression: str, limit: int) -> list[int]:
    """Rowids of the `limit` papers matching a MATCH expression built here, best (the index's bm25 rank) first."""
    sql = "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? ORDER BY rank LIMIT ?"
    return [int(r) for (r,) in db.execute(sql, [expression, limit])]
