"""Full-text statements that search asks beside its engine (bot.papers.matching holds the engine's): how many papers
match an FTS5 expression, whether any does, and the best matches by bm25. Expressions come from bot.papers.fts, so
user text never reaches MATCH as syntax."""

from __future__ import annotations

from bot.papers import search_tables
from bot.papers.reading import Connection, Reader

COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)"


def count_matches(db: Reader | Connection, expression: str, cap: int) -> int:
    """Papers matching an FTS5 expression, counted up to `cap`."""
    return int(db.execute(COUNT_SQL, [expression, cap]).fetchone()[0])


def any_match(db: Reader, expression: str) -> bool:
    """Whether some paper matches an FTS5 expression."""
    sql = "SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT 1"
    return db.execute(sql, [expression]).fetchone() is not None


def best_matches(db: Reader, expression: str, limit: int) -> list[tuple[int, float]]:
    """(rowid, bm25 rank: lower is better) of the best `limit` matches, best first, by the index's column weights."""
    sql = "SELECT rowid, rank FROM papers_fts WHERE papers_fts MATCH ? ORDER BY rank LIMIT ?"
    return [(rowid, rank) for rowid, rank in db.execute(sql, [expression, limit]).fetchall()]


def title_matches(db: Reader, expression: str, limit: int, titles_only: bool) -> list[int]:
    """Rowids of the best `limit` matches of an expression on titles, short titles first; `titles_only`: through the
    titles-only table (fewer postings), which an index built before it lacks."""
    table = search_tables.TITLES_FTS if titles_only else "papers_fts"
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?"
    return [r for (r,) in db.execute(sql, [expression, limit]).fetchall()]
