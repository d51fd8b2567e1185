"""Meaning as well as words: the papers whose vectors (bot.papers.vectors) are closest to the query's, so that a
description of an idea finds the papers about it whatever words they use."""

from __future__ import annotations

import numpy as np
import sqlite_utils

from bot.search.cache import IndexCache
from bot.search.plan import RetrievalPlan
from bot.search.retrieve import holding_requirements
from bot.text import embedding

WIDEN = 4  # with filters, this many times the papers wanted are looked at first (most may not pass)


def closest(
    db: sqlite_utils.Database, cache: IndexCache, plan: RetrievalPlan, text: str, depth: int, floor: float
) -> list[tuple[int, float]]:
    """(rowid, cosine) of up to `depth` papers closest in meaning to `text`, best first, at least `floor` close, that
    pass the query's filters, author terms, quoted phrases and exclusions; [] when the index has no vectors or the
    text no word the model knows."""
    vectors = cache.vectors(db)
    if vectors is None or depth <= 0:
        return []
    query = embedding.model().encode_one(text)
    if not query.any():
        return []
    cosines = vectors.cosines(query)
    look = min(len(cosines), depth * WIDEN if plan.filtered else depth * 2)
    order = np.argpartition(-cosines, look - 1)[:look] if look < len(cosines) else np.arange(len(cosines))
    order = order[np.argsort(-cosines[order], kind="stable")]
    passes = plan.passes_filters
    found = [(int(vectors.rowids[i]), float(cosines[i])) for i in order if cosines[i] >= floor]
    found = [(rowid, cosine) for rowid, cosine in found if passes(rowid)]
    keep = holding_requirements(db, plan, [rowid for rowid, _ in found])
    return [(rowid, cosine) for rowid, cosine in found if rowid in keep][:depth]
