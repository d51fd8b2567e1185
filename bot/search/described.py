"""Ideas described in plain words: a long query read against papers sentence by sentence, with its words' near
synonyms, so that "guessing several tokens ahead and checking them" meets the abstract that says "draft tokens and
verify them" even though the paper never uses the query's words for its method.

A description rarely shares its words with a whole abstract, but one sentence of the right abstract says the same
thing in its own words: the paper that defines the idea. Each candidate paper is scored by its best sentence (its
title counts as one): closeness in meaning to the query (the shipped static model) plus how much of the query's
weight the sentence covers with the query's words or their near synonyms (the model's nearest whole words that
the index holds). The candidates are the lexical order's head and papers holding the words or their synonyms
(bounded BM25), so a paper needs something of the query to be there. Figures: docs/benchmarks.md (Relevance).
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from bot.papers.reading import Reader
from bot.search import scoring
from bot.search.weights import Described
from bot.text.stopwords import FUNCTION_WORDS
from bot.text.words import word_set

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from bot.text.embedding import StaticEmbedding

    Vectors = npt.NDArray[np.float32]
    # A paper's sentences, each as the set of its words, and their unit vectors
    Sentences = tuple[list[frozenset[str]], Vectors]

# numpy (with the model and the stored sentence vectors) is imported only when a query reads as a description:
# a short search imports none of it (tests/test_cli.py).

WORD = re.compile(r"[a-z][a-z0-9\-]+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
# Words a description shares with every abstract: they say nothing of which idea it is.
GENERIC = word_set(
    "also approach based but method methods model models new not our paper propose results show such use used we"
)


def content_words(words: Iterable[str]) -> list[str]:
    """The words of a query that carry its idea (lowercase, once each, in order)."""
    out = (w for text in words for w in WORD.findall(text.lower()))
    return [w for w in dict.fromkeys(out) if len(w) > 2 and w not in FUNCTION_WORDS and w not in GENERIC]


def is_description(words: Sequence[str], weights: Described) -> bool:
    """Whether a query is long enough to be read as a description (short topics: their words say it all)."""
    return weights.weight > 0 and len(words) >= weights.from_words


class Synonyms:
    """The model's whole words (lowercase, alphabetic) and their unit vectors: a word's nearest are its synonyms."""

    def __init__(self, model: StaticEmbedding) -> None:
        import numpy as np

        vocab = model.tokenizer.get_vocab()
        whole = sorted((w, i) for w, i in vocab.items() if len(w) >= 3 and w.isalpha() and w.islower())
        self.model = model
        self.words = [w for w, _ in whole]
        table = model.vectors([i for _, i in whole])
        norms = np.linalg.norm(table, axis=1, keepdims=True)
        self.table: npt.NDArray[np.float32] = np.divide(table, norms, out=np.zeros_like(table), where=norms > 0)
        self.known: dict[tuple[str, int, float], list[tuple[str, float]]] = {}

    def nearest(self, words: Sequence[str], count: int, floor: float) -> dict[str, list[tuple[str, float]]]:
        """Per word, up to `count` other words at least `floor` close to it (cosine), closest first (remembered)."""
        # Typed words are anything: keep the memory bounded
        if len(self.known) > REMEMBERED_WORDS:
            self.known.clear()
        todo = [w for w in dict.fromkeys(words) if (w, count, floor) not in self.known]
        if todo and count > 0:
            import numpy as np

            vectors = self.model.encode(todo)
            cosines = vectors @ self.table.T
            for word, vector, row in zip(todo, vectors, cosines, strict=True):
                best: Sequence[int] = np.argpartition(-row, count)[: count + 1].tolist() if vector.any() else []
                found = sorted(((self.words[i], float(row[i])) for i in best), key=lambda pair: -pair[1])
                self.known[word, count, floor] = [(w, c) for w, c in found if w != word and c >= floor][:count]
        return {w: self.known.get((w, count, floor), []) for w in words}


@functools.cache
def synonyms() -> Synonyms:
    """The shipped model's synonym table, built once per process (a few tens of milliseconds)."""
    from bot.text import embedding

    return Synonyms(embedding.model())


REMEMBERED_WORDS = 20_000  # words whose synonyms a process keeps
# papers whose sentence vectors a process keeps, per index (~8 sentences of 256 floats)
REMEMBERED_PAPERS = 20_000
# Per query word: itself (1.0) and its synonyms with their closeness
Expansions = dict[str, dict[str, float]]


def expansions(words: Sequence[str], held: Callable[[list[str]], dict[str, int]], weights: Described) -> Expansions:
    """Each word with its near synonyms that some papers of the index hold (a synonym no paper writes adds noise)."""
    near = synonyms().nearest(words, weights.synonyms, weights.synonym_floor)
    df = held(sorted({s for found in near.values() for s, _ in found}))
    return {w: {w: 1.0} | {s: c for s, c in near[w] if df.get(s, 0) >= weights.synonym_papers} for w in words}


def order(
    query: str,
    words: Sequence[str],
    expanded: Expansions,
    papers: dict[int, tuple[str, str]],
    memory: dict[int, Sentences],
    stored: Callable[[list[int]], dict[int, Vectors]],
    df: dict[str, int],
    total: int,
    whole: dict[int, float],
    weights: Described,
) -> list[tuple[int, float]]:
    """(rowid, score) of the candidate `papers` (rowid: title, abstract), best first: each paper's best sentence,
    by closeness to the query plus the share of the query's weight (idf by `df`) its words or synonyms cover, plus
    a part of the whole paper's closeness (`whole`: cosines of the papers' vectors)."""
    from bot.text import embedding

    model = embedding.model()
    asked = model.encode_one(query)
    idf = {w: scoring.idf(df.get(w, 0), total) for w in words}
    weight = sum(idf.values()) or 1.0
    read = remembered(papers, memory, stored)
    covering = _Covering(words, expanded, idf)
    scores = []
    for rowid, (paper, vectors) in read.items():
        close = vectors @ asked
        best = max(
            weights.meaning * float(c) + weights.words * covering.of(held) / weight
            for held, c in zip(paper, close, strict=True)
        )
        scores.append((rowid, best + weights.paper * whole.get(rowid, 0.0)))
    return sorted(scores, key=lambda pair: (-pair[1], pair[0]))


_LOCK = threading.Lock()  # searches of several threads share the memory
_MEMORY: weakref.WeakKeyDictionary[object, dict[int, Sentences]] = weakref.WeakKeyDictionary()


def memory_of(index: object) -> dict[int, Sentences]:
    """The sentence vectors kept for one index (its cache object): gone with it, so a new index starts afresh."""
    return _MEMORY.setdefault(index, {})


def stored_in(db: Reader) -> Callable[[list[int]], dict[int, Vectors]]:
    """How to read the sentence vectors the index stores (of the papers by rowid)."""
    from bot.papers import sentence_vectors
    from bot.text import embedding

    dims = embedding.model().dims
    return lambda rowids: sentence_vectors.read(db, rowids, dims)


def nothing_stored(rowids: list[int]) -> dict[int, Vectors]:
    """An index whose vectors come from another model (or none): every sentence is encoded here."""
    return {}


def remembered(
    papers: dict[int, tuple[str, str]], memory: dict[int, Sentences], stored: Callable[[list[int]], dict[int, Vectors]]
) -> dict[int, Sentences]:
    """Each paper's sentences with their vectors: kept from an earlier query, else as the index stores them, else
    encoded here (an index built before sentence vectors: tokenizing is most of that cost), then kept."""
    from bot.papers.sentence_vectors import sentences_of
    from bot.text import embedding

    with _LOCK:
        known = {r: memory[r] for r in papers if r in memory}
    todo = [r for r in papers if r not in known]
    if not todo:
        return known
    texts = {r: sentences_of(*papers[r]) for r in todo}
    found = {r: v for r, v in stored(todo).items() if len(v) == len(texts[r])}
    missing = [r for r in todo if r not in found]
    if missing:
        vectors = embedding.model().encode([s for r in missing for s in texts[r]])
        start = 0
        for rowid in missing:
            found[rowid] = vectors[start : start + len(texts[rowid])]
            start += len(texts[rowid])
    with _LOCK:
        if len(memory) + len(todo) > REMEMBERED_PAPERS:
            memory.clear()
        for rowid in todo:
            held = [frozenset(WORD.findall(sentence.lower())) for sentence in texts[rowid]]
            known[rowid] = memory[rowid] = (held, found[rowid])
    return {r: known[r] for r in papers}


class _Covering:
    """The query's idf weight a sentence holds, each word through itself or its closest synonym there: each
    sentence's word set meets the query's words and synonyms once, instead of every word asking every sentence."""

    def __init__(self, words: Sequence[str], expanded: Expansions, idf: dict[str, float]) -> None:
        self.idf = [idf[w] for w in words]
        self.by_word: dict[str, list[tuple[int, float]]] = {}
        for i, w in enumerate(words):
            for said, close in expanded[w].items():
                self.by_word.setdefault(said, []).append((i, close))
        self.said = frozenset(self.by_word)

    def of(self, held: frozenset[str]) -> float:
        """The weight this sentence (its set of words) holds."""
        hits = held & self.said
        if not hits:
            return 0.0
        best = [0.0] * len(self.idf)
        for said in hits:
            for i, close in self.by_word[said]:
                best[i] = max(best[i], close)
        return sum(b * w for b, w in zip(best, self.idf, strict=True))
