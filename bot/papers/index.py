"""The paper index: SQLite schema, loading and merging sources in one transaction, reading papers back (what search
reads beside the papers is rebuilt by bot.papers.search_tables)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rapidfuzz import fuzz

from bot import text
from bot.papers import fts, reading, search_tables
from bot.papers.reading import IndexUnavailable as IndexUnavailable  # (raised by connect: callers catch it as index's)
from bot.papers.reading import Reader, has_table
from bot.papers.row import PaperRow
from bot.papers.search_tables import FTS_TOKENIZE
from bot.text.stopwords import TOO_COMMON

if TYPE_CHECKING:  # readers of the index (search) need neither the source readers and fetchers nor the embedding model
    import sqlite_utils  # (nor sqlite-utils: bot.papers.reading)

    from bot.papers.corpus import Notice, Paper, Skip

SCHEMA_VERSION = 3  # 3: abstracts as plain text and emphasis spans (2 stored Slack mrkdwn): rebuild to show them
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
PLAIN_ABSTRACTS = "plain_abstracts"  # meta key: "1" once every abstract is plain text with its emphasis apart
STORED_MARKUP = (
    "abstracts in {path} were indexed by an older icml-bot as Slack markup (*bold*, _italic_); load its sources "
    "again with `icml-bot index` (and `icml-bot fetch`) to store plain text"
)
NOT_COLUMNS = ("source", "more_sources", "line", "keys", "preferred")  # Paper fields the papers table does not hold
JSON_COLUMNS = ("authors", "keywords", "sources", "institutions", "schedule", "abstract_emphasis")
FTS_COLUMNS = ("name", "title", "abstract", "authors")
# Words too common to identify a paper when looking for its twin in another source.
STOPWORDS = TOO_COMMON
# Content match thresholds (rapidfuzz token_sort_ratio on plain abstracts), measured on the seed abstracts against
# their revised versions in icml2026.jsonl: twins score 70-100, the closest different papers below 55.
TWIN_SIMILARITY = 72
TWIN_SIMILARITY_WITH_NAME = 55
ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


@dataclass
class Report:
    """What one `index` run did, for the CLI and for tests."""

    added: int = 0
    merged: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[Skip] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)  # about records that were indexed
    papers: int = 0
    seconds: float = 0.0

    def skip_reasons(self) -> Counter[str]:
        """How many records were skipped for each reason."""
        return Counter(s.reason for s in self.skipped)

    def notice_reasons(self) -> Counter[str]:
        """How many indexed records each notice is about."""
        return Counter(n.reason for n in self.notices)


@contextmanager
def removed_if_failed(path: Path, fresh: bool) -> Iterator[None]:
    """Remove a new index file (and its WAL) when the load that created it fails: no empty index is left behind."""
    try:
        yield
    except BaseException:
        if fresh:
            for leftover in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
                leftover.unlink(missing_ok=True)
        raise


def connect(path: str | Path, readonly: bool = False) -> sqlite_utils.Database:
    """Open the index (WAL, one connection per thread); read-only connections never create a file."""
    import sqlite_utils  # (readers that need SQL only open reading.read_only, without it)

    path = Path(path)
    if readonly:
        conn = reading.read_only(path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA busy_timeout={reading.BUSY_TIMEOUT_MS}")
    return sqlite_utils.Database(conn, execute_plugins=False)  # (the index uses no plugin: finding them was ~0.03 s)


AnyReader = TypeVar("AnyReader", bound=Reader)


@contextmanager
def snapshot(db: AnyReader) -> Iterator[AnyReader]:
    """One read transaction: every query inside sees the same version of the index, even while it is rebuilt, and
    SQLite takes its locks once instead of once per statement. A transaction already open is the caller's."""
    if db.conn.in_transaction:
        yield db
        return
    db.conn.execute("BEGIN")
    try:
        yield db
    finally:
        db.conn.commit()  # nothing was written: this ends the read (and does nothing if it has ended)


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


def make_id(key: str, taken: Callable[[str], bool]) -> str:
    """A short, typeable, deterministic id from a record's key; longer only when a different paper holds it."""
    n = int.from_bytes(hashlib.sha1(key.encode()).digest(), "big")
    letters = ID_ALPHABET[10:]
    chars = [letters[n % len(letters)]]  # ids start with a letter so they never look like a number
    n //= len(letters)
    while len(chars) < 16:
        chars.append(ID_ALPHABET[n % len(ID_ALPHABET)])
        n //= len(ID_ALPHABET)
    digest = "".join(chars)
    for length in range(6, len(digest) + 1):
        if not taken(digest[:length]):
            return digest[:length]
    raise RuntimeError(f"no free id for {key!r}")


class _Loader:
    """One load: streams records, maps each onto a paper by its keys, and writes rows in batches."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self.report = Report()
        self.pending: dict[str, dict[str, Any]] = {}
        self.pending_keys: dict[str, str] = {}
        row = next(db.query("SELECT COALESCE(MAX(seq), 0) AS m FROM papers"))
        self.seq = int(row["m"])

    def lookup(self, keys: list[str]) -> str | None:
        for key in keys:
            if key in self.pending_keys:
                return self.pending_keys[key]
        marks = ", ".join("?" * len(keys))
        found = dict(self.db.execute(f"SELECT key, paper_id FROM paper_keys WHERE key IN ({marks})", keys).fetchall())
        return next((found[key] for key in keys if key in found), None)

    def row(self, paper_id: str) -> dict[str, Any]:
        if paper_id in self.pending:
            return self.pending[paper_id]
        return self.db.table("papers").get(paper_id)

    def taken(self, candidate: str) -> bool:
        return candidate in self.pending or bool(
            self.db.execute(
                "SELECT 1 FROM papers WHERE id = ? UNION ALL SELECT 1 FROM aliases WHERE alias = ?",
                [candidate, candidate],
            ).fetchone()
        )

    def add(self, paper: Paper) -> None:
        keys = paper.keys
        found = self.lookup(keys)
        if found is None:
            self.seq += 1
            new = to_row(paper, make_id(keys[0], self.taken), self.seq)
            self.pending[new["id"]] = new
            self.report.added += 1
            paper_id = new["id"]
        else:
            old = self.row(found)
            new = combine(old, paper)
            if new == old:
                self.report.unchanged += 1
            else:
                self.pending[found] = new
                if paper.source in json.loads(old["sources"]):
                    self.report.updated += 1
                else:
                    self.report.merged += 1
            paper_id = found
        for key in keys:
            self.pending_keys.setdefault(key, paper_id)
        if len(self.pending) >= 1000:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.db.table("papers").upsert_all(self.pending.values(), pk="id")
        if self.pending_keys:
            self.db.table("paper_keys").insert_all(
                ({"key": k, "paper_id": v} for k, v in self.pending_keys.items()), pk="key", ignore=True
            )
        self.pending.clear()
        self.pending_keys.clear()


def to_row(paper: Paper, paper_id: str, seq: int) -> dict[str, Any]:
    """The papers-table row for a new paper."""
    row = {f.name: getattr(paper, f.name) for f in fields(paper) if f.name not in NOT_COLUMNS}
    row.update(
        id=paper_id,
        seq=seq,
        title_derived=int(paper.title_derived),
        authors=json.dumps(paper.authors, ensure_ascii=False),  # as written: FTS5 reads Schölkopf, not "u00f6lkopf"
        keywords=json.dumps(paper.keywords, ensure_ascii=False),
        institutions=json.dumps(paper.institutions, ensure_ascii=False),
        schedule=json.dumps(paper.schedule, ensure_ascii=False),
        abstract_emphasis=json.dumps(paper.abstract_emphasis),
        sources=json.dumps(sources_of(paper)),
    )
    return row


def sources_of(paper: Paper) -> list[str]:
    """The files a record came from, as the `sources` column lists them."""
    return sorted({paper.source, *paper.more_sources})


def combine(old: dict[str, Any], paper: Paper) -> dict[str, Any]:
    """Merge a record into an existing row: a real title beats a derived one, an official source (`icml-bot fetch`,
    raw downloads) beats a third-party list, and the other source fills the gaps."""
    incoming = to_row(paper, old["id"], old["seq"])
    if json.loads(old["sources"]) == sources_of(paper):
        return incoming  # the same source loaded again: its new version replaces the old
    if (old["title_derived"] and not paper.title_derived) or paper.preferred:
        return merge_rows(incoming, old, keep=old)
    return merge_rows(old, incoming, keep=old)


def merge_rows(primary: dict[str, Any], secondary: dict[str, Any], keep: dict[str, Any]) -> dict[str, Any]:
    """One row for two records of the same paper: primary's fields, secondary's where primary has none, keep's id."""
    merged = {k: primary[k] if primary[k] not in (None, "", "[]") else secondary[k] for k in primary}
    merged["id"], merged["seq"] = keep["id"], keep["seq"]
    marked = primary if primary["abstract"] not in (None, "") else secondary
    merged["abstract_emphasis"] = marked.get("abstract_emphasis")  # (spans belong to the abstract they mark)
    merged["sources"] = json.dumps(sorted(set(json.loads(primary["sources"])) | set(json.loads(secondary["sources"]))))
    return merged


def load(
    db: sqlite_utils.Database,
    paths: Iterable[str | Path],
    progress: Callable[[str, int, int], None] | None = None,
    workers: int | None = None,
    official: bool = False,
) -> Report:
    """Load sources into the index in one transaction: readers see the old index or the new one, never half.

    A malformed source raises SourceError and leaves the index exactly as it was. `official`: the paths are the
    official lists `icml-bot fetch` wrote, whose records win a merge (any other list only fills gaps).
    """
    from bot.papers import corpus, related, vectors
    from bot.papers.corpus import Notice, Skip

    started = time.perf_counter()
    files = corpus.plan(corpus.expand_sources(paths))
    with db.atomic():
        ensure_schema(db)
        unescape_json_columns(db)
        loader = _Loader(db)
        for path, companions in files:
            size = path.stat().st_size
            done = 0

            def tick(n: int, path: Path = path, size: int = size) -> None:
                nonlocal done
                done += n
                if progress:
                    progress(path.name, done, size)

            counts = (loader.report.added, loader.report.merged, len(loader.report.skipped))
            records = 0
            # closing(): an error here stops the cleaning workers at once, not when the generator is collected
            cores = workers or os.cpu_count() or 1
            with closing(corpus.read(path, tick, cores, companions, official)) as read:
                for record in read:
                    records += 1
                    if isinstance(record, Notice):
                        loader.report.notices.append(record)
                    elif isinstance(record, Skip):
                        loader.report.skipped.append(record)
                    else:
                        loader.add(record)
            loader.flush()
            db.table("sources").upsert(
                {
                    "name": path.name,
                    "path": str(path.resolve()),
                    "records": records,
                    "added": loader.report.added - counts[0],
                    "merged": loader.report.merged - counts[1],
                    "skipped": len(loader.report.skipped) - counts[2],
                    "indexed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                },
                pk="name",
            )
        db.table("papers").rebuild_fts()
        merged = reconcile(db)
        loader.report.merged += merged
        loader.report.added -= merged
        if merged:
            db.table("papers").rebuild_fts()
        search_tables.rebuild(db)
        vectors.rebuild(db)
        related.rebuild(db)
        db.table("meta").upsert(
            {"key": "last_indexed", "value": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, pk="key"
        )
        marked = db.execute("SELECT 1 FROM papers WHERE abstract_emphasis IS NULL LIMIT 1").fetchone()
        db.table("meta").upsert({"key": PLAIN_ABSTRACTS, "value": "0" if marked else "1"}, pk="key")
        # Search's caches key on this too: two loads in one second share a stamp, and an edited abstract keeps its seq.
        db.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        loader.report.papers = db["papers"].count
    loader.report.seconds = time.perf_counter() - started
    return loader.report


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
        named = bool(name) and name in text.normalize_title(other["title"])  # (a name of no word names nothing)
        if (score >= TWIN_SIMILARITY or (named and score >= TWIN_SIMILARITY_WITH_NAME)) and score > best_score:
            best, best_score = other, score
    return best


def same_venue(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two rows may be one paper: the same track (none counts as main) and venue (when both know it)."""
    tracks = {(row.get("track") or "main").lower() for row in (a, b)}
    return len(tracks) == 1 and (not a.get("venue") or not b.get("venue") or a["venue"] == b["venue"])


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
