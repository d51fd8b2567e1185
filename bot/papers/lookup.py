"""Papers read back from the index: one by any of its references, decoded into a PaperRow, and what the index holds
(papers per venue and track, sources, the last load)."""

from __future__ import annotations

import json
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
    # sorted every paper in a temporary b-tree, a fifth of a second at 110,000 papers for the first query to wait.
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
            out[key] = [] if value == "[]" else json.loads(value)  # most lists are empty: no parser for them
    out["title_derived"] = bool(out.get("title_derived"))
    return cast(PaperRow, out)
