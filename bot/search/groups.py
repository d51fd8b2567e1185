"""What planning hands on: a query word's group of alternatives (TermGroup) and the words as typed (Slot).

A leaf module, so that plan.py and the modules it calls (joining_words.py) and those reading its plans (retrieve, rank,
snippets, ideas, neighbours) share these types without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from bot.papers import fts
from bot.search.matching import Alternative, TextCounter


class Hint(NamedTuple):
    """Words every match of a group's phrases holds (the rarest of each phrase, ORed), and about how many papers use
    them (the raw words' counts: an estimate of its cost, never of what it matches)."""

    expression: str
    papers: int


@dataclass
class TermGroup:
    """What one query word (or phrase, or recognised long form) may match, with its weight: a paper matches the
    group when it holds any alternative, so spelling variants never count twice."""

    label: str
    alts: list[Alternative]
    scope: str | None = None  # "title": only the name and title columns
    df: int = 0
    weight: float = 1.0
    counters: list[TextCounter] = field(default_factory=list)
    exact: TextCounter | None = None  # the word as typed (or its plural), not just its stem
    word_weights: tuple[float, ...] = ()  # per word of the first alternative (0 for function words)
    quoted: bool = False  # typed in quotes: only the phrase itself
    # Typed as one hyphenated word (self-play): a text holds it whole or not at all
    compound: bool = False
    # Which idea of the query the word belongs to: "for", "of", "with" … separate ideas
    concept: int = 0
    # for phrase alternatives: a cheap expression every match also holds (QueryPlanner.hint)
    hint: Hint | None = None

    def expression(self) -> str:
        """The FTS5 expression matching any alternative."""
        if len(self.alts) == 1:
            return self.alts[0].expression()
        return "(" + " OR ".join(a.expression() for a in self.alts) + ")"

    def fielded_expression(self) -> str:
        """expression(), limited to the title when the user typed title:."""
        return fts.in_columns(("title",), self.expression()) if self.scope == "title" else self.expression()


class Slot(NamedTuple):
    """One unquoted query word in typed order, with the group it went to: long forms and phrases are read here."""

    group: int | None  # index into plan.groups; None for a stopword or a quoted phrase
    word: str  # plan._BREAK for a quoted phrase
    quoted: int | None = None  # the quoted phrase's group
