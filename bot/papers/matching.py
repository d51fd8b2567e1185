"""The search engine's statements against the index: word frequencies, rowids matching an FTS5 expression, and
papers' columns by rowid. Expressions come from bot.papers.fts (quoted words), so user text never reaches MATCH as
syntax; bot.search decides what to ask, this module how SQLite is asked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.papers import search_tables
from bot.papers.lookup import decode
from bot.papers.reading import Reader
from bot.papers.row import PaperRow

WORDS_PER_STATEMENT = 500  # vocab words asked per IN (...) list
# Rowids per IN (...) list: under the 999 host parameters of older SQLite builds.
ROWIDS_PER_STATEMENT = 900

__all__ = [
    "any_status",
    "bm25_order",
    "columns_of",
    "count_all",
    "every_rowid",
    "matching_among",
    "matching_between",
    "matching_rowids",
    "papers_of",
    "texts_matching",
    "word_counts",
    "words_from",
]


def word_counts(db: Reader, words: list[str]) -> dict[str, int]:
    """Papers using each word, from the vocab table (a word no paper uses is left out)."""
    out: dict[str, int] = {}
    for i in range(0, len(words), WORDS_PER_STATEMENT):
        chunk = words[i : i + WORDS_PER_STATEMENT]
        marks = ",".join("?" * len(chunk))
        out.update(db.execute(f"SELECT word, df FROM vocab WHERE word IN ({marks})", chunk).fetchall())
    return out


def words_from(db: Reader, first: str) -> list[tuple[str, int]]:
    """Vocabulary words starting with one character, with how many papers use each (typo candidates)."""
    sql = "SELECT word, df FROM vocab WHERE word >= ? AND word < ?"
    return db.execute(sql, [first, chr(ord(first) + 1)]).fetchall()


def count_all(db: Reader, expression: str) -> int:
    """Every paper matching an FTS5 expression, counted without a cap."""
    return int(db.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?", [expression]).fetchone()[0])


def matching_rowids(
    db: Reader, expression: str, limit: int | None = None, after: int = 0, titles: bool = False
) -> Iterator[int]:
    """Rowids matching an expression in rowid order, after `after`, up to `limit` (None: all), read as the caller
    goes (it may stop early); `titles`: of the titles-only table (bot.papers.search_tables) instead of papers_fts."""
    table = search_tables.TITLES_FTS if titles else "papers_fts"
    if limit is None and not after:
        cursor = db.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", [expression])
    else:
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid > ? LIMIT ?"
        cursor = db.execute(sql, [expression, after, -1 if limit is None else limit])
    return (rowid for (rowid,) in cursor)


def matching_between(db: Reader, expression: str, first: int, last: int) -> set[int]:
    """The rowids from `first` to `last` that match an expression (every match between them read in rowid order)."""
    sql = "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? AND rowid BETWEEN ? AND ?"
    return {rowid for (rowid,) in db.execute(sql, [expression, first, last])}


def matching_among(db: Reader, expression: str, rowids: list[int]) -> set[int]:
    """Which of these rowids match an expression (FTS5 checks each one)."""
    sql = f"SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? AND rowid IN ({','.join('?' * len(rowids))})"
    return {rowid for (rowid,) in db.execute(sql, [expression, *rowids])}


def bm25_order(db: Reader, expression: str, limit: int) -> list[int]:
    """Up to `limit` rowids matching an expression, best first by FTS5's bm25 (every column alike)."""
    sql = "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? ORDER BY bm25(papers_fts) LIMIT ?"
    return [rowid for (rowid,) in db.execute(sql, [expression, limit])]


def texts_matching(db: Reader, expression: str) -> list[tuple[int, str, str]]:
    """(rowid, title, abstract) of every paper matching an expression."""
    sql = (
        "SELECT rowid, title, abstract FROM papers WHERE rowid IN "
        "(SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)"
    )
    return db.execute(sql, [expression]).fetchall()


def every_rowid(db: Reader) -> Iterator[int]:
    """Every paper's rowid in index order, read as the caller goes."""
    return (rowid for (rowid,) in db.execute("SELECT rowid FROM papers ORDER BY rowid"))


def any_status(db: Reader) -> bool:
    """Whether any paper has an oral/spotlight/poster status (an index of a list without them has none)."""
    return db.execute("SELECT 1 FROM papers WHERE status IS NOT NULL LIMIT 1").fetchone() is not None


def columns_of(db: Reader, columns: str, rowids: list[int]) -> dict[int, tuple[Any, ...]]:
    """Some columns of some papers by rowid, in chunks SQLite accepts (the row tuples follow `columns`)."""
    out: dict[int, tuple[Any, ...]] = {}
    for i in range(0, len(rowids), ROWIDS_PER_STATEMENT):
        chunk = rowids[i : i + ROWIDS_PER_STATEMENT]
        sql = f"SELECT rowid, {columns} FROM papers WHERE rowid IN ({','.join('?' * len(chunk))})"
        for row in db.execute(sql, chunk):
            out[row[0]] = row[1:]
    return out


def papers_of(db: Reader, rowids: list[int]) -> dict[int, PaperRow]:
    """Full decoded paper rows by rowid (only for a page shown: abstracts are long)."""
    if not rowids:
        return {}
    cursor = db.execute(f"SELECT rowid AS _rowid, * FROM papers WHERE rowid IN ({','.join('?' * len(rowids))})", rowids)
    cols = [c[0] for c in cursor.description]
    return {v[0]: decode(dict(zip(cols[1:], v[1:], strict=True))) for v in cursor.fetchall()}
