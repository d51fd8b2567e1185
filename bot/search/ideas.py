"""Ideas: the parts of a query that function words join ("transformers | for | time series forecasting"), and how
much of each idea a text holds, so papers about every idea rank above papers about one of them at length."""

from __future__ import annotations

from dataclasses import dataclass

from bot.search.matching import Alternative, TextCounter, counter
from bot.search.plan import TermGroup

PRESENT = 0.34  # an idea is there when this share of its weight is (its rarest words count most)


@dataclass(frozen=True)
class _Piece:
    """One query group inside an idea: any of its alternatives counts whole; a long form (time series forecasting)
    also counts in part by the words of it a text holds (a paper on "time series" is half about it)."""

    whole: list[TextCounter]
    words: list[tuple[TextCounter, float]]  # each word of a long form with its weight (empty for one word)
    weight: float

    def share(self, text: bytes, found: bool | None = None) -> float:
        """1.0 when an alternative is in the text, else the weighted share of the long form's words in it."""
        if found is None:
            found = any(count(text) for count in self.whole)
        if found:
            return 1.0
        if not self.words:
            return 0.0
        return sum(w for count, w in self.words if count(text)) / (sum(w for _, w in self.words) or 1.0)


class Ideas:
    """A query's ideas; none when it holds only one (then ranking is by words alone, as it always was)."""

    def __init__(self, groups: list[TermGroup]) -> None:
        by_concept: dict[int, list[int]] = {}
        for i, g in enumerate(groups):
            by_concept.setdefault(g.concept, []).append(i)
        self.members = list(by_concept.values()) if len(by_concept) > 1 else []
        self.pieces = [
            _Piece(
                g.counters,
                [(counter(Alternative((w,))), wt) for w, wt in zip(g.alts[0].words, g.word_weights, strict=True) if wt]
                if len(g.alts[0].words) > 1
                else [],
                g.weight,
            )
            for g in groups
        ]

    def __bool__(self) -> bool:
        return bool(self.members)

    def __len__(self) -> int:
        return len(self.members)

    def shares(self, text: bytes, hits: list[int] | None = None) -> list[float]:
        """How much of each idea `text` holds (0..1); `hits` (per group: the alternative found, -1: none) when known."""
        out = []
        for members in self.members:
            got = total = 0.0
            for i in members:
                piece = self.pieces[i]
                got += piece.weight * piece.share(text, None if hits is None else hits[i] >= 0)
                total += piece.weight
            out.append(got / (total or 1.0))
        return out

    @staticmethod
    def present(shares: list[float]) -> int:
        """How many ideas are there."""
        return sum(s >= PRESENT for s in shares)
