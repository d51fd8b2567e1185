"""Ideas: the parts of a query that function words join ("transformers | for | time series forecasting"), and how
much of each idea a text holds, so papers about every idea rank above papers about one of them at length."""

from __future__ import annotations

from bot.search.groups import TermGroup
from bot.search.joining_words import GENERIC_WORDS as GENERIC
from bot.search.joining_words import broad_ideas, generic
from bot.search.matching import Alternative, found_alt, pattern
from bot.search.weights import DEFAULT, Ranking


class Ideas:
    """A query's ideas; none when it holds only one (then ranking is by words alone, as it always was).

    A group counts whole when a text holds any of its alternatives; a long form (time series forecasting) also
    counts in part by the words of it the text holds (a paper on "time series" is half about it), a quoted phrase
    or a typed compound not (a paper on gradients is not about "gradient-free" in part, nor self-evolving models
    about self-play)."""

    def __init__(self, groups: list[TermGroup], ranking: Ranking = DEFAULT.ranking) -> None:
        self.present_at, self.broad_counts = ranking.idea_present, ranking.broad_idea
        by_concept: dict[int, list[int]] = {}
        for i, g in enumerate(groups):
            by_concept.setdefault(g.concept, []).append(i)
        self.members = list(by_concept.values()) if len(by_concept) > 1 else []
        self.groups = groups
        self.words: list[Alternative] = []  # every long form's words, each on its own
        # Per group: (index into words, share of the group)
        self.parts: list[list[tuple[int, float]]] = []
        for g in groups:
            weights = [(w, wt) for w, wt in zip(g.alts[0].words, g.word_weights, strict=True) if wt]
            total = sum(wt for _, wt in weights) or 1.0
            parts = []
            # Those count whole
            if self.members and len(g.alts[0].words) > 1 and not (g.quoted or g.compound):
                # The specific words' weight
                told = sum(wt for w, wt in weights if w not in GENERIC)
                for word, wt in weights:
                    share = wt / total if not told else (0.0 if word in GENERIC else wt / told)
                    parts.append((len(self.words), share))
                    self.words.append(Alternative((word,)))
            self.parts.append(parts)
        # Generic words ("neural networks") say nothing of an idea that also holds a specific word ("equivariant"):
        # physics-informed neural networks are not about equivariant ones. An idea of generic words only is broad:
        # beside a specific idea it counts less (certified robustness papers need not say "of neural networks").
        broad = broad_ideas(groups)
        self.broad = [groups[members[0]].concept in broad for members in self.members]  # per idea
        self.counts = [g.weight for g in groups]  # per group: its weight in its idea's share
        for members in self.members:
            if not all(generic(groups[i]) for i in members):
                for i in members:
                    self.counts[i] = 0.0 if generic(groups[i]) else self.counts[i]

    def __bool__(self) -> bool:
        return bool(self.members)

    def __len__(self) -> int:
        return len(self.members)

    def shares(self, hits: list[int], words: set[int]) -> list[float]:
        """How much of each idea a text holds (0..1), from which alternative of each group it holds (-1: none) and
        which long-form words (indexes into `self.words`)."""
        out = []
        parts, counts = self.parts, self.counts
        for members in self.members:
            got = total = 0.0
            for i in members:
                weight = counts[i]
                total += weight
                if hits[i] >= 0:
                    got += weight
                elif parts[i]:
                    got += weight * sum(share for w, share in parts[i] if w in words)
            out.append(got / (total or 1.0))
        return out

    def read(self, text: bytes, hits: list[int] | None = None) -> list[float]:
        """shares() for one `norm` text."""
        if hits is None:
            hits = [found_alt(g.counters, text) for g in self.groups]
        words = {i for i, alt in enumerate(self.words) if pattern(alt).search(text)}
        return self.shares(hits, words)

    def present(self, shares: list[float]) -> float:
        """How many ideas are there (a broad one counts Ranking.broad_idea: it breaks ties between papers about
        the specific ideas, never outweighs their titles)."""
        each, at = self.broad_counts, self.present_at
        return sum(each if broad else 1.0 for s, broad in zip(shares, self.broad, strict=True) if s >= at)

    @property
    def whole(self) -> float:
        """present() of a text holding every idea."""
        return sum(self.broad_counts if broad else 1.0 for broad in self.broad)
