"""Loading sources into the index in one transaction: each record mapped onto a paper by its keys, new papers given
short ids, rows written in batches, then twins merged and what search reads rebuilt."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.papers import schema, search_tables
from bot.papers.reconcile import merge_rows, reconcile

# Readers of the index (search) need neither the source readers and fetchers nor the embedding model
if TYPE_CHECKING:
    import sqlite_utils

    from bot.papers.corpus import Notice, Paper, Skip

# Paper fields the papers table does not hold
NOT_COLUMNS = ("source", "more_sources", "line", "keys", "preferred")
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
        # as written: FTS5 reads Schölkopf, not "u00f6lkopf"
        authors=json.dumps(paper.authors, ensure_ascii=False),
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
    from bot.papers import corpus

    started = time.perf_counter()
    files = corpus.plan(corpus.expand_sources(paths))
    with db.atomic():
        schema.ensure_schema(db)
        schema.unescape_json_columns(db)
        loader = _Loader(db)
        for path, companions in files:
            _load_file(loader, path, companions, progress, workers or os.cpu_count() or 1, official)
        _rebuild(db, loader.report)
    loader.report.seconds = time.perf_counter() - started
    return loader.report


def _load_file(
    loader: _Loader,
    path: Path,
    companions: tuple[Path, ...],
    progress: Callable[[str, int, int], None] | None,
    cores: int,
    official: bool,
) -> None:
    """One source file's records into the loader, and its line in the sources table."""
    from bot.papers import corpus
    from bot.papers.corpus import Notice, Skip

    size = path.stat().st_size
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(path.name, done, size)

    report = loader.report
    counts = (report.added, report.merged, len(report.skipped))
    records = 0
    # closing(): an error here stops the cleaning workers at once, not when the generator is collected
    with closing(corpus.read(path, tick, cores, companions, official)) as read:
        for record in read:
            records += 1
            if isinstance(record, Notice):
                report.notices.append(record)
            elif isinstance(record, Skip):
                report.skipped.append(record)
            else:
                loader.add(record)
    loader.flush()
    loader.db.table("sources").upsert(
        {
            "name": path.name,
            "path": str(path.resolve()),
            "records": records,
            "added": report.added - counts[0],
            "merged": report.merged - counts[1],
            "skipped": len(report.skipped) - counts[2],
            "indexed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        pk="name",
    )


def _rebuild(db: sqlite_utils.Database, report: Report) -> None:
    """After the sources: twins merged, full text and what search reads rebuilt, the load stamped."""
    from bot.papers import related, vectors

    db.table("papers").rebuild_fts()
    merged = reconcile(db)
    report.merged += merged
    report.added -= merged
    if merged:
        db.table("papers").rebuild_fts()
    search_tables.rebuild(db)
    vectors.rebuild(db)
    related.rebuild(db)
    db.table("meta").upsert(
        {"key": "last_indexed", "value": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, pk="key"
    )
    marked = db.execute("SELECT 1 FROM papers WHERE abstract_emphasis IS NULL LIMIT 1").fetchone()
    db.table("meta").upsert({"key": schema.PLAIN_ABSTRACTS, "value": "0" if marked else "1"}, pk="key")
    # Search's caches key on this too: two loads in one second share a stamp, and an edited abstract keeps its seq.
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('generation', '1') "
        "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )
    report.papers = db["papers"].count
