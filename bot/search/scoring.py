"""How much finding a word says about a paper: the inverse document frequencies search weighs words by, each
citing its source (as bm25s keeps its scoring variants in one module)."""

from __future__ import annotations

import math


def idf(df: int, papers: int) -> float:
    """BM25's inverse document frequency as Lucene writes it, log(1 + (N - df + 0.5) / (df + 0.5)) (Robertson and
    Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009; the 1 + keeps it above zero)."""
    df = min(df, papers)
    return math.log(1 + (papers - df + 0.5) / (df + 0.5))


def plain_idf(df: int, papers: int) -> float:
    """Sparck Jones's log(N / df), with N + 1 so a word every paper uses still counts a little: a topic pair
    (bot.search.topics) scores by the sum of its words' rarity, and this keeps that order where BM25's would not."""
    return math.log((papers + 1) / df)
