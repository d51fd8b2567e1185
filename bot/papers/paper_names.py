"""Papers by name (HiDe, REAL): their names by letters-only key (bot.text.names.name_key), as search pins them."""

from __future__ import annotations

from bot.papers import search_tables
from bot.papers.reading import Reader, has_table
from bot.text.names import name_key

_NAMED_SQL = (
    f"SELECT p.rowid, p.name FROM {search_tables.NAME_KEYS} AS k JOIN papers AS p ON p.rowid = k.paper "
    "WHERE k.key = ? ORDER BY k.paper"
)


def has_name_keys(db: Reader) -> bool:
    """Whether the index keeps its paper names by key (search_tables.NAME_KEYS)."""
    return has_table(db, search_tables.NAME_KEYS)


def named(db: Reader, key: str) -> list[tuple[int, str]]:
    """(rowid, name as written) of the papers whose name has this key, in rowid order: one indexed read."""
    return [(rowid, name) for rowid, name in db.execute(_NAMED_SQL, [key])]


def names_like(db: Reader, key: str) -> list[tuple[int, str]]:
    """The papers named `key` (matching.name_key), without every name in memory: SQL keeps the names holding the key's
    characters in order (LIKE folds ASCII case; a name with other characters, which NFKC may change, is always kept),
    then the key decides."""
    if not key:
        return []
    like = "%" + "%".join(key) + "%"  # (a key is letters and digits: nothing to escape)
    # The name index: no table
    sql = "SELECT rowid, name FROM papers WHERE name LIKE ? OR name GLOB '*[^ -~]*'"
    return sorted((rowid, name) for rowid, name in db.execute(sql, [like]) if name_key(name) == key)


def every_name(db: Reader) -> dict[str, list[tuple[int, str]]]:
    """Paper names by their letters-only key → (rowid, name as written), in rowid order. Plain pairs, not
    NamedTuples: a large index holds ~70,000 of them."""
    names: dict[str, list[tuple[int, str]]] = {}
    for rowid, name in db.execute("SELECT rowid, name FROM papers WHERE name IS NOT NULL"):
        key = name_key(name)
        if key:
            names.setdefault(key, []).append((rowid, name))
    return names
