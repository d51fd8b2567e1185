"""The paper index as everyone reads it: one read-only SQLite connection per thread, for search, digests and Slack,
plus the few queries they need beyond search (similar, random, the distinctive words of a message)."""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import random
import re
import threading
from pathlib import Path
from typing import Any

import sqlite_utils

from bot import search, text
from bot.papers import index
from bot.papers.row import PaperRow
from bot.papers.venues import Scope
from bot.search import Result, SearchResponse, scope
from bot.search import query as ql
from bot.search.people import People, PersonCard, person_card

log = logging.getLogger(__name__)


def _file_id(path: Path) -> tuple[int, int] | None:
    """Which file is at the path now (device, inode); None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


# Words that say nothing about a topic in a chat message, on top of index.STOPWORDS.
_CHAT_STOPWORDS = (
    "about any anyone anything know knows think thoughts seen see saw look looking find found papers related "
    "relevant recent recently interesting something someone please thanks thank hey hi hello just like really "
    "good great cool nice does did doing done want wants need needs could should would here there than then "
    "also still very much many some other others way ways thing things lot lots get got make made use used "
    "question idea ideas discussion thread what why how who which let lets maybe sure yes yeah okay ok one two "
    "icml bot"
)
CHAT_STOPWORDS = frozenset(_CHAT_STOPWORDS.split())
THREAD_QUERY_WORDS = 3  # single words, when no two topic words stand next to each other
FALLBACK_WORDS = 6  # last resort: each of the rarest words alone
COMMON_FRACTION = 0.2  # a word in more than this share of papers does not say what a thread is about
RARE_FRACTION = 0.0005  # nor does one in fewer (1 in 2,000: a name, a typo, chatter the papers happen to hold)
WARM_QUERY = "learning models with data"  # common words, three of them: the first search loads what ranking and
# fusion read (titles, names, people, the embedding model and the papers' vectors: ~1 s at 110,000 papers)
TOPIC_TEXT_CHARS = 4000  # a thread's topic is in its opening; a 40,000-character paste is read this far

# Punctuation that separates phrases: words on either side are not "next to each other".
_SEGMENT_BREAK = re.compile(r"[.,;:!?&()\[\]{}\"“”/\\|]+|\s[-–—]+\s")


class Papers:
    """Read access to the paper index for the digests, the listeners and the health check; safe to share between
    threads (each gets its own connection)."""

    def __init__(self, path: str | Path, venues: Scope | None = None) -> None:
        self.path = Path(path)
        self.venues = venues or Scope()  # ICML_BOT_VENUES: what searches, similar papers and digests cover
        self._local = threading.local()

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's read-only connection (SQLite connections belong to one thread), to the file now at the path.

        A new index renamed over the old one (build, copy, atomic rename) is a different file: the next query opens
        it, so replicas pick it up without a restart, and a query never sees a half-copied file."""
        db: sqlite_utils.Database | None = getattr(self._local, "db", None)
        if db is not None and (db.conn.in_transaction or self._local.file == _file_id(self.path)):
            return db
        while True:
            before = _file_id(self.path)
            fresh = index.connect(self.path, readonly=True)
            if _file_id(self.path) == before:  # not renamed while we opened it
                break
            fresh.conn.close()
        if db is not None:
            db.conn.close()
        self._local.db, self._local.file = fresh, before
        return fresh

    def snapshot(self) -> contextlib.AbstractContextManager[sqlite_utils.Database]:
        """One read transaction on this thread's connection (index.snapshot)."""
        return index.snapshot(self.db)

    def search(self, query: str, limit: int = 5, offset: int = 0) -> SearchResponse:
        """Ranked results for a query (the search module does typos, acronyms and snippets)."""
        with self.snapshot() as db:
            return search.search(db, query, limit=limit, offset=offset, scope=self.venues)

    def warm(self) -> threading.Thread:
        """Search once in a thread, so that the first user's query does not wait for what search loads per index
        (titles, paper names, acronyms, people, the venues' papers: ~0.4 s at 110,000 papers, 50 ms at 5,863)."""
        thread = threading.Thread(target=self._warm, name="warm-index", daemon=True)
        thread.start()
        return thread

    def _warm(self) -> None:
        try:
            self.search(WARM_QUERY)
        except Exception as exc:  # no index yet, or a broken one: the first query will say so to its user
            log.info("index not warmed: %s", exc)
        finally:
            db = getattr(self._local, "db", None)
            if db is not None:
                db.conn.close()

    def person(self, name: str) -> PersonCard | None:
        """The author a name means, with their co-authors (for `/icml author`); of several people initials fit, the
        one with the most papers in the configured venues, as a search for the name finds."""
        with self.snapshot() as db:
            within = scope.in_scope(db, scope.resolve(db, ql.parse(""), self.venues))
            return person_card(db, text.valid_text(name), within=within)

    def is_common_surname(self, name: str) -> bool:
        """Whether a name is a surname alone that many authors share (Zhang), which names no one person."""
        with self.snapshot() as db:
            return People(db).common_surname(text.valid_text(name), as_name=True) is not None

    def get(self, ref: str) -> PaperRow | None:
        """One paper by id, old id, OpenReview id or name."""
        return index.get_paper(self.db, text.valid_text(ref))

    def similar(self, paper_id: str, k: int = 5) -> list[Result]:
        """Papers like this one: search.similar, or a search for the title's distinctive words when it finds none."""
        paper_id = text.valid_text(paper_id)
        with self.snapshot() as db:
            found = search.similar(db, paper_id, k, keys=scope.resolve(db, ql.parse(""), self.venues).keys)
            if found:
                return found
            paper = self.get(paper_id)
            if paper is None:
                return []
            title = f"{paper.get('name') or ''}. {paper['title']}. {paper.get('headline') or ''}"
            for query in self.topic_queries(title):
                results = [r for r in self.search(query, limit=k + 1).results if r.paper["id"] != paper["id"]]
                if results:
                    return results[:k]
            return []

    def random(self) -> PaperRow | None:
        """A paper picked at random (for `/icml random`)."""
        with self.snapshot() as db:
            rowids = scope.in_scope(db, scope.resolve(db, ql.parse(""), self.venues))
            if rowids is None:
                row = db.execute("SELECT id FROM papers ORDER BY random() LIMIT 1").fetchone()
            else:
                pick = random.choice(sorted(rowids)) if rowids else None
                row = db.execute("SELECT id FROM papers WHERE rowid = ?", [pick]).fetchone()
            return index.get_paper(db, row[0]) if row else None

    def stats(self) -> dict[str, Any]:
        """What the index holds, and which of its venues a search covers unless it names its own."""
        with self.snapshot() as db:
            out = index.stats(db)
            searched = scope.label(db, scope.resolve(db, ql.parse(""), self.venues))
        out["searched"] = f"{searched} (ICML_BOT_VENUES: {self.venues.describe()})"
        return out

    def count(self) -> int:
        """How many papers the index holds (for /healthz)."""
        return int(self.db.execute("SELECT count(*) FROM papers").fetchone()[0])

    def topic_queries(self, message_text: str) -> list[str]:
        """Queries for what a message (plain text) is about, most specific first (the caller uses the first that finds).

        Words the papers never use (names, chatter) or use everywhere ("model") say nothing; of the rest, pairs
        written next to each other ("speculative decoding", "long contexts") name a topic best, ranked by how
        rare their words are in the papers: the two best pairs, the best pair, the three rarest words, then each of
        the rarest words alone.
        """
        segments = [text.tokenize(seg) for seg in _SEGMENT_BREAK.split((message_text or "")[:TOPIC_TEXT_CHARS])]
        candidates = list(
            dict.fromkeys(
                w
                for seg in segments
                for w in seg
                if len(w) > 2 and not w.isdigit() and w not in index.STOPWORDS and w not in CHAT_STOPWORDS
            )
        )
        if not candidates:
            return []
        marks = ",".join("?" * len(candidates))
        df = dict(self.db.execute(f"SELECT word, df FROM vocab WHERE word IN ({marks})", candidates).fetchall())
        n = max(self.count(), 1)
        low, high = max(1, n * RARE_FRACTION), max(n * COMMON_FRACTION, 2)
        idf = {w: math.log((n + 1) / df[w]) for w in candidates if low <= df.get(w, 0) <= high}
        pairs: dict[tuple[str, str], float] = {}
        for seg in segments:
            for a, b in itertools.pairwise(seg):
                if a in idf and b in idf and a != b:
                    pairs[(a, b)] = idf[a] + idf[b]
        best_pairs = sorted(pairs, key=lambda pair: -pairs[pair])
        singles = sorted(idf, key=lambda w: -idf[w])

        def written(words: set[str]) -> str:
            return " ".join(w for w in candidates if w in words)

        queries = []
        if len(best_pairs) >= 2:
            queries.append(written({*best_pairs[0], *best_pairs[1]}))
        if best_pairs:
            queries.append(written(set(best_pairs[0])))
        if singles:
            queries += [written(set(singles[:THREAD_QUERY_WORDS])), *singles[:FALLBACK_WORDS]]
        return list(dict.fromkeys(queries))
