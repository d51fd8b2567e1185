"""The index's tables: created on first use, an older index brought up to date, and whether its abstracts are
still the Slack markup older versions stored."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bot.papers.reading import Reader, has_table
from bot.papers.search_tables import FTS_TOKENIZE

if TYPE_CHECKING:
    import sqlite_utils

# 3: abstracts as plain text and emphasis spans (2 stored Slack mrkdwn): rebuild to show them
SCHEMA_VERSION = 3
# Columns added after the first release, with their types: an older index gains them on its next load.
LATER_COLUMNS: dict[str, type] = {
    "venue": str,
    "institutions": str,
    "site_url": str,
    "tldr": str,
    "bibtex": str,
    "license": str,
    "schedule": str,
    "room": str,
    "poster_position": str,
    "abstract_emphasis": str,
    "dataset_url": str,
}
# Meta key: "1" once every abstract is plain text with its emphasis apart
PLAIN_ABSTRACTS = "plain_abstracts"
STORED_MARKUP = (
    "abstracts in {path} were indexed by an older icml-bot as Slack markup (*bold*, _italic_); load its sources "
    "again with `icml-bot index` (and `icml-bot fetch`) to store plain text"
)
FTS_COLUMNS = ("name", "title", "abstract", "authors")


def ensure_schema(db: sqlite_utils.Database) -> None:
    """Create the tables on first use; rebuildable paper tables only, never what users create (see state.py)."""
    if not db["papers"].exists():
        db.table("papers").create(
            {
                "id": str,
                "seq": int,
                "name": str,
                "title": str,
                "title_derived": int,
                "headline": str,
                "abstract": str,
                "authors": str,
                "url": str,
                "pdf_url": str,
                "code_url": str,
                "status": str,
                "session": str,
                "area": str,
                "keywords": str,
                "conference": str,
                "year": int,
                "track": str,
                "sources": str,
                "source_id": str,
                **LATER_COLUMNS,
            },
            pk="id",
        )
        db.table("papers").create_index(["seq"], unique=True)
        db.table("papers").create_index(["name"])
    if not db["paper_keys"].exists():
        db.table("paper_keys").create({"key": str, "paper_id": str}, pk="key")
        db.table("paper_keys").create_index(["paper_id"])
    if not db["aliases"].exists():
        db.table("aliases").create({"alias": str, "paper_id": str}, pk="alias")
    if not db["vocab"].exists():
        db.table("vocab").create({"word": str, "df": int}, pk="word")
    if not db["sources"].exists():
        db.table("sources").create(
            {"name": str, "path": str, "records": int, "added": int, "merged": int, "skipped": int, "indexed_at": str},
            pk="name",
        )
    if not db["meta"].exists():
        db.table("meta").create({"key": str, "value": str}, pk="key")
    if not db["papers_fts"].exists():
        db.table("papers").enable_fts(list(FTS_COLUMNS), fts_version="FTS5", tokenize=FTS_TOKENIZE)
        # Name and title far above abstract; authors between.
        db.execute("INSERT INTO papers_fts(papers_fts, rank) VALUES('rank', 'bm25(10.0, 6.0, 1.0, 2.0)')")
    add_later_columns(db)
    db.table("meta").upsert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")


def unescape_json_columns(db: sqlite_utils.Database) -> None:
    """Rewrite lists stored with \\u escapes (by versions before 2026-12) as written, so that the full-text index, which
    load() rebuilds, finds accented names (`author:Schölkopf`)."""
    columns = ("authors", "keywords", "institutions")
    escaped = " OR ".join(f"instr({c}, '\\u') > 0" for c in columns)
    rows = db.execute(f"SELECT rowid, {', '.join(columns)} FROM papers WHERE {escaped}").fetchall()
    for rowid, *values in rows:
        written = [json.dumps(json.loads(v), ensure_ascii=False) if v else v for v in values]
        db.execute(f"UPDATE papers SET {', '.join(f'{c} = ?' for c in columns)} WHERE rowid = ?", [*written, rowid])


def stores_markup(db: Reader) -> bool:
    """Whether some abstracts are Slack mrkdwn, as versions before plain text stored them: the shell and --json would
    show that markup until the sources are loaded again."""
    if not has_table(db, "meta") or db.execute("SELECT 1 FROM papers LIMIT 1").fetchone() is None:
        return False
    row = db.execute("SELECT value FROM meta WHERE key = ?", [PLAIN_ABSTRACTS]).fetchone()
    return row is None or row[0] != "1"


def add_later_columns(db: sqlite_utils.Database) -> None:
    """Give an index built by an older version the newer columns, so it keeps working without a rebuild."""
    have = set(db["papers"].columns_dict)
    for name, kind in LATER_COLUMNS.items():
        if name not in have:
            db.table("papers").add_column(name, kind)
    if "venue" not in have:  # what the index already knows: conference and year
        db.execute(
            "UPDATE papers SET venue = lower(replace(conference, ' ', '')) || year "
            "WHERE conference IS NOT NULL AND year IS NOT NULL"
        )
