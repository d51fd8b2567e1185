"""The index's people table as search asks it (bot.papers.search_tables.rebuild_people writes it): each author once,
keyed by their folded name, with their papers' rowids. Rows come back as (name, key, rowids as JSON), decoded by the
caller only for the people it keeps (a surname may have 1,600 bearers)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

from bot.papers.reading import Reader

# Name as first written, folded key (words by spaces), rowids as a JSON list
PersonRow = tuple[str, str, str]
_COLUMNS = "name, key, rowids"
# Initials and a surname: read through the people table's (last, first) index, only the surname's bearers whose
# first name starts with the initial (`Y. Wang`: 250 of the 1,600 Wangs at 110,000 papers).
INITIALS_SQL = "SELECT name, key, rowids FROM people WHERE last = ? AND first >= ? AND first < ?"
_NAME_PART_SQL = "SELECT EXISTS (SELECT 1 FROM people WHERE last = ?) OR EXISTS (SELECT 1 FROM people WHERE first = ?)"


def has_people(db: Reader) -> bool:
    """Whether the index keeps its people (one built before people search needs `icml-bot index` once)."""
    try:
        db.execute("SELECT 1 FROM people LIMIT 1")
    except sqlite3.OperationalError:
        return False
    return True


def _rows(db: Reader, where: str, args: Sequence[str]) -> list[PersonRow]:
    return [(n, k, r) for n, k, r in db.execute(f"SELECT {_COLUMNS} FROM people WHERE {where}", list(args))]


def with_keys(db: Reader, keys: Sequence[str]) -> list[PersonRow]:
    """The people with these folded names (keys)."""
    return _rows(db, f"key IN ({','.join('?' * len(keys))})", keys) if keys else []


def named(db: Reader, first: str, last: str) -> list[PersonRow]:
    """The people with this given name and surname (folded), whatever their middle names."""
    return _rows(db, "last = ? AND first = ?", [last, first])


def with_given_names(db: Reader, last: str, firsts: Sequence[str]) -> list[PersonRow]:
    """The people with this surname and any of these given names (folded)."""
    return _rows(db, f"last = ? AND first IN ({','.join('?' * len(firsts))})", [last, *firsts])


def with_surname(db: Reader, last: str) -> Iterator[PersonRow]:
    """The people with this surname (folded), read as the caller goes (it may stop early)."""
    yield from db.execute(f"SELECT {_COLUMNS} FROM people WHERE last = ?", [last])


def by_initial(db: Reader, last: str, initial: str) -> list[PersonRow]:
    """The people with this surname whose given name starts with the letter `initial` (folded)."""
    return [(n, k, r) for n, k, r in db.execute(INITIALS_SQL, [last, initial, chr(ord(initial) + 1)])]


def keys_where(db: Reader, column: str, value: str) -> list[str]:
    """The keys of the people whose given name (`column` "first") or surname ("last") is this folded word."""
    if column not in ("first", "last"):
        raise ValueError(f"no people column {column!r}")
    return [k for (k,) in db.execute(f"SELECT key FROM people WHERE {column} = ?", [value])]


def is_given_name(db: Reader, folded: str) -> bool:
    """Whether some author's given name is this (folded) word."""
    return db.execute("SELECT 1 FROM people WHERE first = ? LIMIT 1", [folded]).fetchone() is not None


def is_name_part(db: Reader, part: str) -> bool:
    """Whether some author's given name or surname is this (folded) word, asked of the table's indexes."""
    return bool(db.execute(_NAME_PART_SQL, [part, part]).fetchone()[0])


def name_parts(db: Reader) -> frozenset[str]:
    """Every author's given names and surnames (folded)."""
    rows = db.execute("SELECT last FROM people UNION SELECT first FROM people")
    return frozenset(part for (part,) in rows if part)


def most_published(db: Reader, last: str) -> tuple[str, int] | None:
    """Of the people with this surname, the one with the most papers (then by name), and how many bear it."""
    sql = "SELECT name, count(*) OVER () FROM people WHERE last = ? ORDER BY papers DESC, name LIMIT 1"
    row = db.execute(sql, [last]).fetchone()
    return None if row is None else (str(row[0]), int(row[1]))
