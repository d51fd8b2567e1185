"""What search keeps per index file and version between queries: vocabulary, paper names, filter sets, acronyms.

This is a cache of the read-only paper index, rebuilt whenever the index changes; it holds nothing about users
(that is bot.state). Look-ups that read the whole corpus (titles, paper names, name parts, vectors, acronym pairs)
are kept from a process's second search of an index version on, or once warmed: a one-shot `icml-bot search` asks
the index for what its query needs instead (indexed reads), which is what makes it start as fast as sqlite-utils'
own CLI and answer its first query at 110,000 papers at once (docs/benchmarks.md). A server (keep_warm) reads them
for each new version of its index in a thread, while its searches answer that way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Container
from pathlib import Path
from typing import TYPE_CHECKING

from bot.papers import filter_sets, index, lookup, paper_names, people_table, search_tables
from bot.papers.connection import snapshot
from bot.papers.people_table import has_people as has_people
from bot.papers.reading import Error, IndexUnavailable, Reader, ReadOnly, has_table, read_only
from bot.papers.versions import IndexVersion as IndexVersion
from bot.papers.versions import version_of
from bot.search import typos
from bot.search.long_forms import AcronymTable, load_table, rows_for
from bot.search.matching import norm

# Numpy and the embedding model load when a query first needs meaning, not with search
if TYPE_CHECKING:
    from bot.papers.vectors import PaperVectors

log = logging.getLogger(__name__)
# A process's search of one index version from which whole-corpus look-ups are kept
KEEP_FROM_SEARCH = 2
# papers whose abstracts ranking keeps as it reads them (every shared list together is ~18,500 papers)
ABSTRACTS_IN_MEMORY = 30_000


class IndexCache:
    """Look-ups that would each cost a full read per query (names, acronym table, filter rowids) or many small
    reads (word frequencies), kept for one index version and shared by every thread's connection."""

    def __init__(self, papers: int, version: IndexVersion | None = None) -> None:
        self.papers = max(papers, 1)
        self.version = version
        self.vocab = typos.Vocabulary()
        self._lock = threading.Lock()
        # Per thread: what its connection read for queries before keeping
        self._local = threading.local()
        self._names: dict[str, list[tuple[int, str]]] | None = None
        self._acronyms: AcronymTable | None = None
        self._sets: dict[str, frozenset[int]] = {}
        self._venues: list[tuple[str | None, str, int]] | None = None
        self._scopes: dict[frozenset[tuple[str | None, str]], frozenset[int]] = {}
        self._titles: dict[int, bytes] | None = None
        # Filled as ranking reads them (abstracts())
        self._abstracts: dict[int, tuple[bytes, bytes]] = {}
        self._name_parts: frozenset[str] | None = None
        self._titles_table: bool | None = None
        self._name_keys: bool | None = None
        self._vectors: PaperVectors | None = None
        self._vectors_read = False
        self._people_checked = False
        # (acronym, long form): LongForms.spelled_out
        self.spelled_out: dict[tuple[str, str], float] = {}
        self.searches = 0
        # Whether to keep the whole-corpus look-ups (a second search or warming says so)
        self.whole = False
        # Whether a thread reads them (a server's new index): searches never wait for it
        self.warmed_apart = False

    def count_search(self) -> None:
        """One more search of this version: from the KEEP_FROM_SEARCH-th on, whole-corpus look-ups are kept (unless a
        thread is reading them: until it is done, searches go on reading what they need)."""
        self.searches += 1
        if self.searches >= KEEP_FROM_SEARCH and not self.warmed_apart:
            self.whole = True

    def load_whole(self, db: Reader) -> None:
        """Read every whole-corpus look-up now (titles, paper names, name parts, vectors, the acronym table), then
        keep them: a server's warm-up thread spends that time (docs/benchmarks.md), not a search."""
        from bot.papers import vectors

        names = paper_names.every_name(db)
        titles = {rowid: norm(title) for rowid, title in lookup.titles(db)}
        parts = people_table.name_parts(db) if has_people(db) else None
        read = vectors.read(db)
        acronyms = load_table(db)
        with self._lock:
            self._names = names
            self._titles, self._name_parts, self._people_checked = titles, parts, True
            self._vectors, self._vectors_read = read, True
            self._acronyms = acronyms
            self.whole = True

    def index_file(self) -> IndexVersion | None:
        """The index's file at this version, for a connection of another thread (None: an index in memory)."""
        version = self.version
        return None if version is None or version.path.startswith("memory:") else version

    def named(self, db: Reader, key: str) -> list[tuple[int, str]]:
        """(rowid, name as written) of the papers whose name has this letters-only key (names.name_key), in rowid
        order: once kept, a look-up in memory (a search asks it of each word and phrase); until then one indexed read
        of the index's name keys, or of an index built before them, every name."""
        if self.whole:
            return self._every_name(db).get(key, [])
        if self.name_keys(db):
            return paper_names.named(db, key)
        return paper_names.names_like(db, key)

    def name_keys(self, db: Reader) -> bool:
        """Whether the index keeps its paper names by key (search_tables.NAME_KEYS)."""
        if self._name_keys is None:
            self._name_keys = paper_names.has_name_keys(db)
        return self._name_keys

    def _every_name(self, db: Reader) -> dict[str, list[tuple[int, str]]]:
        """Paper names by their letters-only key → (rowid, name as written), loaded on first use once kept."""
        if self._names is None:
            with self._lock:
                if self._names is None:
                    self._names = paper_names.every_name(db)
        return self._names

    def titles(self, db: Reader) -> dict[int, bytes] | None:
        """Every title as ranking matches it (matching.norm), by rowid, loaded on first use once kept: ranking reads a
        few hundred titles per query, and a dictionary look-up beats reading and normalising them each time
        (docs/benchmarks.md). None: not kept yet (ranking reads the candidates' titles)."""
        if not self.whole:
            return None
        if self._titles is None:
            with self._lock:
                if self._titles is None:
                    self._titles = {rowid: norm(title) for rowid, title in lookup.titles(db)}
        return self._titles

    def vectors(self, db: Reader, among: list[int] | None = None) -> PaperVectors | None:
        """Every paper's meaning vector in one matrix, loaded on first use, or until kept those of the
        papers `among` only; None: the index has none (built before vectors: search is by words alone until
        `icml-bot index` runs again)."""
        from bot.papers import vectors

        if among is not None and not self.whole:
            return vectors.read(db, among)
        if not self._vectors_read:
            with self._lock:
                if not self._vectors_read:
                    self._vectors = vectors.read(db)
                    self._vectors_read = True
        return self._vectors

    def abstracts(self) -> dict[int, tuple[bytes, bytes]] | None:
        """Abstracts and author lists as ranking matches them (matching.norm), by rowid, kept as ranking reads them
        for an index of at most ABSTRACTS_IN_MEMORY papers: reading and normalising the few dozen abstracts a query
        scores was a share of every search worth saving (docs/benchmarks.md), and the papers near the top are read
        again and again.
        Filled as read, not all at once, so that the first search after a start pays nothing for it. None: a larger
        index, whose abstracts ranking reads each time."""
        return self._abstracts if self.papers <= ABSTRACTS_IN_MEMORY else None

    def name_parts(self, db: Reader) -> Container[str] | None:
        """Every author's given names and surnames (folded), loaded on first use once kept, so that telling whether a
        query word may be part of a name costs no statement (until then, one indexed read a word); None: the index
        keeps no people (built before people search)."""
        if not self.whole:
            return NameParts(db) if has_people(db) else None
        if not self._people_checked:
            with self._lock:
                if not self._people_checked:
                    if has_people(db):
                        self._name_parts = people_table.name_parts(db)
                    self._people_checked = True
        return self._name_parts

    def titles_table(self, db: Reader) -> bool:
        """Whether the index has its titles-only full-text table (an index built before it searches without)."""
        if self._titles_table is None:
            self._titles_table = has_table(db, search_tables.TITLES_FTS)
        return self._titles_table

    def rowids(self, db: Reader, what: str) -> frozenset[int]:
        """Rowids of papers with code (`code`) or with a status (`Oral`, ...), read once through their indexes."""
        found = self._sets.get(what)
        if found is None:
            found = filter_sets.with_code(db) if what == "code" else filter_sets.with_status(db, what)
            with self._lock:
                self._sets[what] = found
        return found

    def venues(self, db: Reader) -> list[tuple[str | None, str, int]]:
        """(venue, track, papers) of every venue and track the index holds; a paper without a track counts as main."""
        if self._venues is None:
            self._venues = [(r["venue"], r["track"], r["papers"]) for r in index.venue_counts(db)]
        return self._venues

    def scope_rowids(self, db: Reader, keys: frozenset[tuple[str | None, str]]) -> frozenset[int]:
        """Rowids of the papers of these (venue, track) pairs, read once per scope through the (venue, track) index."""
        found = self._scopes.get(keys)
        if found is None:
            rows: set[int] = set()
            for venue, track in keys:
                rows.update(filter_sets.of_venue_track(db, venue, track))
            found = frozenset(rows)
            with self._lock:
                self._scopes[keys] = found
        return found

    def acronyms(self, db: Reader) -> AcronymTable:
        """Built-in plus learned acronym pairs, both directions, loaded on first use once kept; until then read pair
        by pair as the query asks (acronyms.rows_for), once per connection."""
        if not self.whole:
            asked: tuple[Reader, AcronymTable] | None = getattr(self._local, "acronyms", None)
            if asked is None or asked[0] is not db:
                asked = self._local.acronyms = (db, rows_for(db))
            return asked[1]
        if self._acronyms is None:
            with self._lock:
                if self._acronyms is None:
                    self._acronyms = load_table(db)
        return self._acronyms


class NameParts:
    """Whether a folded word is some author's given name or surname, asked of the people table's indexes."""

    def __init__(self, db: Reader) -> None:
        self.db = db

    def __contains__(self, part: object) -> bool:
        return isinstance(part, str) and bool(part) and people_table.is_name_part(self.db, part)


_CACHES: dict[IndexVersion, IndexCache] = {}
_CACHES_LOCK = threading.Lock()
# index files this process serves (keep_warm): each new version is warmed in a thread
_SERVED: set[str] = set()


def index_cache(db: Reader) -> IndexCache:
    """The cache of this index file at its current version (older versions of the same file are dropped).

    Every search asks, so it costs one statement: a connection's file path is looked up once. A new version of a file
    this process serves (keep_warm) has its whole-corpus look-ups read in a thread; searches answer meanwhile."""
    cache, new = _cache_of(db)
    if new and cache.warmed_apart and cache.version is not None:
        threading.Thread(target=_warm_apart, args=[cache.version], name="warm-index-version", daemon=True).start()
    return cache


def _cache_of(db: Reader) -> tuple[IndexCache, bool]:
    """The cache of the index at its current version, and whether it is new (warmed_apart when the file is served)."""
    version = version_of(db)
    path, seq = version.path, version.seq
    with _CACHES_LOCK:
        cache = _CACHES.get(version)
        if cache is None:
            for old in [v for v in _CACHES if v.path == version.path]:
                del _CACHES[old]
            while len(_CACHES) >= 16:
                del _CACHES[next(iter(_CACHES))]
            cache = _CACHES[version] = IndexCache(seq, version)
            # searches answer as a first search does until it is read
            cache.warmed_apart = path in _SERVED
            return cache, True
    return cache, False


def keep_warm(db: Reader) -> IndexCache:
    """Say that this process serves the index `db` reads (a server, which searches it again and again): every new
    version of its file (a publish renamed over it, a refresh loaded into it) has its whole-corpus look-ups read in a
    thread of its own, while searches answer as a process's first search does. The current version's cache."""
    cache = index_cache(db)
    with _CACHES_LOCK:
        _SERVED.add(cache.version.path if cache.version else "")
    return cache


def warm_file(path: str | Path) -> None:
    """Read the whole-corpus look-ups of the index now at `path`, if this process serves it (keep_warm), in the
    caller's thread: the refresher calls it after loading, so no search has to."""
    try:
        conn = read_only(path)
    except (IndexUnavailable, Error) as exc:
        log.info("index not warmed: %s", exc)
        return
    try:
        with snapshot(ReadOnly(conn)) as db:  # (one version throughout)
            # read here, not in a thread of its own; a cache a search made has its thread
            cache, new = _cache_of(db)
            if new and cache.warmed_apart:
                cache.load_whole(db)
    finally:
        conn.close()


def _warm_apart(version: IndexVersion) -> None:
    """The warm-up thread of a new index version: its look-ups, if the file still holds that version."""
    try:
        conn = read_only(version.path)
    except (IndexUnavailable, Error) as exc:
        log.info("index not warmed: %s", exc)
        return
    try:
        with snapshot(ReadOnly(conn)) as db:
            with _CACHES_LOCK:
                cache = _CACHES.get(version)
            if cache is not None and index_cache(db) is cache and not cache.whole:
                cache.load_whole(db)
    except Exception:  # (a broken or vanished file: searches still answer, reading what they need)
        log.exception("index %s not warmed", version.path)
    finally:
        conn.close()
