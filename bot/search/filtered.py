"""A search of filters and exclusions alone (`has:code status:oral -diffusion`): no words to retrieve by, so the
matching papers in index order, a person's papers first."""

from __future__ import annotations

from collections.abc import Sequence

from bot.papers import matching
from bot.papers.reading import Reader
from bot.search.candidates import TOTAL_CAP, Retrieval
from bot.search.expressions import exclusions
from bot.search.retrieval_plan import RetrievalPlan
from bot.search.retrieve import CandidateRetriever


def filter_only(db: Reader, plan: RetrievalPlan, retriever: CandidateRetriever, first: Sequence[int] = ()) -> Retrieval:
    """Only filters and exclusions (`has:code status:oral -diffusion`): matching papers in index order; `first`
    (the papers of the people a name fits, person by person) before the rest, so the cap of TOTAL_CAP never cuts
    off the person the answer leads with (`Y. Wang` fits 250 people with 4,900 papers at 110,000 papers)."""
    excluded: set[int] = set()
    negs = exclusions(plan)
    if negs:
        excluded = set(matching.matching_rowids(db, " OR ".join(negs)))
    if plan.allowed is not None:
        keep = plan.allowed.difference(excluded, plan.denied)
        ahead = [r for r in dict.fromkeys(first) if r in keep]
        rows = ahead + sorted(keep.difference(ahead))
    else:
        rows = []
        for rowid in matching.every_rowid(db):
            if rowid not in excluded and rowid not in plan.denied:
                rows.append(rowid)
                if len(rows) >= TOTAL_CAP:
                    break
    # papers in index order; pages beyond the first thousand are not worth reading
    rows = rows[:TOTAL_CAP]
    retriever.add(rows, 0, 2, len(rows))
    return Retrieval(len(rows), len(rows) < TOTAL_CAP, False)
