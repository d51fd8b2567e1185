"""The plan a query becomes (bot.search.plan builds it): everything retrieval and ranking need, decided once and
handed out frozen."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import NamedTuple

from bot.search.groups import TermGroup


class SearchedApart(NamedTuple):
    """A hyphenated name no paper writes (as the user will read it), and the words searched instead."""

    typed: str
    words: str


class AlsoSearched(NamedTuple):
    """A rare word searched together with a common one one edit away: the user is told, it may be a typo."""

    rare: str
    common: str


@dataclass(frozen=True)
class RetrievalPlan:
    """Everything retrieval and ranking need from the query, decided once and never changed: they never look at the
    text again."""

    groups: list[TermGroup] = field(default_factory=list)
    negatives: list[TermGroup] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)  # FTS phrases for the authors column
    neg_authors: list[str] = field(default_factory=list)
    author_words: list[tuple[str, ...]] = field(default_factory=list)
    allowed: frozenset[int] | None = None  # status:/has:code, as rowid sets
    denied: frozenset[int] = frozenset()
    filtered: bool = False
    # The unquoted words as typed (corrected), for phrase bonus
    sequence: list[str] = field(default_factory=list)
    corrected: str | None = None
    corrections: dict[str, str] = field(default_factory=dict)
    # words the index has never seen and we could not correct
    unknown: list[str] = field(default_factory=list)
    also: list[AlsoSearched] = field(default_factory=list)
    apart: list[SearchedApart] = field(default_factory=list)
    free_text: str = ""
    compares: bool = False  # "DPO vs PPO": each side's papers in turn after those about both

    def passes_filters(self, rowid: int) -> bool:
        """Whether a paper passes the status: and has:code filters."""
        return (self.allowed is None or rowid in self.allowed) and rowid not in self.denied


@dataclass
class PlanDraft:
    """A RetrievalPlan as the planner fills it in, field by field, before build() hands it out frozen."""

    groups: list[TermGroup] = field(default_factory=list)
    negatives: list[TermGroup] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    neg_authors: list[str] = field(default_factory=list)
    author_words: list[tuple[str, ...]] = field(default_factory=list)
    allowed: frozenset[int] | None = None
    denied: frozenset[int] = frozenset()
    filtered: bool = False
    sequence: list[str] = field(default_factory=list)
    corrected: str | None = None
    corrections: dict[str, str] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    also: list[AlsoSearched] = field(default_factory=list)
    apart: list[SearchedApart] = field(default_factory=list)
    free_text: str = ""
    compares: bool = False

    def frozen(self) -> RetrievalPlan:
        """The plan as retrieval and ranking read it, no longer to be changed."""
        return RetrievalPlan(**{f.name: getattr(self, f.name) for f in fields(self)})
