"""Meaning as well as words: the papers whose vectors (bot.papers.vectors) are closest to the query's, so that a
description of an idea finds the papers about it whatever words they use."""

from __future__ import annotations

from collections.abc import Sequence

from bot.papers.reading import Reader
from bot.search.cache import IndexCache


def closest(db: Reader, cache: IndexCache, text: str, among: Sequence[int], floor: float) -> list[tuple[int, float]]:
    """(rowid, cosine) of the papers `among` (found by words, so they obey the query's filters already), closest in
    meaning to `text` first, at least `floor` close: a few hundred dot products, however large the index. [] when the
    index has no vectors or the text no word the model knows. (Meaning adds no paper of its own: with a static model
    that brought noise, and cost 0.01 nDCG@10 on the graded set's tune half.)"""
    from bot.text import embedding  # (numpy and the model: only for the queries that weigh meaning)

    unique = list(dict.fromkeys(among))
    vectors = cache.vectors(db, unique)
    if vectors is None:
        return []
    query = embedding.model().encode_one(text)
    rowids = [r for r in unique if r in vectors.row_of]
    if not query.any() or not rowids:
        return []
    near = vectors.matrix[[vectors.row_of[r] for r in rowids]] @ query
    found = sorted(zip(rowids, near.tolist(), strict=True), key=lambda pair: (-pair[1], pair[0]))
    return [(rowid, cosine) for rowid, cosine in found if cosine >= floor]
