"""Papers read back from the index: one by any of its references, decoded into a PaperRow, and what the index holds
(papers per venue and track, sources, the last load)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from bot import text
from bot.papers.reading import Reader, has_table
from bot.papers.row import PaperRow

if TYPE_CHECKING:
    import sqlite_utils

JSON_COLUMNS = ("authors", "keywords", "sources", "institutions", "schedule", "abstract_emphasis")


def stats(db: sqlite_utils.Database) -> dict[str, Any]:
    """Papers, sources, venues (with tracks) and the time of the last load."""
    from bot.papers import vectors

    meta = {r["key"]: r["value"] for r in db["meta"].rows} if db["meta"].exists() else {}
    return {
        "venues": venue_counts(db),
        "papers": db["papers"].count if db["papers"].exists() else 0,
        "sources": list(db["sources"].rows) if db["sources"].exists() else [],
        "last_indexed": meta.get("last_indexed"),
        "vocabulary": db["vocab"].count if db["vocab"].exists() else 0,
        "meaning": vectors.status(db) if db["papers"].exists() else {"papers": 0, "model": None, "usable": False},
    }


def venue_counts(db: Reader) -> list[dict[str, Any]]:
    """Papers per venue and track, largest first (a paper without a track is main; an index older than venues:
    all its papers have none)."""
    if not has_table(db, "papers"):
        return []
    venue = "venue" if any(c[1] == "venue" for c in db.execute("PRAGMA table_info(papers)")) else "NULL"
    # Grouped as the (venue, track) index orders them, then merged (no track is main): grouping by an expression
    # sorted every paper in a temporary b-tree, which the first query waited for (docs/benchmarks.md).
    counts: dict[tuple[str | None, str], int] = {}
    for v, t, n in db.execute(f"SELECT {venue}, track, count(*) FROM papers GROUP BY {venue}, track"):
        key = (v, "main" if t is None else t)
        counts[key] = counts.get(key, 0) + n
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0] is not None, kv[0][0] or "", kv[0][1]))
    return [{"venue": v, "track": t, "papers": n} for (v, t), n in ordered]


def get_paper(db: Reader, ref: str) -> PaperRow | None:
    """A paper by id, merged-away id, source id (OpenReview) or exact name, case-insensitively."""
    ref = text.valid_text(ref).strip()  # lone surrogates (from JSON) cannot be bound
    if not ref:
        return None
    for sql in (
        "SELECT * FROM papers WHERE id = lower(?)",  # ids and aliases are lowercase
        "SELECT papers.* FROM aliases JOIN papers ON papers.id = aliases.paper_id WHERE alias = lower(?)",
        "SELECT * FROM papers WHERE source_id = ? COLLATE NOCASE",
        "SELECT * FROM papers WHERE name = ? COLLATE NOCASE ORDER BY seq LIMIT 1",
    ):
        cursor = db.execute(sql, [ref])
        row = cursor.fetchone()
        if row:
            return decode(dict(zip([c[0] for c in cursor.description], row, strict=True)))
    return None


def decode(row: dict[str, Any]) -> PaperRow:
    """A papers row with its JSON columns turned back into lists."""
    out = dict(row)
    for key in JSON_COLUMNS:
        value = out.get(key)
        if isinstance(value, str):
            # Most lists are empty: no parser for them
            out[key] = [] if value == "[]" else json.loads(value)
    out["title_derived"] = bool(out.get("title_derived"))
    return cast(PaperRow, out)


def paper_count(db: Reader) -> int:
    """How many papers the index holds."""
    return int(db.execute("SELECT count(*) FROM papers").fetchone()[0])


def id_at(db: Reader, rowid: int | None) -> str | None:
    """The id of the paper at this rowid (None: none there)."""
    row = db.execute("SELECT id FROM papers WHERE rowid = ?", [rowid]).fetchone()
    return None if row is None else str(row[0])


def rowid_of(db: Reader, paper_id: str) -> int | None:
    """The rowid of the paper with this exact id (None: no such paper)."""
    row = db.execute("SELECT rowid FROM papers WHERE id = ?", [paper_id]).fetchone()
    return None if row is None else int(row[0])


def random_id(db: Reader) -> str | None:
    """The id of a paper picked at random (None: the index is empty)."""
    row = db.execute("SELECT id FROM papers ORDER BY random() LIMIT 1").fetchone()
    return None if row is None else str(row[0])


def ids_with_status(db: Reader, status: str) -> list[str]:
    """The ids of the papers with this status (`Oral`, ...), through the status index."""
    return [str(pid) for (pid,) in db.execute("SELECT id FROM papers WHERE status = ?", [status]).fetchall()]


def titles(db: Reader) -> Iterator[tuple[int, str]]:
    """(rowid, title) of every paper, in rowid order."""
    yield from db.execute("SELECT rowid, title FROM papers")


def order_fields(db: Reader) -> list[dict[str, Any]]:
    """What a digest orders every paper by: id, seq, status, area, and `_rowid`, in rowid order."""
    cursor = db.execute("SELECT id, seq, status, area, rowid AS _rowid FROM papers")
    cols = [c[0] for c in cursor.description]
    return [dict(zip(cols, r, strict=True)) for r in cursor]


def last_indexed(db: Reader) -> str | None:
    """When the index was last loaded (meta.last_indexed, `%Y-%m-%dT%H:%M:%SZ`), None when it has no stamp."""
    row = db.execute("SELECT value FROM meta WHERE key = 'last_indexed'").fetchone()
    return None if row is None else str(row[0])


def source_names(db: Reader) -> list[str]:
    """The file names of the sources loaded into the index (its sources table)."""
    return [str(name) for (name,) in db.execute("SELECT name FROM sources")]
