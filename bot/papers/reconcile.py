"""Twins merged after a load: an untitled paper (a seed abstract) and the same work from a titled list, matched
on content, become one paper; the merged-away id stays an alias."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rapidfuzz import fuzz

from bot import text
from bot.papers import fts
from bot.text.stopwords import TOO_COMMON

if TYPE_CHECKING:
    import sqlite_utils

# Words too common to identify a paper when looking for its twin in another source.
STOPWORDS = TOO_COMMON
# Content match thresholds (rapidfuzz token_sort_ratio on plain abstracts), measured on the seed abstracts against
# their revised versions in icml2026.jsonl: twins score 70-100, the closest different papers below 55.
TWIN_SIMILARITY = 72
TWIN_SIMILARITY_WITH_NAME = 55


def merge_rows(primary: dict[str, Any], secondary: dict[str, Any], keep: dict[str, Any]) -> dict[str, Any]:
    """One row for two records of the same paper: primary's fields, secondary's where primary has none, keep's id."""
    merged = {k: primary[k] if primary[k] not in (None, "", "[]") else secondary[k] for k in primary}
    merged["id"], merged["seq"] = keep["id"], keep["seq"]
    marked = primary if primary["abstract"] not in (None, "") else secondary
    # Spans belong to the abstract they mark
    merged["abstract_emphasis"] = marked.get("abstract_emphasis")
    merged["sources"] = json.dumps(sorted(set(json.loads(primary["sources"])) | set(json.loads(secondary["sources"]))))
    return merged


def reconcile(db: sqlite_utils.Database) -> int:
    """Merge untitled papers (seed abstracts) into their twin from a titled list, matched on content.

    Returns how many twins were merged. Two papers merge only when their abstracts are close, or fairly close and the
    untitled paper's name appears in the other's title.
    """
    untitled = list(db.query("SELECT * FROM papers WHERE title_derived = 1 ORDER BY seq"))
    merged = 0
    for paper in untitled:
        if not db.execute("SELECT 1 FROM papers WHERE id = ?", [paper["id"]]).fetchone():
            continue  # already merged into another paper in this pass
        twin = find_twin(db, paper)
        if twin is None:
            continue
        keep, gone = (paper, twin) if paper["seq"] < twin["seq"] else (twin, paper)
        db.table("papers").delete(gone["id"])
        db.table("papers").upsert(merge_rows(twin, paper, keep=keep), pk="id")
        db.execute("UPDATE paper_keys SET paper_id = ? WHERE paper_id = ?", [keep["id"], gone["id"]])
        db.execute("UPDATE aliases SET paper_id = ? WHERE paper_id = ?", [keep["id"], gone["id"]])
        db.table("aliases").upsert({"alias": gone["id"], "paper_id": keep["id"]}, pk="alias")
        merged += 1
    return merged


def find_twin(db: sqlite_utils.Database, paper: dict[str, Any]) -> dict[str, Any] | None:
    """The other paper that is the same work as this untitled one, or None."""
    mine = text.tokenize(paper["abstract"])
    words = [w for w in dict.fromkeys(mine) if w not in STOPWORDS and len(w) > 2]
    if not words:
        return None
    query = " OR ".join(fts.phrase((w,)) for w in words[:40])
    candidates = db.query(
        "SELECT papers.* FROM papers_fts JOIN papers ON papers.rowid = papers_fts.rowid "
        "WHERE papers_fts MATCH ? AND papers.id != ? ORDER BY papers_fts.rank LIMIT 8",
        [query, paper["id"]],
    )
    mine_text = " ".join(mine)
    name = text.normalize_title(paper["name"] or "")
    best, best_score = None, 0.0
    for other in candidates:
        if not same_venue(paper, other):
            continue  # a workshop version, or another year's paper, is another paper
        score = fuzz.token_sort_ratio(mine_text, " ".join(text.tokenize(other["abstract"])))
        # a name of no word names nothing
        named = bool(name) and name in text.normalize_title(other["title"])
        if (score >= TWIN_SIMILARITY or (named and score >= TWIN_SIMILARITY_WITH_NAME)) and score > best_score:
            best, best_score = other, score
    return best


def same_venue(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two rows may be one paper: the same track (none counts as main) and venue (when both know it)."""
    tracks = {(row.get("track") or "main").lower() for row in (a, b)}
    return len(tracks) == 1 and (not a.get("venue") or not b.get("venue") or a["venue"] == b["venue"])
