"""Ranking: candidates scored BM25F-style from the title (weighted far above the abstract), the abstract, phrase
and coverage features; papers matching all groups always rank above papers matching some."""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rapidfuzz import fuzz

from bot.papers.matching import columns_of
from bot.papers.reading import Reader
from bot.search.candidates import Candidate
from bot.search.idea_coverage import Ideas
from bot.search.matching import Alternative, counter, first_hit, found_alt, norm, pattern
from bot.search.retrieval_plan import RetrievalPlan
from bot.search.retrieve import PHRASE_TIER
from bot.search.weights import DEFAULT, Ranking


@dataclass(slots=True)
class ScoredPaper:
    """A candidate's score with what matched where, kept so the response can say why each paper is there."""

    rowid: int
    score: float
    level: int = 0  # how many query groups the paper matches
    # Per group: index of the alt found in name/title, or -1 (empty: not scored)
    in_title: Sequence[int] = ()
    in_abstract: Sequence[int] = ()
    pinned: str | None = None
    # Its cosine to the query, when meaning found it too (bot.search.meaning)
    close: float | None = None
    # Its title is (nearly) the query: a title typed or pasted, which nothing outranks
    looked_up: bool = False


class TitleFacts(NamedTuple):
    """What the full score reads of a title, fixed by which alternatives and long-form words it holds (so worked
    out once per such pattern, which most titles share): the weighted share of groups, how many query words it
    holds, and how much of each idea (empty without ideas)."""

    share: float
    words: int
    ideas: list[float]


_ROWID, _SCORE = operator.attrgetter("rowid"), operator.attrgetter("score")
# title score, ideas present, alternative per group, the rest
Cover = tuple[float, float, list[int], TitleFacts]


class Ranker:
    """Scores candidates: coverage first, then title (weighted far above abstract), phrase and abstract evidence.
    Only titles are read for every candidate; abstracts only for the few that can reach the top."""

    def __init__(
        self,
        db: Reader,
        plan: RetrievalPlan,
        titles: dict[int, bytes] | None = None,
        abstracts: dict[int, tuple[bytes, bytes]] | None = None,
        weights: Ranking = DEFAULT.ranking,
    ) -> None:
        self.db, self.plan, self.weights = db, plan, weights
        # every title, normalised (IndexCache.titles); None: read them per query
        self.titles = titles
        # abstracts and author lists read so far, normalised (IndexCache.abstracts)
        self.abstracts = abstracts
        self.total_weight = sum(g.weight for g in plan.groups) or 1.0
        seq = [w for w in plan.sequence if w]
        self.phrase = counter(Alternative(tuple(seq))) if len(plan.groups) > 1 and 1 < len(seq) <= 12 else None
        self.lookup = " ".join(plan.sequence) if len(plan.sequence) >= weights.lookup_words else None
        # titles (nearly) the whole query, as title_score found them
        self.looked_up: set[bytes] = set()
        self.ideas = Ideas(plan.groups, weights)
        # Whether the query holds several ideas (asked per candidate)
        self.several = bool(self.ideas)
        self.exacts = [(g.weight, g.exact) for g in plan.groups if g.exact]
        # Groups that are terms of several words, in a query of more: `chain-of-thought prompting` once listed an
        # abstract using the phrase twice above every title saying Chain-of-Thought (the abstract's phrase bonus).
        several_groups = len(plan.groups) > 1
        self.terms = [i for i, g in enumerate(plan.groups) if several_groups and len(g.alts[0].content_words) > 1]
        # The most a paper's abstract (and authors) can add to its title's part of the full score: every group and
        # idea found, the abstract's evidence (below 1) and the query as a phrase in it.
        self.ceiling = (
            self.lead(len(plan.groups), self.ideas.whole) + 1.0 + (2 * weights.abstract_phrase if self.phrase else 0)
        )

    def share(self, hits: list[int]) -> float:
        """Weighted share of the groups found (an alternative such as an acronym counts 0.9)."""
        got = sum(g.weight * (1.0 if h == 0 else 0.9) for g, h in zip(self.plan.groups, hits, strict=True) if h >= 0)
        return got / self.total_weight

    def covers(self, texts: list[bytes]) -> list[Cover]:
        """The title part of the first score for many titles at once (one regex pass per alternative over them
        all): the squared share of the groups found (with several ideas, how much of each), how many ideas, and
        which alternative of each group each title holds (-1: none), and the rest the full score reads of it."""
        # (never empty: rank() orders queries without words before asking)
        groups = self.plan.groups
        starts = list(itertools.accumulate((len(text) + 1 for text in texts[:-1]), initial=0))
        blob = b"\x01".join(texts)
        n = len(groups)
        # By title: which alternative of each group it holds (-1: none)
        found: dict[int, list[int]] = {}
        for gi, group in enumerate(groups):
            for ai, alt in enumerate(group.alts):
                for m in pattern(alt).finditer(blob):
                    i = bisect.bisect_right(starts, m.start()) - 1
                    row = found.get(i)
                    if row is None:
                        row = found[i] = [-1] * n
                    if row[gi] < 0 or row[gi] > ai:
                        row[gi] = ai
        words: dict[int, set[int]] = {}  # by title: the long forms' words it holds
        for wi, alt in enumerate(self.ideas.words):
            for m in pattern(alt).finditer(blob):
                words.setdefault(bisect.bisect_right(starts, m.start()) - 1, set()).add(wi)
        # Patterns
        known: dict[tuple[tuple[int, ...], frozenset[int]], tuple[float, float, TitleFacts]] = {}
        none: list[int] = [-1] * n  # shared by every title holding nothing (never changed)
        # Most titles hold nothing
        out: list[Cover] = [self._cover(none, set(), known)] * len(texts)
        for i in found.keys() | words.keys():
            hits = found.get(i, none)
            out[i] = self._cover(hits, words.get(i, set()), known)
        return out

    def _cover(
        self,
        hits: list[int],
        held: set[int],
        known: dict[tuple[tuple[int, ...], frozenset[int]], tuple[float, float, TitleFacts]],
    ) -> Cover:
        key = (tuple(hits), frozenset(held))
        got = known.get(key)
        if got is None:
            facts = self.facts(hits, held)
            score, present = self.weights.title * facts.share**2, 0.0
            if self.several:
                score += self.ideas_in_title(facts.ideas)
                present = self.ideas.present(facts.ideas)
            got = known[key] = (score, present, facts)
        score, present, facts = got
        return (score, present, hits, facts)

    def facts(self, hits: list[int], held: set[int]) -> TitleFacts:
        """TitleFacts of a title holding these alternatives (-1: none) and these long-form words."""
        groups = self.plan.groups
        words = sum(len(g.alts[h].words) for g, h in zip(groups, hits, strict=True) if h >= 0)
        return TitleFacts(self.share(hits), words, self.ideas.shares(hits, held) if self.several else [])

    def lead(self, level: int, ideas: float) -> float:
        """What orders papers first: how many groups they match, or with several ideas, how many ideas they are about
        (the groups then only break ties)."""
        return ideas * 10 + level * 0.5 if self.several else level * 10

    def ideas_in_title(self, shares: list[float]) -> float:
        """With several ideas: a title holding every idea beats one holding part of them, however fully."""
        n = len(shares)
        w = self.weights
        return w.ideas * self.ideas.present(shares) / self.ideas.whole + w.ideas_share * sum(shares) / n

    def rank(self, found: dict[int, Candidate], pinned: dict[int, str], need: int | None = None) -> list[ScoredPaper]:
        """Every candidate ordered: a cheap title-based score for all, full scores for the best `rerank` (which then
        lead, in full-score order); the same candidates always come out in the same order.

        With `need`, only the first `need` are sure to be in full-score order (the rest follow in some order): full
        scores are then worked out only for candidates whose title leaves them a chance of those places."""
        groups, w = self.plan.groups, self.weights
        # Only a person or filters: nothing to score, so named papers first, then in the order found
        if not groups:
            named = [ScoredPaper(r, w.named, pinned=pinned[r]) for r in sorted(pinned) if r in found]
            return named + [ScoredPaper(r, 0.0) for r in found if r not in pinned]
        query_words = sum(len(g.alts[0].words) for g in groups)
        if self.titles is not None:
            every = self.titles
            texts = {rowid: every[rowid] for rowid in found if rowid in every}
        else:
            texts = {rowid: norm(title) for rowid, (title,) in columns_of(self.db, "title", list(found)).items()}
        covers = self.covers(list(texts.values()))
        cover = dict(zip(texts, covers, strict=True))
        first = self._by_title(found, pinned, texts, covers, query_words)
        head = w.rerank if len(groups) <= 3 else w.rerank // 2
        top, rest = first[:head], first[head:]
        titled = {s.rowid: self.title_score(texts[s.rowid], cover[s.rowid], s.pinned) for s in top}
        order = sorted(top, key=lambda s: (-titled[s.rowid], s.rowid))  # most promising first
        places = len(order) if need is None else min(max(1, need), len(order))
        done = order[:places]
        self._score_all(done, texts, cover, titled)
        unscored: list[ScoredPaper] = []
        if places < len(order):
            # An abstract adds at most `ceiling` to its title's part: a candidate that cannot pass the need-th full
            # score so far cannot reach the page. Those that can are a prefix of the rest (most promising first),
            # and scoring them only raises the bar, so one more round settles the page.
            bar = sorted((s.score for s in done), reverse=True)[places - 1] - 1e-9
            rest_of_top = order[places:]
            more = sum(1 for s in rest_of_top if titled[s.rowid] + self.ceiling >= bar)
            self._score_all(rest_of_top[:more], texts, cover, titled)
            done += rest_of_top[:more]
            unscored = rest_of_top[more:]  # in title-score order, after every scored candidate
        done.sort(key=lambda s: (-s.score, s.rowid))
        return done + unscored + rest

    def _by_title(
        self,
        found: dict[int, Candidate],
        pinned: dict[int, str],
        texts: dict[int, bytes],
        covers: list[Cover],
        query_words: int,
    ) -> list[ScoredPaper]:
        """Every candidate by a cheap score of its title and how it was found, best first (the full score replaces it
        for the best few); equal scores stay in rowid order."""
        first: list[ScoredPaper] = []
        groups, w = self.plan.groups, self.weights
        ideas, all_groups, lead = self.ideas.whole, len(groups), self.lead
        for (rowid, text), (title, present, _, _) in zip(texts.items(), covers, strict=True):
            level, tier = found[rowid]
            if tier <= 1:  # found by a title query: every group (so every idea) is in the title
                words = max(1, text.count(b" ") - 1)
                pre = lead(level, ideas) + w.title + w.title_words * min(1.0, query_words / words)
                pre += w.ideas + w.ideas_share if ideas else 0.0
            else:  # every idea is somewhere when every group is
                pre = lead(level, ideas if level == all_groups else present) + title
                # found holding the query as a phrase: length generalization
                if tier == PHRASE_TIER and self.phrase:
                    pre += w.abstract_phrase
            if pinned and rowid in pinned:
                pre += w.named
                first.append(ScoredPaper(rowid, pre, level, pinned=pinned[rowid]))
            else:
                first.append(ScoredPaper(rowid, pre, level))
        # Then by score, highest first: equal scores stay in rowid order (the sort is stable)
        first.sort(key=_ROWID)
        first.sort(key=_SCORE, reverse=True)
        return first

    def holding(self, rowids: list[int]) -> set[int]:
        """The papers among these whose title or abstract holds a group as ranking reads it: what a result shows as why
        it is there. A paper BM25 brought for one word of a compound or long form (`not` of `AND:NOT`, `view` of
        multi-view) may hold none."""
        rows = columns_of(self.db, "CAST(title AS BLOB), CAST(abstract AS BLOB)", rowids) if rowids else {}
        counters = [g.counters for g in self.plan.groups]
        return {
            rowid
            for rowid, texts in rows.items()
            if any(found_alt(c, text) >= 0 for text in map(norm, (t or b"" for t in texts)) for c in counters)
        }

    def matched(self, scored: ScoredPaper, ttext: bytes, atext: bytes, authors: bytes) -> None:
        """What a paper ranked by its title alone holds where (ScoredPaper.in_title, in_abstract, level), worked out
        without scoring it again: what a result on the page shows as why it is there."""
        self._found(scored, self.covers([ttext])[0][2], atext, authors)

    def _found(self, scored: ScoredPaper, hits: list[int], atext: bytes, authors: bytes) -> tuple[float, list[int]]:
        """Record which alternative of each group the title (`hits`) and the abstract hold, and how many groups the
        paper matches anywhere (its authors too); the abstract's BM25-style evidence, summed over the groups."""
        scored.in_title = hits
        lnorm = len(atext) / 1300
        s_abs, matched = 0.0, 0
        in_abstract: list[int] = []
        scored.in_abstract = in_abstract
        for g, h in zip(self.plan.groups, hits, strict=True):
            alt, tf = first_hit(g.counters, atext)
            in_abstract.append(alt)
            s_abs += g.weight * tf / (tf + 1.2 * (0.25 + 0.75 * lnorm))
            if h < 0 and alt < 0 and found_alt(g.counters, authors) < 0:
                continue
            matched += 1
        scored.level = max(scored.level, matched)
        return s_abs, in_abstract

    def in_turn(self, ranked: list[ScoredPaper]) -> list[ScoredPaper]:
        """For a comparison of two ideas (DPO vs PPO): named papers and papers about both first, then each side's
        papers in turn, the side of the better paper first, so the side more papers write about does not hide the
        other. Only the fully scored head is reordered (what it holds where is known); the rest follows as ranked."""
        if len(self.ideas) != 2:
            return ranked
        head = list(itertools.takewhile(lambda s: bool(s.in_title) or s.pinned, ranked))
        first: list[ScoredPaper] = []
        sides: tuple[list[ScoredPaper], list[ScoredPaper]] = ([], [])
        neither: list[ScoredPaper] = []
        context = self.shared_context()
        for scored in head:
            hit = [scored.in_title[i] >= 0 or scored.in_abstract[i] >= 0 for i in range(len(scored.in_title))]
            if hit and not all(hit[i] for i in context) and not scored.pinned:
                # "diffusion vs autoregressive image generation": an audio paper
                neither.append(scored)
                continue
            words = [[i for i in members if i not in context] for members in self.ideas.members]
            on = [any(hit[i] for i in side) for side in words] if hit else [True, True]
            if all(on) or scored.pinned:
                first.append(scored)
            elif any(on):
                sides[on.index(True)].append(scored)
            else:
                neither.append(scored)
        # The better paper's side first
        order = sorted(sides, key=lambda side: -side[0].score if side else 0.0)
        turns = [s for pair in itertools.zip_longest(*order) for s in pair if s is not None]
        return first + turns + neither + ranked[len(head) :]

    def shared_context(self) -> set[int]:
        """The words a comparison's two sides share: in `diffusion vs autoregressive image generation` the one-word
        side is compared with the first word of the other, and `image generation` is what both are about."""
        if len(self.ideas) != 2:
            return set()
        first, second = self.ideas.members
        if len(first) == 1 and len(second) >= 3:
            return set(second[1:])
        return set()

    def _score_all(
        self,
        batch: list[ScoredPaper],
        texts: dict[int, bytes],
        cover: dict[int, Cover],
        titled: dict[int, float],
    ) -> None:
        """Full scores for a batch of candidates, the abstracts not in memory read in one query."""
        known = self.abstracts
        missing = [s.rowid for s in batch] if known is None else [s.rowid for s in batch if s.rowid not in known]
        # As their UTF-8 bytes: ranking matches bytes, so decoding them into str would be undone at once.
        rows = columns_of(self.db, "CAST(abstract AS BLOB), CAST(authors AS BLOB)", missing) if missing else {}
        read = {rowid: (norm(a or b""), norm(au or b"")) for rowid, (a, au) in rows.items()}
        if known is not None:
            # a dict update is atomic: threads searching at once only read some twice
            known.update(read)
        abstracts = read if known is None else known
        for scored in batch:
            abstract, authors = abstracts.get(scored.rowid, (b"  ", b"  "))
            _, _, hits, facts = cover[scored.rowid]
            title = (hits, facts, titled[scored.rowid])
            scored.score = self.score(scored, texts[scored.rowid], abstract, authors, title)
            # title_score saw it when it scored the title
            scored.looked_up = texts[scored.rowid] in self.looked_up

    def title_score(self, ttext: bytes, cover: Cover, pinned: str | None = None) -> float:
        """The part of the full score a title fixes: what covers() scored (its share of the groups, squared: the
        whole topic in the title counts; the ideas it holds), the share of its words, exact words, the query as a
        phrase, a near-identical title."""
        facts, w = cover[3], self.weights
        words = max(1, ttext.count(b" ") - 1)
        score = cover[0] + w.title_words * min(1.0, facts.words / words)
        # "transformer" in the title beats "transformations", which only shares the stem.
        if self.exacts:
            score += w.exact_word * sum(weight for weight, exact in self.exacts if exact(ttext)) / self.total_weight
        if self.phrase:
            score += w.title_phrase * min(1, self.phrase(ttext))
        if self.terms and any(cover[2][i] >= 0 for i in self.terms):
            score += w.term_in_title
        if self.lookup:
            similarity = fuzz.ratio(self.lookup, ttext.decode("utf-8", "ignore").strip())
            if similarity >= w.lookup_similarity:
                score += 20 + (similarity - w.lookup_similarity)
                self.looked_up.add(ttext)
        if pinned:
            score += w.named
        return score

    def score(
        self,
        scored: ScoredPaper,
        ttext: bytes,
        atext: bytes,
        authors: bytes,
        title: tuple[list[int], TitleFacts, float] | None = None,
    ) -> float:
        """Coverage × 10 (of groups, or of ideas), then the title's part (title_score), the abstract's evidence and
        the query as a phrase in it. Title, abstract and authors as matching.norm gives them; `title`: what covers()
        and title_score() found in `ttext` (else read here)."""
        if title is None:  # one title on its own, read as covers() reads many
            read = self.covers([ttext])[0]
            hits, facts, score = read[2], read[3], self.title_score(ttext, read, scored.pinned)
        else:
            hits, facts, score = title
        s_abs, in_abstract = self._found(scored, hits, atext, authors)
        if self.several:  # how many ideas the paper is about leads
            anywhere = [max(t, a) for t, a in zip(facts.ideas, self.ideas.read(atext, in_abstract), strict=True)]
            score += self.lead(scored.level, self.ideas.present(anywhere))
        else:
            score += self.lead(scored.level, 0)
        score += s_abs / self.total_weight  # (below 1: each group's term is below its weight)
        if self.phrase:
            phrases = self.phrase(atext)
            score += (
                self.weights.abstract_phrase * (1 + 0.5 * min(2, phrases - 1)) if phrases else 0
            )  # (at most twice that)
        return score
