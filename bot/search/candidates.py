"""What retrieval hands on: how each candidate was found, and how many papers match (exact or a lower bound)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

TOTAL_CAP = 1000  # beyond this many matches `total` is a lower bound (total_exact=False)


class Candidate(NamedTuple):
    """How a paper was found, which is all ranking knows of it before reading its title: how many groups the
    finding query required, and how strict that query was (0: the query as a phrase in the title, 1: every
    group in the title, 2: rare groups in the title or the phrase anywhere, 3: every group anywhere,
    4: some of the groups)."""

    level: int
    tier: int


class Total(NamedTuple):
    """How many papers match, and whether that is exact or a lower bound."""

    papers: int
    exact: bool


class Retrieval(NamedTuple):
    """What a retrieval run tells the response: the total, and whether some candidates match only some words.
    `counted`: every match, counted up to TOTAL_CAP (perhaps still running beside); the total is then at least
    `total`, and exact when the count stays under the cap and `exact` says every group had one alternative."""

    total: int
    exact: bool
    partial: bool
    counted: Callable[[], int] | None = None

    def settled(self) -> Total:
        """The total, waiting for the count beside when there is one."""
        if self.counted is None:
            return Total(self.total, self.exact)
        n = self.counted()
        return Total(max(self.total, n), self.exact and n < TOTAL_CAP)
