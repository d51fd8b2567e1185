"""Papers related to pasted text (a draft abstract, a reviewer's paragraph, a question in a thread): long text as a
first-class query. No Slack here.

Search reads a query's first 500 characters and 32 terms, and prefers papers holding every word: right for a topic,
wrong for a paragraph, whose opening may be chatter and whose words no paper holds all of. Here:
1. The text, cut at `text_chars`, becomes its topic words, weighed by how often it says them and how rare they are in
   the index (BM25's idf, from the `vocab` table); words sharing a stem are one term, chatter and the boilerplate of
   scientific prose are dropped (bot.papers.related.GENERIC, CHAT_WORDS).
2. Candidates: FTS5's bm25 over the strongest terms OR'd, the index's own column weights (name and title above the
   abstract). Of those, only the rarest whose papers add up to `postings` are asked: bounded work at any size, and
   the rare words are the ones that tell a paper apart.
3. Order: that bm25 scaled to the best candidate's, plus `meaning` times the cosine of the text's meaning vector to
   each candidate's (bot.search.meaning). Pasted sentences of an abstract put their paper first; the rest are its
   neighbours by the same words and meaning.
Each result says why, as search's `matched` entries: the terms its title and abstract share with the text (two
adjacent ones as a phrase), strongest first, and its closeness in meaning (title:kv cache, abstract:eviction,
meaning:0.81).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.papers import fts, index
from bot.papers.fulltext import best_matches
from bot.papers.matching import columns_of, papers_of
from bot.papers.reading import Reader
from bot.papers.related import GENERIC
from bot.papers.vocabulary import document_frequencies
from bot.search import meaning
from bot.search.cache import index_cache
from bot.search.groups import TermGroup
from bot.search.matching import Alternative, counter, norm
from bot.search.results import MAX_LIMIT, Result
from bot.search.scoring import idf
from bot.search.snippets import Highlighter, make_snippet
from bot.text.stopwords import CHAT_WORDS
from bot.text.words import WORD_RE, stem, valid_text


@dataclass(frozen=True)
class Settings:
    """The numbers that bound and order related(): bench/quality/related.py reports what they give."""

    # Of a pasted text (Slack allows 40,000), the opening read: an abstract is ~1,500
    text_chars: int = 6_000
    terms: int = 24  # strongest terms asked of FTS5
    postings: int = 5_000  # ...while their papers add up to this (search's BM25 list reads as many)
    common: float = 0.2  # a word in more than this share of papers says nothing of a topic
    candidates: int = 100  # best by bm25, then ordered with meaning
    meaning: float = 0.5  # a candidate's cosine to the text counts this much beside its scaled bm25
    why: int = 4  # shared terms a result names


DEFAULT = Settings()
_BREAK = re.compile(r"[.,;:!?()\[\]{}\"“”]+")  # punctuation between phrases
SCOPED_FETCH = 4  # with a venue scope, candidates fetched per one kept (as `similar` looks further)


class _Term(NamedTuple):
    """One topic term of the text: its weight, the shortest word of its stem, and how many papers hold that word."""

    weight: float
    word: str
    df: int


@dataclass
class Related:
    """What related() read and found: results best first, the text's strongest terms, and how much of it was read."""

    results: list[Result] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    read: int = 0  # characters read
    length: int = 0  # characters given

    @property
    def cut(self) -> bool:
        """Whether the text was longer than related() reads."""
        return self.read < self.length


def related(
    db: Reader,
    text: str,
    k: int = 5,
    within: Collection[int] | None = None,
    settings: Settings = DEFAULT,
) -> Related:
    """The `k` papers closest to a piece of text, each with why; `within`: only these rowids (the venues searched;
    None: every paper). No results (and no terms) when the text has no word the papers use."""
    text = valid_text(text or "")
    read = _opening(text, settings.text_chars)
    answer = Related(read=len(read), length=len(text))
    k = max(1, min(int(k), MAX_LIMIT))
    with index.snapshot(db):
        terms = _terms(db, read, settings)
        answer.terms = [t.word for t in terms]
        if not terms:
            return answer
        scores = _candidates(db, terms, settings, within, k)
        if not scores:
            return answer
        best = max(scores.values()) or 1.0
        close = dict(meaning.closest(db, index_cache(db), read, list(scores), floor=-1.0))
        order = {r: s / best + settings.meaning * close.get(r, 0.0) for r, s in scores.items()}
        ranked = sorted(order, key=lambda r: (-order[r], r))[:k]
        answer.results = _results(db, read, terms, ranked, order, close, settings)
    return answer


def _opening(text: str, chars: int) -> str:
    """The first `chars` characters, cut at a space when one is near the end."""
    if len(text) <= chars:
        return text
    cut = text.rfind(" ", chars // 2, chars + 1)
    return text[: cut if cut > 0 else chars]


def _words(text: str) -> list[str]:
    """The text's lowercase words in order, each a topic word or "" (a gap, so that no phrase spans a dropped word or
    a punctuation mark)."""
    return [
        w if len(w) >= 2 and not w.isdigit() and w not in GENERIC and w not in CHAT_WORDS else ""
        for piece in _BREAK.split(text.lower())
        for w in [*WORD_RE.findall(piece), ""]
    ]


def _terms(db: Reader, text: str, settings: Settings) -> list[_Term]:
    """The text's strongest topic terms, strongest first: (1 + log tf) × idf summed over the words of one stem; of
    the `terms` strongest, the rarest whose papers add up to `postings`."""
    tf = Counter(w for w in _words(text) if w)
    if not tf:
        return []
    df = document_frequencies(db, tf)
    n = index_cache(db).papers
    most = max(2.0, settings.common * n)
    by_stem: dict[str, _Term] = {}
    for word, count in tf.items():
        papers = df.get(word, 0)
        if not 0 < papers <= most:
            continue
        weight = (1 + math.log(count)) * idf(papers, n)
        key = stem(word)
        old = by_stem.get(key)
        if old is None:
            by_stem[key] = _Term(weight, word, papers)
        else:  # tokenizer, tokenizers: one term, found by its shortest word
            shortest = min(old.word, word, key=len)
            by_stem[key] = _Term(old.weight + weight, shortest, papers if shortest == word else old.df)
    strongest = sorted(by_stem.values(), key=lambda t: (-t.weight, t.word))[: settings.terms]
    kept: set[str] = set()
    read = 0
    # The rarest first: they tell a paper apart
    for term in sorted(strongest, key=lambda t: (t.df, t.word)):
        if kept and read + term.df > settings.postings:
            break  # (FTS5's bm25 reads every posting of every term it is asked)
        kept.add(term.word)
        read += term.df
    return [t for t in strongest if t.word in kept]


def _candidates(
    db: Reader, terms: list[_Term], settings: Settings, within: Collection[int] | None, k: int
) -> dict[int, float]:
    """rowid → bm25 (higher is closer) of the best candidates holding some of the terms, in scope."""
    wanted = max(settings.candidates, k)
    limit = wanted if within is None else wanted * SCOPED_FETCH
    expr = " OR ".join(fts.phrase((t.word,)) for t in terms)
    rows = best_matches(db, expr, limit)
    kept = [(rowid, -score) for rowid, score in rows if within is None or rowid in within]
    return dict(kept[:wanted])


def _results(
    db: Reader,
    text: str,
    terms: list[_Term],
    ranked: list[int],
    order: dict[int, float],
    close: dict[int, float],
    settings: Settings,
) -> list[Result]:
    """The ranked papers with snippets around the terms they share, and why each is here."""
    phrases = _phrases(text, {t.word for t in terms})
    papers = papers_of(db, ranked)
    texts = columns_of(db, "name, title, abstract", ranked)
    out = []
    for rowid in ranked:
        paper = papers.get(rowid)
        if paper is None:
            continue
        name, title, abstract = texts[rowid]
        in_title, in_abstract = norm(f"{name or ''} {title}"), norm(abstract or "")
        shared = _shared(terms, phrases, in_title, in_abstract)[: settings.why]
        groups = [TermGroup(label, [Alternative(tuple(label.split()))]) for _, label in shared]
        shown = Highlighter(groups)
        snippet = make_snippet(paper.get("abstract") or "", paper.get("headline") or paper["title"], shown)
        matched = [f"{where}:{label}" for where, label in shared]
        if rowid in close:
            matched.append(f"meaning:{close[rowid]:.2f}")
        out.append(Result(paper, round(order[rowid], 4), snippet, matched))
    return out


def _phrases(text: str, chosen: set[str]) -> list[tuple[str, ...]]:
    """Runs of three, then two, adjacent topic words of the text, all but one of them among its terms (self speculative
    decoding, time series), in order."""
    words = _words(text)
    runs = [tuple(words[i : i + n]) for n in (3, 2) for i in range(len(words) - n + 1)]
    return list(
        dict.fromkeys(r for r in runs if all(r) and len(set(r)) == len(r) and len(chosen.intersection(r)) >= len(r) - 1)
    )


def _shared(
    terms: list[_Term], phrases: list[tuple[str, ...]], in_title: bytes, in_abstract: bytes
) -> list[tuple[str, str]]:
    """(where, label) of the terms a paper shares with the text, strongest first, title before abstract; adjacent
    words of the text it holds as a phrase are named as that phrase (the longest)."""
    weight = {t.word: t.weight for t in terms}
    found: list[tuple[float, str, str]] = []
    used: set[str] = set()
    for run in phrases:
        if used.intersection(run):
            continue
        count = counter(Alternative(run))
        where = "title" if count(in_title) else "abstract" if count(in_abstract) else None
        if where:
            found.append((sum(weight.get(w, 0.0) for w in run), where, " ".join(run)))
            used.update(run)
    for term in terms:
        if term.word in used:
            continue
        count = counter(Alternative((term.word,)))
        where = "title" if count(in_title) else "abstract" if count(in_abstract) else None
        if where:
            found.append((term.weight, where, term.word))
    found.sort(key=lambda f: (f[1] != "title", -f[0]))
    return [(where, label) for _, where, label in found]
