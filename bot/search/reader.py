"""The paper index as everyone reads it: one read-only SQLite connection per thread, for search, digests and Slack,
plus the few queries they need beyond search (similar, random, the distinctive words of a message)."""

from __future__ import annotations

import contextlib
import logging
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import search, text
from bot.papers import index, lookup
from bot.papers.connection import PerThread
from bot.papers.row import PaperRow
from bot.papers.venues import Scope
from bot.search import Result, SearchResponse, pasted, pinned, scope, topics, trends
from bot.search import query as ql
from bot.search.cache import keep_warm
from bot.search.people import People, PersonCard, person_card
from bot.search.turns import Turns

if TYPE_CHECKING:
    from bot.papers.connection import Database

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AuthorQuery:
    """What `/icml author <name>` (and `icml-bot author`) lists: the search for a person's papers, with their card;
    without a card, `common` says the name is a surname many share (author:<name> lists them all), else nobody has
    it and the search is for the words."""

    query: str
    card: PersonCard | None = None
    common: bool = False

    @property
    def coauthors(self) -> str:
        """`Co-authors: Ann One (3), Ben Two (1)`, as both edges show it."""
        listed = ", ".join(f"{name} ({n})" for name, n in self.card.coauthors) if self.card else ""
        return f"Co-authors: {listed or 'none listed'}"


# Every Papers of the process: searches take turns (bot.search.turns), /healthz's count does not
TURNS = Turns()

# Common words, six of them: the first search loads what ranking and fusion read (titles, names, people, the embedding
# model and the papers' vectors; how long that takes: docs/benchmarks.md), and, read as a description
# (bot.search.described), the model's synonym table, built once per process
WARM_QUERY = "learning from training data across many different tasks and domains"


class Papers:
    """Read access to the paper index for the digests, the listeners and the health check; safe to share between
    threads (each gets its own connection)."""

    def __init__(self, path: str | Path, venues: Scope | None = None) -> None:
        self.path = Path(path)
        # ICML_BOT_VENUES: what searches, similar papers and digests cover
        self.venues = venues or Scope()
        self.connections = PerThread(self.path)  # (bot.papers owns the connections)

    @property
    def db(self) -> Database:
        """This thread's read-only connection, to the file now at the path (bot.papers.connection.PerThread)."""
        return self.connections.db

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Database]:
        """One read transaction on this thread's connection (index.snapshot), in this search's turn."""
        with TURNS, index.snapshot(self.db) as db:
            yield db

    def search(self, query: str, limit: int = 5, offset: int = 0) -> SearchResponse:
        """Ranked results for a query (the search module does typos, acronyms and snippets)."""
        with self.snapshot() as db:
            return search.search(db, query, limit=limit, offset=offset, scope=self.venues)

    def warm(self) -> threading.Thread:
        """Search once in a thread, so that the first user's query does not wait for what search loads per index
        (titles, paper names, acronyms, people, the venues' papers: docs/benchmarks.md)."""
        thread = threading.Thread(target=self._warm, name="warm-index", daemon=True)
        thread.start()
        return thread

    def _warm(self) -> None:
        try:
            papers = self.db
            # A server searches again and again: its new indexes are warmed too
            with index.snapshot(papers):
                keep_warm(papers).load_whole(papers)
            # And what a search loads besides: the embedding model, the file's pages, the synonym table
            self.search(WARM_QUERY)
        # No index yet, or a broken one: the first query will say so to its user
        except Exception as exc:
            log.info("index not warmed: %s", exc)
        finally:
            self.connections.close()

    def person(self, name: str) -> PersonCard | None:
        """The author a name means, with their co-authors (for `/icml author`); of several people initials fit, the
        one with the most papers in the configured venues, as a search for the name finds."""
        with self.snapshot() as db:
            within = scope.in_scope(db, scope.resolve(db, ql.parse(""), self.venues))
            return person_card(db, text.valid_text(name), within=within)

    def author(self, name: str) -> AuthorQuery:
        """The search for a person's papers: theirs, a common surname's authors, or the words when nobody has it
        (`author attribution` may be a search for those words)."""
        card = self.person(name)
        if card is not None:
            return AuthorQuery(card.query, card)
        if self.is_common_surname(name):
            return AuthorQuery(f"author:{name}", common=True)
        return AuthorQuery(f"author {name}")

    def is_common_surname(self, name: str) -> bool:
        """Whether a name is a surname alone that many authors share (Zhang), which names no one person."""
        with self.snapshot() as db:
            return People(db).common_surname(text.valid_text(name), as_name=True) is not None

    def get(self, ref: str) -> PaperRow | None:
        """One paper by id, old id, OpenReview id or name."""
        with TURNS:
            return index.get_paper(self.db, text.valid_text(ref))

    def by_link(self, url: str) -> PaperRow | None:
        """The paper a pasted link names (OpenReview forum or pdf, its page on a conference site), as search reads
        links (search.pinned); None for a link to no indexed paper."""
        with self.snapshot() as db:
            found = pinned.linked_papers(db, (text.valid_text(url).strip(),))
            if not found:
                return None
            paper_id = lookup.id_at(db, next(iter(found)))
            return index.get_paper(db, paper_id) if paper_id else None

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

    def related(self, text: str, k: int = 5) -> pasted.Related:
        """Papers closest to a piece of text (a draft, a paragraph, a question), in the venues searched."""
        with self.snapshot() as db:
            within = scope.in_scope(db, scope.resolve(db, ql.parse(""), self.venues))
            return pasted.related(db, text, k, within=within)

    def random(self) -> PaperRow | None:
        """A paper picked at random (for `/icml random`)."""
        with self.snapshot() as db:
            rowids = scope.in_scope(db, scope.resolve(db, ql.parse(""), self.venues))
            if rowids is None:
                paper_id = lookup.random_id(db)
            else:
                paper_id = lookup.id_at(db, random.choice(sorted(rowids)) if rowids else None)
            return index.get_paper(db, paper_id) if paper_id else None

    def stats(self) -> dict[str, Any]:
        """What the index holds, and which of its venues a search covers unless it names its own."""
        with self.snapshot() as db:
            out = index.stats(db)
            searched = scope.label(db, scope.resolve(db, ql.parse(""), self.venues))
        out["searched"] = f"{searched} (ICML_BOT_VENUES: {self.venues.describe()})"
        return out

    def trend(self, topic: str) -> trends.Trend:
        """The topic's papers in every venue, as `<topic> venue:<venue>` totals them (search.trends; TrendError when
        the topic cannot be charted)."""
        with self.snapshot() as db:
            return trends.topic_trend(db, text.valid_text(topic))

    def count(self) -> int:
        """How many papers the index holds (for /healthz)."""
        return lookup.paper_count(self.db)

    def topic_queries(self, message_text: str) -> list[str]:
        """Queries for what a message (plain text) is about, most specific first (search.topics)."""
        with TURNS:
            return topics.topic_queries(self.db, message_text, self.count())
