"""Retrieval: candidate papers from a few bounded FTS5 queries, built only from words we quoted ourselves.

Each query reads at most CAP (120) rowids in rowid order: every group anywhere; when that is too many, the
stricter ones pick instead (the query as a phrase in the title, every group in the title, the phrase anywhere);
when it is too few, subsets of the groups. FTS5's own bm25 is never asked for: it counts every document holding
each term, far too slow for common words at 110,000 papers (docs/benchmarks.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import NamedTuple

from bot.papers import fts, fulltext, matching
from bot.papers.reading import Reader
from bot.search import counting
from bot.search.cache import IndexVersion
from bot.search.candidates import TOTAL_CAP, Candidate, Retrieval
from bot.search.expressions import bm25_units, conjunction, costly, every, exclusions, fenced, seeks
from bot.search.groups import TermGroup
from bot.search.joining_words import broad_ideas
from bot.search.matching import Alternative
from bot.search.retrieval_plan import RetrievalPlan
from bot.search.weights import DEFAULT, Thresholds

CAP = 120  # rowids read per candidate query: bounded work however common the words are
CAP_TITLE = 60  # rowids read per title query (every one holds all the words in its title)
RELAX_BELOW = 10  # fewer papers than this match every word: add papers matching most of them
DEEP_BLOCK = 200  # papers ranked together per further block when paging past the first candidates
FILTER_SCAN = 20_000  # with status:/has:code, matches scanned at most per candidate query...
FILTER_COUNT = 4000  # ...and for the total
# Fewer papers than this match all of three or more groups: look for titles missing one
FEW_FOR_MANY = 40
MISSING_ONE_TRIES = 4  # ...leaving out each of the (four most common) groups in turn
# Queries up to this many groups widen by leaving out a generic idea first (longer: titles)
IDEAS_RELAXED = 5
FEW_TITLES = 120  # titles the titles table may hand papers_fts to check, one by one or...
# ...by reading all the rest's matches, when it is in fewer papers than this per rowid and term
SCAN_RATIO = 40
# Candidate.tier of papers found holding the query as a phrase anywhere (or rare groups in the title)
PHRASE_TIER = 2


class _DeepScan(NamedTuple):
    """Where the rowid scan of every group stopped, so a deeper page reads on from there instead of from the top."""

    expression: str  # every group anywhere
    after: int  # the last rowid read


class CandidateRetriever:
    """Candidate rowids from a few bounded FTS5 queries, strictest first: the work per query stays bounded however
    common its words are, and nothing depends on the page asked for, so paging shows each paper once."""

    def __init__(
        self,
        db: Reader,
        plan: RetrievalPlan,
        titles_table: bool = False,
        index_file: IndexVersion | None = None,
        thresholds: Thresholds = DEFAULT.thresholds,
    ) -> None:
        self.db, self.plan, self.thresholds = db, plan, thresholds
        # The total may be counted beside on this file (bot.search.counting)
        self.index_file = index_file
        # The titles table (search_tables.rebuild_titles) can answer title queries when nothing else is asked of a
        # paper's text (status:, has:, venues and people filter the rowids either table returns, in rowids()).
        self.titles_answer = titles_table and not (plan.authors or exclusions(plan))
        self.found: dict[int, Candidate] = {}
        # set when more papers match every group than were read
        self.deeper: _DeepScan | None = None

    def expression(self, groups: list[TermGroup], title_only: bool = False) -> str | None:
        """The FTS5 expression requiring these groups (and the author terms), minus the exclusions."""
        if title_only:
            return self.in_title_column(self.body(groups, title_only=True))
        return self.restricted(self.body(groups))

    @staticmethod
    def body(groups: list[TermGroup], title_only: bool = False) -> str:
        """These groups ANDed, rarest first: FTS5 steps through an AND's first child row by row and seeks the
        others (same matches). `title_only`: without `title:` column filters (the caller limits the whole)."""
        ordered = sorted(groups, key=lambda g: g.df)
        plain = [g for g in ordered if not costly(g)]
        phrases = [g for g in ordered if costly(g)]
        cheap = [g.expression() for g in plain]
        # a phrase of common words: its rarest words narrow the rows its positions are read for. A hint
        if plain:
            # rarer than every plain group stays out: its phrase is quick for FTS5 already, and each child costs.
            cheap += [g.hint.expression for g in phrases if g.hint and g.hint.papers >= plain[0].df]
        slow = [g.expression() if title_only else g.fielded_expression() for g in phrases]
        return conjunction(cheap, slow)

    def in_title_column(self, body: str) -> str | None:
        """restricted() of `body` asked of the title column of papers_fts."""
        return self.restricted(fts.in_columns(("title",), f"({body})") if body else body)

    def in_titles(self, body: str, cap: int) -> list[int]:
        """Up to cap+1 rowids, in rowid order, of papers whose titles match `body`, with the author terms,
        exclusions and filters. The titles table answers when it can (a title word's postings there are a fraction
        of its postings in papers_fts); otherwise a {title} filter on papers_fts finds
        the same papers."""
        if body and self.titles_answer:
            return self.rowids(body, cap, titles=True)
        return self.rowids(self.in_title_column(body) or "", cap)

    def in_titles_and_text(self, in_title: list[TermGroup], in_text: list[TermGroup], cap: int) -> list[int]:
        """Up to cap+1 rowids, in rowid order, of papers whose titles hold `in_title` and whose text holds `in_text`.
        When the titles table finds only a few such titles, papers_fts checks just those (holding); otherwise one
        papers_fts query with a title filter, as without the table."""
        rest = self.expression(in_text)
        if not in_title or not rest:
            return []
        body = self.body(in_title, title_only=True)
        if self.titles_answer:
            titled = self.rowids(body, FEW_TITLES, titles=True)
            if not titled:
                return []
            if len(titled) <= FEW_TITLES:  # every such title: keep those whose papers hold the rest
                held = self.holding(in_text, rest, titled)
                return [rowid for rowid in titled if rowid in held][: cap + 1]
        # (the ones in the title are in the paper: FTS5 need not check them twice)
        return self.rowids(f"{fenced(self.in_title_column(body) or '')} AND {rest}", cap)

    def holding(self, groups: list[TermGroup], expr: str, rowids: list[int]) -> set[int]:
        """Which of these rowids (ascending) hold every group (`expr`: their expression). FTS5 checks one rowid by
        setting up every term again (docs/benchmarks.md), and reads a match in rowid order for well under a
        microsecond: when the rarest group is in fewer than SCAN_RATIO papers per term to check, all matches between
        the first and last rowid are read."""
        terms = sum(len(alt.words) for g in groups for alt in g.alts)
        if min(g.df for g in groups) <= SCAN_RATIO * len(rowids) * terms:
            return matching.matching_between(self.db, expr, rowids[0], rowids[-1])
        return matching.matching_among(self.db, expr, rowids)

    def restricted(self, body: str) -> str | None:
        """An expression that also requires the author terms and leaves out the exclusions (None: nothing to ask)."""
        plan = self.plan
        parts = ([f"({body})"] if body else []) + [fts.in_columns(("authors",), a) for a in plan.authors]
        if not parts:
            return None
        expr = " AND ".join(parts)
        negs = exclusions(plan)
        if negs:
            expr = f"({expr}) NOT ({' OR '.join(negs)})"
        return expr

    def rowids(self, expr: str, cap: int = CAP, after: int = 0, titles: bool = False) -> list[int]:
        """Up to cap+1 matching rowids in rowid order, after `after` (filters applied here: as SQL, FTS5 would
        re-run the match once per allowed rowid)."""
        if not expr:
            return []
        if not self.plan.filtered:
            return list(matching.matching_rowids(self.db, expr, cap + 1, after, titles))
        out: list[int] = []
        cursor = matching.matching_rowids(self.db, expr, FILTER_SCAN, after, titles)
        passes = self.plan.passes_filters
        for rowid in cursor:
            if passes(rowid):
                out.append(rowid)
                if len(out) > cap:
                    break
        return out

    def by_bm25(self, depth: int, postings: int) -> list[int]:
        """Up to `depth` rowids ranked by FTS5's bm25 (columns alike) over the query's words (as corrected, without
        function words) each quoted and OR'd, with the quoted phrases, title: terms, authors, exclusions and filters:
        the plain baseline's order, whose idf weighs the rare words of a long query where few papers hold them all.
        FTS5 scores every paper holding a word, so only the rarest words whose papers add up to
        `postings` are asked (none when even the rarest is that common): bounded work however many papers there are.
        A word's papers are those holding its stem (optimizers: optim, 40,000 of 110,000 papers), counted up to the
        budget (a fraction of a millisecond)."""
        units = list(dict.fromkeys(u for g in self.plan.groups if not (g.quoted or g.scope) for u in bm25_units(g)))
        return self.by_bm25_of(units, depth, postings)

    def by_bm25_of(self, units: list[tuple[str, ...]], depth: int, postings: int) -> list[int]:
        """by_bm25 over these words or phrases (a description's words with their synonyms), within the query's
        phrases, title: terms, exclusions and filters."""
        plan = self.plan
        if depth <= 0 or not units:
            return []
        held = {u: fulltext.count_matches(self.db, fts.phrase(u), postings + 1) for u in units}
        kept: list[tuple[str, ...]] = []
        read = 0
        for unit in sorted(units, key=held.__getitem__):
            read += held[unit]
            if read > postings:
                break
            kept.append(unit)
        if not kept:
            return []
        required = [g.fielded_expression() for g in plan.groups if g.quoted or g.scope]
        expr = self.restricted(" AND ".join([f"({' OR '.join(fts.phrase(u) for u in kept)})", *required]))
        rows = matching.bm25_order(self.db, expr or "", depth if not plan.filtered else FILTER_COUNT)
        return [rowid for rowid in rows if plan.passes_filters(rowid)][:depth]

    def count(self, groups: list[TermGroup], at_least: int, early: Callable[[], int] | None = None) -> Retrieval:
        """Matches for a query that read more than `at_least` rows, counted with each group's first alternative
        only (phrase alternatives such as "key value" make FTS5 check positions in every common document). When
        a first alternative is itself a phrase (large language models, title:...), counting would read positions
        in up to TOTAL_CAP papers, more than the rest of the search costs at 110,000 papers: the answer says
        "at_least+" instead. `early`: that count, started by count_early. (`partial` is the caller's.)"""
        expr = self.count_expression(groups)
        if expr is None:
            return Retrieval(at_least, False, False) if groups else Retrieval(0, True, False)
        if not self.plan.filtered:
            single = all(len(g.alts) == 1 for g in groups)
            if early:
                return Retrieval(at_least, single, False, early)
            n = counting.count_matches(self.db.conn, expr, TOTAL_CAP)
            return Retrieval(n, single and n < TOTAL_CAP, False)
        scanned = kept = 0
        passes = self.plan.passes_filters
        for rowid in matching.matching_rowids(self.db, expr, FILTER_COUNT):
            scanned += 1
            kept += passes(rowid)
        return Retrieval(min(kept, TOTAL_CAP), scanned < FILTER_COUNT and kept < TOTAL_CAP, False)

    def count_expression(self, groups: list[TermGroup]) -> str | None:
        """What count() asks FTS5: each group's first alternative (None when one is a phrase, or nothing is asked)."""
        firsts = [TermGroup(g.label, g.alts[:1], g.scope) for g in groups]
        return None if any(costly(g) for g in firsts) else self.expression(firsts)

    def count_early(self, groups: list[TermGroup]) -> Callable[[], int] | None:
        """The count of every match, started on another core before the candidates are read when it will be slow
        (bot.search.counting): it runs while this thread waits on FTS5, which lets go of the GIL, and while ranking
        holds it. When the candidates turn out to be every match, it is left to finish unread."""
        if self.index_file is None or self.plan.filtered or seeks(groups) < counting.BESIDE_FROM:
            return None
        expr = self.count_expression(groups)
        return counting.beside(self.db.conn, self.index_file, expr, TOTAL_CAP) if expr else None

    def add(self, rowids: list[int], level: int, tier: int, cap: int = CAP) -> None:
        """Record candidates; a paper keeps the first (strictest) way it was found."""
        candidate = Candidate(level, tier)  # one shared, immutable record per call
        for rowid in rowids[:cap]:
            if rowid not in self.found:
                self.found[rowid] = candidate

    def relaxations(self) -> Iterable[list[TermGroup]]:
        """Smaller sets of groups to require, largest first: without an idea of generic words first (in a question
        up to IDEAS_RELAXED words); then every subset for short queries; for long ones, the rarest groups (words the
        index does not know go first), halving: long queries are titles or sentences."""
        groups = self.plan.groups
        broad = broad_ideas(groups)
        by_idea = []
        if broad and len(groups) <= IDEAS_RELAXED:
            # first without an idea of generic words (certified robustness | of neural networks: papers on it need
            # not say neural networks); leaving out a specific idea would let the other fill the page alone
            by_idea = [[g for g in groups if g.concept != concept] for concept in sorted(broad)]
            yield from by_idea
        if len(groups) <= 4:
            for size in range(len(groups) - 1, 0, -1):
                subsets = [list(c) for c in itertools.combinations(groups, size)]
                subsets.sort(key=lambda c: -sum(g.weight for g in c if g.df))
                yield from (c for c in subsets if c not in by_idea)
            return
        order = sorted(groups, key=lambda g: (g.df == 0, g.df))  # rarest known words first
        size = len(groups) - 1
        while size >= 1:
            yield order[:size]
            size = min(size - 1, (size + 1) // 2)

    def run(self) -> Retrieval:
        """Fill `found`. Nothing here depends on the page asked for, so paging through results shows each paper
        once, in one order, under one total.

        All groups anywhere first; when that is more than CAP papers, the strict queries (the query as a phrase in
        the title, every group in the title, the phrase anywhere) add the candidates rowid order would miss.
        """
        groups = self.plan.groups
        n = len(groups)
        expr = self.expression(groups)
        if expr is None:
            return Retrieval(0, True, False)
        early = self.count_early(groups)
        # In rowid order, which says nothing of relevance: beyond CAP the strict queries below add the candidates
        # that matter (reading more for long queries changed no judged result: docs/benchmarks.md).
        rows = self.rowids(expr, CAP)
        complete = len(rows) <= CAP
        if not complete and n:
            self.strict(expr, rows)
        self.add(rows, n, 3, CAP)
        # Fewer: relaxed below
        if complete and n >= 3 and RELAX_BELOW <= len(self.found) < FEW_FOR_MANY:
            self.titles_missing_one(groups)
        # Papers matching the words: every word (or, below, most of them). Titles found for their ideas do not
        # count, so that a dozen "Robust Neural Networks" titles do not stop the search from widening to the papers
        # on certified robustness that never say neural networks.
        matching = set(self.found)
        partial = self.titles_with_every_idea() if any(g.concept for g in groups) else False
        if len(matching) < RELAX_BELOW and n > 1:
            # Hardly any paper matches every word: papers matching most of the words come next (for a comparison,
            # DPO vs PPO, each side's: the side more papers write about must not fill the candidates alone).
            relaxed = list(self.relaxations())
            for i, subset in enumerate(relaxed):
                sub = self.expression(subset)
                sub_rows = self.rowids(sub) if sub else []
                if sub_rows:
                    partial = partial or any(r not in self.found for r in sub_rows)
                    self.add(sub_rows, len(subset), 4)
                    matching.update(sub_rows)
                    complete = complete and len(sub_rows) <= CAP
                side_left = self.plan.compares and i + 1 < len(relaxed) and len(relaxed[i + 1]) == len(subset)
                if len(matching) >= RELAX_BELOW and not side_left:
                    break
        if complete:
            return Retrieval(len(self.found), True, partial)
        whole = self.count(groups, CAP, early)
        return whole._replace(total=max(whole.total, len(self.found)), partial=partial)

    def strict(self, expr: str, rows: list[int]) -> None:
        """When more papers match every group than a query reads (`rows`, of `expr`), the candidates rowid order would
        miss: the query as a phrase in the title, every group (or the two rarest) in the title, the phrase anywhere."""
        groups = self.plan.groups
        n = len(groups)
        seq = tuple(self.plan.sequence)
        simple = all(len(g.alts[0].words) == 1 and not g.scope for g in groups)
        phrase = TermGroup("", [Alternative(seq)]) if n > 1 and simple and len(seq) <= 4 else None
        if phrase:
            self.add(self.in_titles(self.body([phrase], title_only=True), CAP_TITLE), n, 0, CAP_TITLE)
        if n <= 2:
            self.add(self.in_titles(self.body(groups, title_only=True), CAP_TITLE), n, 1, CAP_TITLE)
        else:
            # A title filter on a very common word makes FTS5 read that word's whole posting list: ask for
            # the two rarest words in the title, and the rest anywhere.
            rare = sorted(groups, key=lambda g: g.df)[:2]
            others = [g for g in groups if all(g is not r for r in rare)]
            self.add(self.in_titles_and_text(rare, others, CAP_TITLE), n, 2, CAP_TITLE)
        if phrase and len(seq) <= 3:
            self.add(self.rowids(self.expression([phrase]) or "", CAP), n, 2, CAP)
        # Later pages continue the rowid scan from here
        self.deeper = _DeepScan(expr, rows[CAP - 1])

    def titles_with_every_idea(self) -> bool:
        """Papers whose titles hold part of every idea of the query ("transformers for time series forecasting":
        a transformer for weather forecasting), which need not use every word; True when that found new papers.

        Each idea is asked by its rarer words (a long form's too) and single-word alternatives, not phrases: FTS5
        reads positions for phrases and whole posting lists for common words, and neither says much of a title."""
        ideas: dict[int, list[tuple[float, str]]] = {}
        # a quoted phrase, an acronym or a spelling counts as rare
        floor = self.thresholds.rare_word
        for g in self.plan.groups:
            parts = ideas.setdefault(g.concept, [])
            words = g.alts[0].words
            # a compound by its words too: ranking counts it only whole
            if len(words) == 1 or g.quoted:
                parts.append((floor if g.quoted else g.weight, g.alts[0].expression()))
            else:
                parts += [(wt, fts.phrase((w,))) for w, wt in zip(words, g.word_weights, strict=True) if wt]
            # Acronyms, spellings
            parts += [(floor, a.expression()) for a in g.alts[1:] if len(a.words) == 1]
        rare = [[expr for weight, expr in parts if weight >= floor] for parts in ideas.values()]
        asked = [words or [max(parts)[1]] for words, parts in zip(rare, ideas.values(), strict=True)]
        before = len(self.found)
        self.add(self.in_titles(every(asked), CAP_TITLE), 0, 2, CAP_TITLE)
        # An idea of common words only ("language model reasoning") may be
        if any(rare) and not all(rare):
            # anywhere in a paper whose title is about the rest (Self-Play Alignment of LLMs)
            self.add(self.in_titles(every([words for words in rare if words]), CAP_TITLE), 0, 2, CAP_TITLE)
        return len(self.found) > before

    def titles_missing_one(self, groups: list[TermGroup]) -> None:
        """Papers whose titles hold every group but one: few papers match a long query's every word as FTS5 stems
        them (theory is not theoretical to FTS5), and ranking, which reads crude stems, may still find the one."""
        for skip in sorted(range(len(groups)), key=lambda i: -groups[i].df)[:MISSING_ONE_TRIES]:
            body = self.body([g for i, g in enumerate(groups) if i != skip], title_only=True)
            self.add(self.in_titles(body, CAP_TITLE), len(groups) - 1, 2, CAP_TITLE)

    def next_block(self) -> list[int]:
        """The next DEEP_BLOCK papers matching every group, in rowid order after those already read (deep pages)."""
        if self.deeper is None:
            return []
        expr, after = self.deeper
        rows = self.rowids(expr, DEEP_BLOCK, after=after)
        self.deeper = _DeepScan(expr, rows[DEEP_BLOCK - 1]) if len(rows) > DEEP_BLOCK else None
        fresh = [r for r in rows[:DEEP_BLOCK] if r not in self.found]
        self.add(fresh, len(self.plan.groups), 3, DEEP_BLOCK)
        return fresh
