"""Weights: every number that decides an order, in one frozen object a bench sweeps (`python -m bench graded --set`).

`Ranking` weighs what the lexical ranker reads of titles and abstracts (bot.search.rank, bot.search.idea_coverage);
`Fusion` how that order is merged with BM25 and meaning (bot.search.fuse). The defaults were chosen on the tune
half of the graded set (tests/relevance/graded_queries.tsv); the held-out half was read only after each choice.
`Thresholds` where planning and retrieval tell rare words from common ones. Bounds on work (how many rowids a query
reads, how deep a page goes) are not weights: they stay beside their code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeVar


@dataclass(frozen=True)
class Ranking:
    """How the lexical ranker scores a candidate: coverage first, then its title far above its abstract."""

    # Best candidates by title that get the full score (abstract, authors); half with 4+ groups
    rerank: int = 30
    title: float = 3.0  # a title's share of the query's words (squared) counts this much
    title_words: float = 0.5  # ...and the share of its own words that are query words, this much
    # A word typed exactly in the title ("transformer", not "transformations")
    exact_word: float = 0.3
    title_phrase: float = 1.5  # the query as a phrase in the title
    # A title holding a term of several words the query names (chain-of-thought)
    term_in_title: float = 1.0
    # The query as a phrase in an abstract, once (twice: 1.5x, more: 2x)
    abstract_phrase: float = 1.0
    # A title about every idea of the query beats a title about one idea at length
    ideas: float = 4.0
    ideas_share: float = 2.0  # ...then how much of each idea it holds
    # An idea is there when this share of its weight is (its rarest words count most)
    idea_present: float = 0.34
    # An idea of generic words beside a specific one ("deep learning") counts this much
    broad_idea: float = 0.1
    # A paper the query names (by name, id, link or title) is above every other
    named: float = 100.0
    lookup_words: int = 4  # queries this long may be a (mistyped) title...
    # ...when a title is this similar to the query (rapidfuzz ratio, 0-100)
    lookup_similarity: int = 80


@dataclass(frozen=True)
class Fusion:
    """How the lexical order, the BM25 order and the order by meaning are merged, and how deep each is read."""

    k: float = 10.0  # reciprocal rank's constant: how fast the credit for lower places falls
    lexical: float = 1.0  # the lexical engine's order (bot.search.rank)
    bm25: float = 2.0  # FTS5's bm25 over the query's words OR'd (CandidateRetriever.by_bm25)
    meaning: float = 1.5  # closeness in meaning (bot.search.meaning)
    depth: int = 50  # places of each list fused; the rest of the lexical order follows
    # Queries of fewer words keep the lexical order (short topics: titles say it all)
    from_words: int = 3
    # Papers not holding every query word join only when fewer than this many hold them all
    add_below: int = 10
    # Papers whose titles hold every query word keep the lexical order, ahead of fusion
    titles_lead: bool = True
    floor: float = 0.25  # meaning credits a paper at least this close (cosine) to the query
    # The BM25 list reads the rarest words until their papers add up to this (bounded work)
    postings: int = 5_000

    @property
    def on(self) -> bool:
        """Whether anything besides the lexical order is fused."""
        return self.bm25 > 0 or self.meaning > 0


@dataclass(frozen=True)
class Described:
    """How a long query is read as a description of an idea (bot.search.described) and fused after the rest."""

    weight: float = 1.0  # its order's credit beside the fused order's (0: off)
    k: float = 60.0  # reciprocal rank's constant of that last fusion
    # Content words from which a query reads as a description (tuned on the graded set)
    from_words: int = 6
    # Places of the fused order read as candidates (and of the described order fused)
    depth: int = 50
    widened: int = 60  # papers holding the words or their synonyms (BM25) added as candidates
    synonyms: int = 4  # a word's nearest words in the model, at most
    synonym_floor: float = 0.6  # and at least this close (cosine)
    synonym_papers: int = 3  # a synonym counts only when at least this many papers hold it
    meaning: float = 1.0  # a sentence's closeness in meaning to the query
    words: float = 1.0  # the share of the query's weight a sentence's words (or synonyms) cover
    paper: float = 0.5  # the whole paper's closeness in meaning


@dataclass(frozen=True)
class Thresholds:
    """Where planning and retrieval draw their lines between rare and common words, typos and names."""

    # A word fewer than ~1 paper in 7 uses (idf >= 2) says something: it narrows retrieval
    rare_word: float = 2.0
    # (a phrase's hint), stands for an idea in a title, and tells a correction's candidates apart
    # An unknown word near a word more papers use than this is a typo of it, not a name
    typo_of_a_word: int = 2
    rare_compound: int = 20  # a word this rare may be two words run together (kvcache: "kv cache")
    # A mined acronym means its long form when this share of its papers also write it
    spelled_out: float = 0.3
    # Papers writing a compound that beat the compound as typed (meta-leaning)...
    written_compound: int = 3
    # ...when one part is a word no more than this share of the papers use (or one)...
    part_share: float = 0.001
    part_ratio: int = 50  # ...and the correction a word this many times more papers use


@dataclass(frozen=True)
class Weights:
    """Every weight of a search: what `search(..., weights=)` takes and a bench sweeps."""

    ranking: Ranking = field(default_factory=Ranking)
    fusion: Fusion = field(default_factory=Fusion)
    described: Described = field(default_factory=Described)
    thresholds: Thresholds = field(default_factory=Thresholds)

    def with_values(self, settings: dict[str, str]) -> Weights:
        """A copy with `part.name` set from text ({"fusion.meaning": "2"}), each value read as its field's type;
        an unknown name is a ValueError naming the ones there are."""
        every = [f"{part}.{f.name}" for part in PARTS for f in dataclasses.fields(getattr(self, part))]
        unknown = [name for name in settings if name not in every]
        if unknown:
            raise ValueError(f"no weight {unknown[0]!r}; there are {', '.join(every)}")
        parts = {
            part: {n.partition(".")[2]: v for n, v in settings.items() if n.startswith(part + ".")} for part in PARTS
        }
        return Weights(*(_replaced(getattr(self, part), parts[part]) for part in PARTS))


PARTS = ("ranking", "fusion", "described", "thresholds")  # Weights' fields, in order
_Part = TypeVar("_Part", Ranking, Fusion, Described, Thresholds)


def _replaced(part: _Part, values: dict[str, str]) -> _Part:
    """`part` with these fields set, each text read as the type of the value it replaces."""
    changes: dict[str, Any] = {}
    for name, text in values.items():
        current = getattr(part, name)
        changes[name] = (
            text.strip().lower() in ("1", "true", "yes") if isinstance(current, bool) else type(current)(text)
        )
    return dataclasses.replace(part, **changes)


DEFAULT = Weights()
# The order before meaning: for benches and tests.
LEXICAL_ONLY = Weights(fusion=Fusion(bm25=0.0, meaning=0.0), described=Described(weight=0.0))
