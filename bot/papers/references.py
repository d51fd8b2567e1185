"""Papers by what names them outright: an id, a merged-away id, a source key (`id:<OpenReview id>`), or a link to
their page, PDF or code (as search pins them and `Papers.by_link` reads them)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.papers.reading import Reader

# Indexed (bot.papers.search_tables.ensure_search_indexes)
LINK_COLUMNS = ("site_url", "url", "code_url")
_REFERENCE_SQL = (
    "SELECT rowid FROM papers WHERE id = ? UNION ALL "
    "SELECT papers.rowid FROM aliases JOIN papers ON papers.id = aliases.paper_id WHERE alias = ? UNION ALL "
    "SELECT papers.rowid FROM paper_keys JOIN papers ON papers.id = paper_keys.paper_id WHERE key = ?"
)


def rowids_named(db: Reader, ref: str) -> list[int]:
    """Rowids of the papers `ref` names as an id, an old id or an OpenReview id: the id's paper first."""
    return [r for (r,) in db.execute(_REFERENCE_SQL, [ref.lower(), ref.lower(), f"id:{ref}"]).fetchall()]


def rowid_named(db: Reader, ref: str) -> int | None:
    """The first paper `ref` names (rowids_named), read no further."""
    row = db.execute(_REFERENCE_SQL, [ref.lower(), ref.lower(), f"id:{ref}"]).fetchone()
    return None if row is None else int(row[0])


def rowids_linked(db: Reader, forms: Sequence[str]) -> list[int]:
    """Rowids of the papers whose page, main link or code is one of these exact URLs."""
    marks = ",".join("?" * len(forms))
    sql = " UNION ".join(f"SELECT rowid FROM papers WHERE {column} IN ({marks})" for column in LINK_COLUMNS)
    return [r for (r,) in db.execute(sql, list(forms) * len(LINK_COLUMNS)).fetchall()]


def moved_ids(db: Reader) -> dict[str, str]:
    """Every merged-away id with the id of the paper it became (a few per merge)."""
    return {str(a): str(p) for a, p in db.execute("SELECT alias, paper_id FROM aliases").fetchall()}
