"""Meaning as well as words: the papers whose vectors (bot.papers.vectors) are closest to the query's, so that a
description of an idea finds the papers about it whatever words they use."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sqlite_utils

from bot.search.cache import IndexCache
from bot.search.plan import RetrievalPlan
from bot.search.retrieve import holding_requirements
from bot.text import embedding

WIDEN = 4  # with filters, this many times the papers wanted are looked at first (most may not pass)


def closest(
    db: sqlite_utils.Database,
    cache: IndexCache,
    plan: RetrievalPlan,
    text: str,
    depth: int,
    floor: float,
    among: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """(rowid, cosine) of up to `depth` papers closest in meaning to `text`, best first, at least `floor` close, that
    pass the query's filters, author terms, quoted phrases and exclusions; [] when the index has no vectors or the
    text no word the model knows. `among`: only these papers (found by words, so passing all of that already): a
    few hundred dot products instead of one per paper of the index."""
    vectors = cache.vectors(db)
    if vectors is None or depth <= 0:
        return []
    query = embedding.model().encode_one(text)
    if not query.any():
        return []
    if among is not None:
        rowids = [r for r in dict.fromkeys(among) if r in vectors.row_of]
        if not rowids:
            return []
        near = vectors.matrix[[vectors.row_of[r] for r in rowids]] @ query
        found = sorted(zip(rowids, near.tolist(), strict=True), key=lambda pair: (-pair[1], pair[0]))
        return [(rowid, cosine) for rowid, cosine in found if cosine >= floor][:depth]
    cosines = vectors.cosines(query)
    look = min(len(cosines), depth * WIDEN if plan.filtered else depth * 2)
    order = np.argpartition(-cosines, look - 1)[:look] if look < len(cosines) else np.arange(len(cosines))
    order = order[np.argsort(-cosines[order], kind="stable")]
    passes = plan.passes_filters
    found = [(int(vectors.rowids[i]), float(cosines[i])) for i in order if cosines[i] >= floor]
    found = [(rowid, cosine) for rowid, cosine in found if passes(rowid)]
    keep = holding_requirements(db, plan, [rowid for rowid, _ in found])
    return [(rowid, cosine) for rowid, cosine in found if rowid in keep][:depth]
