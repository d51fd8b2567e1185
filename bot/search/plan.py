"""Planning: a parsed query becomes groups of alternatives (corrections, variants, acronyms) plus filters.

Each query word becomes a *group*: the word as typed or corrected, its British/US spellings, its run-together or
split forms, and its acronym or long form (MoE ↔ mixture of experts). A paper matches a group when it holds any of
its alternatives; retrieval requires the groups, ranking weighs them by rarity.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterable

from bot.papers import fts, matching
from bot.papers.reading import Reader
from bot.search import joining_words, typos
from bot.search import query as ql
from bot.search.cache import IndexCache
from bot.search.expressions import author_phrase
from bot.search.groups import Hint, Slot, TermGroup
from bot.search.long_forms import LongForms
from bot.search.matching import Alternative, counter, same_case
from bot.search.query_words import WordCorrector
from bot.search.retrieval_plan import AlsoSearched, PlanDraft, SearchedApart
from bot.search.retrieval_plan import RetrievalPlan as RetrievalPlan
from bot.search.rewrites import Rewrite, recased, spliced
from bot.search.scoring import idf
from bot.search.weights import DEFAULT, Weights
from bot.text.acronyms import long_key
from bot.text.person_names import read_back
from bot.text.stopwords import FUNCTION_WORDS

# a common word is split only into parts this long (pre-training; not in-context: cheaper)
JOINED_PART = 3
_BREAK = "\x00"  # a slot's word where a quoted phrase stands: no long form spans it
# A version, size or variant in a model's name (-3, -v1.5, -7B, -T, -large, -mini, -uncased): alone it says nothing.
_VERSION = re.compile(r"\d+|v\d*|\d+[kmbt]|[a-z]|base|large|small|tiny|mini|medium|huge|xx?l|pro|instruct|uncased")
# FlashAttention-3, Llama-3.1 (not "NEAR(a")
_HYPHENATED = re.compile(r"\w+(?:\.\w+)*(?:-\w+(?:\.\w+)*)+")


class QueryPlanner:
    """Turns a parsed query into a RetrievalPlan, once; it asks the index only for word frequencies (cached per
    index), and how its words were meant of the WordCorrector it holds. `is_name`: an author's name, never a typo."""

    def __init__(
        self,
        db: Reader,
        cache: IndexCache,
        parsed: ql.ParsedQuery,
        is_name: Callable[[str], bool] | None = None,
        weights: Weights = DEFAULT,
    ) -> None:
        self.db, self.cache, self.parsed, self.thresholds = db, cache, parsed, weights.thresholds
        self.draft = PlanDraft()
        self.words = WordCorrector(db, cache, parsed, self.draft.unknown, is_name, weights.thresholds)
        share = weights.thresholds.spelled_out
        self.long = LongForms(db, lambda: cache.acronyms(db), cache.spelled_out, self.words.df, share)
        # Spent correcting typos, which the bench reports apart from the rest of the plan
        self.correcting_ms = 0.0

    def df(self, words: Iterable[str]) -> dict[str, int]:
        """Document frequency of each word in names, titles and abstracts (0: unknown), as the corrector reads it."""
        return self.words.df(words)

    def build(
        self, within: frozenset[int] | None = None, outside: frozenset[int] = frozenset(), narrowed: bool = False
    ) -> RetrievalPlan:
        """The plan: groups in typed order, exclusions, author terms, filters and weights. `within` and `outside`:
        papers the answer is limited to, or kept from, besides the query's own filters (the venues searched, a named
        person's papers); `narrowed`: such a limit applies even when it lets every paper through."""
        if self.draft.groups or self.draft.sequence:
            raise RuntimeError("a QueryPlanner builds one plan")
        parsed, plan = self.parsed, self.draft
        positive = parsed.positive
        only_stop = all(w in FUNCTION_WORDS for t in positive for w in t.words)
        words = {w for t in parsed.terms for w in t.words}
        words |= {v for w in words for v in typos.spellings(w) + list(read_back(w))}
        self.words.df(words)  # one query for every word we may ask about
        slots: list[Slot] = []
        rewrites: list[Rewrite] = []
        for term in positive:
            slots += self._slots(term, only_stop, rewrites)
        joining_words.free_forms(plan.groups, slots, lambda w: bool(self.words.df([w])[w]), self.words.papers_writing)
        plan.sequence = [s.word for s in slots if s.word != _BREAK]
        joining_words.number_ideas(plan.groups, slots, _BREAK)
        plan.compares = parsed.compares
        means = joining_words.means(plan.groups, slots)  # (before long forms merge groups)
        self.join_neighbours(slots)
        self.long_forms(slots)
        self.short_forms(positive)
        typed = [w for t in positive for w in t.words]
        plan.groups = joining_words.without_field_ideas(plan.groups, typed, means, self.alts_df)
        self._exclusions_and_authors()
        self.filters(within, outside, narrowed)
        self.weigh()
        if rewrites:
            plan.corrected = spliced(parsed.text, rewrites)
        plan.free_text = " ".join(w for w in plan.sequence)
        return plan.frozen()

    def _slots(self, term: ql.Term, only_stop: bool, rewrites: list[Rewrite]) -> list[Slot]:
        """One positive term's words in the plan, each in the slot of its group (a quoted phrase: one break), with
        its correction recorded and the rewrite the answer shows added to `rewrites`."""
        plan = self.draft
        if term.quoted:
            plan.groups.append(self.group(term.text, [Alternative(term.words)], term.field))
            plan.groups[-1].quoted = True
            return [Slot(None, _BREAK, len(plan.groups) - 1)]  # it breaks any long form around it
        started = time.perf_counter()
        rejoined = self.words.rejoined(term.words)
        split = None if rejoined else self.words.split_at_capitals(term)
        names = self.words.camel_names(term)
        fixed = (
            rejoined
            or (split and split[0])
            or self.words.corrected_compound([self.words.correct(w, w in names) for w in term.words], term.words, names)
        )
        self.correcting_ms += (time.perf_counter() - started) * 1000
        shown = term.text  # the term as the answer will show it
        if rejoined:
            shown = same_case(term.text, "-".join(rejoined))
            plan.corrections[term.text.lower()] = "-".join(rejoined)
            rewrites.append(Rewrite(term.span, shown))
        elif split:
            shown = split[1]
            plan.corrections[term.text.lower()] = " ".join(fixed)
            rewrites.append(Rewrite(term.span, shown))
        elif fixed != list(term.words):
            for old, new in zip(term.words, fixed, strict=True):
                if old != new:
                    shown = re.sub(re.escape(old), recased(new), shown, count=1, flags=re.I)
                    plan.corrections[old] = new
            rewrites.append(Rewrite(term.span, shown))
        if all(w in FUNCTION_WORDS for w in fixed) and not only_stop:  # `for`, and `AND-AND` alike
            return [Slot(None, w) for w in fixed]
        named = [w for w in fixed if not _VERSION.fullmatch(w) and w not in FUNCTION_WORDS]
        # FlashAttention-3
        if named and _HYPHENATED.fullmatch(term.text) and self.unwritten(fixed, named):
            plan.apart.append(SearchedApart(shown, " ".join(named)))
            # Stable-Diffusion-v1.5
            if len(named) > 1 and self.words.papers_writing(Alternative(tuple(named))):
                group = self.add_group(named, term.field)
                return [Slot(group, w) for w in named]
            # mixture-of-depths: one idea
            return [Slot(self.add_group([w], term.field), w) for w in named]
        same = self.add_group(fixed, term.field)
        return [Slot(same, w) for w in fixed]

    def _exclusions_and_authors(self) -> None:
        """The excluded terms as groups (with their spellings and long forms), and the author: terms as FTS5 phrases."""
        parsed, plan = self.parsed, self.draft
        for term in parsed.negative:
            if term.literal:
                # (-c++: the papers writing it are denied by filters(), not every paper with a c)
                continue
            alts = [Alternative(term.words)]
            if len(term.words) == 1 and not term.quoted:
                alts += [Alternative((v,)) for v in typos.spellings(term.words[0]) if self.words.df([v])[v]]
                alts += self.long.expansions(term.words[0], term.text)
            plan.negatives.append(TermGroup(term.text, alts))
        for term in parsed.authors:
            (plan.neg_authors if term.negated else plan.authors).append(author_phrase(term.words))
            if not term.negated:
                plan.author_words.append(term.words)

    def add_group(self, words: list[str], scope: str | None) -> int:
        """The index of the group for these words (a new one unless the query asked them already: "diffusion
        diffusion" is one group), with other spellings of a word, or a compound's run-together form."""
        groups = self.draft.groups
        alts = [Alternative(tuple(words))]
        if len(words) == 1:
            alts += self.variants(words[0])
        else:
            joined = "".join(words)
            if self.worthwhile(self.words.df([joined])[joined], min(self.words.df(words).values())):
                alts.append(Alternative((joined,)))
        same = next((i for i, g in enumerate(groups) if g.alts[0] == alts[0] and g.scope == scope), None)
        if same is None:
            groups.append(self.group(" ".join(words), alts, scope))
            groups[-1].compound = len(words) > 1
            same = len(groups) - 1
        return same

    def unwritten(self, words: list[str], named: list[str]) -> bool:
        """A compound of two or more words no paper writes, run together or not, though each of its `named` words
        is known (FlashAttention-3: flashattention)."""
        joined = "".join(words)
        df = self.words.df([*words, joined])
        if len(words) < 2 or df[joined] or not all(df[w] for w in named):
            return False
        return self.words.papers_writing(Alternative(tuple(words))) == 0

    def alts_df(self, alts: list[Alternative]) -> int:
        """About how many papers hold any of these alternatives (ML or machine learning): the most of any, each
        counted by its rarest word."""
        return max((found[1] for found in map(self.rarest, alts) if found), default=0)

    def group(self, label: str, alts: list[Alternative], fieldname: str | None) -> TermGroup:
        """A group, scoped to titles when the term was typed as title:."""
        return TermGroup(label, alts, "title" if fieldname == "title" else None)

    @staticmethod
    def worthwhile(alt_df: int, word_df: int) -> bool:
        """An alternative spelling earns its place in the query when it adds more than a sliver of papers
        (each OR branch makes FTS5 slower: "languagemodels" beside "language" costs more than it finds)."""
        return alt_df > 0 and (word_df == 0 or alt_df >= max(2, 0.02 * word_df))

    def variants(self, word: str) -> list[Alternative]:
        """Other spellings, the split of a run-together word (kvcache → "kv cache"), or a prefix for unknown words."""
        alts = [
            Alternative((v,))
            for v in typos.spellings(word) + typos.adjectives(word) + self.words.spelled_otherwise(word)
            if self.worthwhile(self.words.df([v])[v], self.words.df([word])[word])
        ]
        common = typos.common_neighbour(word, self.cache.vocab, self.words.fetch_df, self.words.fetch_prefix)
        if common and self.words.slipped(word, common):
            alts.append(Alternative((common,)))
            self.draft.also.append(AlsoSearched(word, common))
        df = self.words.df([word])[word]
        if df < self.thresholds.rare_compound:
            parts = typos.split_compound(word, self.words.df)
            if parts and self.worthwhile(min(self.words.df(parts).values()), df):
                alts.append(Alternative(parts))
        elif apart := self.written_apart(word, df):  # finetuning: 59 papers, fine-tuning 711
            alts.append(apart)
        if not self.words.df([word])[word] and not alts and len(word) >= 4 and word.isalpha():
            alts.append(Alternative((word,), prefix=True))
        return alts

    def written_apart(self, word: str, df: int) -> Alternative | None:
        """The two words more papers write a common word as (fine-tuning, pre-training) than joined, or None."""
        parts = typos.split_compound(word, self.words.df, parts=2)
        if not parts or min(map(len, parts)) < JOINED_PART:
            return None
        apart = Alternative(parts)
        return apart if self.words.papers_writing(apart, up_to=df + 1) > df else None

    def short_forms(self, positive: list[ql.Term]) -> None:
        """Single-word groups that are acronyms also match their long forms."""
        typed = {w: t.text for t in positive for w in t.words}
        for group in self.draft.groups:
            first = group.alts[0]
            if len(first.words) == 1 and not first.prefix and len(group.alts) < 8:
                word = first.words[0]
                group.alts += [a for a in self.long.expansions(word, typed.get(word, word)) if a not in group.alts]

    def long_forms(self, slots: list[Slot]) -> None:
        """Merge the words of a known long form into one group that also matches its acronym."""
        table = self.cache.acronyms(self.db)
        if not table.longest or len(slots) < 2:
            return
        used: set[int] = set()
        drop: set[int] = set()
        i = 0
        while i < len(slots):
            step = 1
            # Most starts are no long form's first word
            longest = table.firsts.get(slots[i].word, 0)
            for n in range(min(longest + 2, len(slots) - i), 1, -1):
                span = slots[i : i + n]
                gids = list(dict.fromkeys(s.group for s in span if s.group is not None))
                if span[0].group is None or span[-1].group is None or any(s.word == _BREAK for s in span):
                    continue
                if used & set(gids) or not self._whole_groups(span, slots):
                    continue
                shorts = self.long.acronyms_for(long_key(s.word for s in span))
                if shorts is None:
                    continue
                words = tuple(s.word for s in span)
                target = self.draft.groups[gids[0]]
                target.label = " ".join(words)
                target.alts = [Alternative(words)] + [Alternative((short,)) for short in shorts if (short,) != words]
                # a long form of several counts in part
                target.compound = target.compound and len(set(gids)) == 1
                used |= set(gids)
                drop |= set(gids[1:])
                step = n
                break
            i += step
        if drop:
            self.draft.groups = [g for i, g in enumerate(self.draft.groups) if i not in drop]

    @staticmethod
    def _whole_groups(span: list[Slot], slots: list[Slot]) -> bool:
        """A long form may merge whole query terms only, never half of mixture-of-experts."""
        gids = {s.group for s in span if s.group is not None}
        inside = sum(1 for s in span if s.group in gids)
        total = sum(1 for s in slots if s.group in gids)
        return inside == total

    def join_neighbours(self, slots: list[Slot]) -> None:
        """`kv cache` also matches `kvcache`, `data set` also matches `dataset`."""
        pairs = [
            (a.word, b.word)
            for a, b in itertools.pairwise(slots)
            if a.group is not None and b.group is not None and a.group != b.group
        ]
        if not pairs:
            return
        gid = {s.word: s.group for s in slots if s.group is not None}
        known = self.words.df(a + b for a, b in pairs)
        for a, b in pairs:
            if self.worthwhile(known[a + b], min(self.words.df([a])[a], self.words.df([b])[b])):
                for g in (gid[a], gid[b]):
                    group = self.draft.groups[g]
                    alt = Alternative((a + b,))
                    if alt not in group.alts and len(group.alts[0].words) == 1:
                        group.alts.append(alt)

    def filters(self, within: frozenset[int] | None, outside: frozenset[int], narrowed: bool) -> None:
        """status:, has:code and the limits build() is given as one set of allowed rowids (None: no such filter)
        and one of denied ones."""
        parsed, plan, cache = self.parsed, self.draft, self.cache
        allowed: frozenset[int] | None = None
        if parsed.status:
            allowed = frozenset().union(*(cache.rowids(self.db, s) for s in parsed.status))
        if parsed.has_code is True:
            code = cache.rowids(self.db, "code")
            allowed = code if allowed is None else allowed & code
        denied = frozenset().union(*(cache.rowids(self.db, s) for s in parsed.status_excluded))
        if parsed.has_code is False:
            denied |= cache.rowids(self.db, "code")
        for term in parsed.terms:
            # c++: only papers writing it so, not C-index or (C) ones
            if term.literal and term.field is None:
                papers = self.writing_literally(term)
                if term.negated:
                    denied |= papers
                else:
                    allowed = papers if allowed is None else allowed & papers
        if within is not None:
            allowed = within if allowed is None else allowed & within
        denied |= outside
        plan.allowed, plan.denied = allowed, denied
        plan.filtered = allowed is not None or bool(denied) or narrowed

    def writing_literally(self, term: ql.Term) -> frozenset[int]:
        """The papers whose title or abstract writes a term as typed (`C++`), among those FTS5 finds by its words."""
        # not ABC++
        written = re.compile(rf"(?<![\w+#]){re.escape(term.literal or '')}", re.IGNORECASE)
        rows = matching.texts_matching(self.db, fts.phrase(term.words))
        return frozenset(rowid for rowid, title, abstract in rows if written.search(f"{title}\n{abstract}"))

    def weigh(self) -> None:
        """Each group's document frequency (its rarest alternative's rarest word, summed over alternatives) and
        BM25 weight, plus the counters ranking uses."""
        n = self.cache.papers
        for group in self.draft.groups:
            total = 0
            for alt in group.alts:
                if alt.prefix:
                    total += n // 20
                    continue
                rarest = self.rarest(alt)
                total += rarest[1] if rarest else n
            group.df = min(total, n)
            group.weight = idf(group.df, n)
            group.counters = [counter(a) for a in group.alts]
            first = group.alts[0]
            dfs = self.words.df(first.words)
            group.word_weights = tuple(0.0 if w in FUNCTION_WORDS else idf(dfs[w], n) for w in first.words)
            if len(first.words) == 1 and not first.prefix:
                group.exact = counter(Alternative(first.words, exact=True))
            group.hint = self.hint(group)

    def hint(self, group: TermGroup) -> Hint | None:
        """For a group with phrase alternatives (vision language models, VLM): the rarest word of each one, ORed
        (vision OR vlm). Every paper the group matches holds it, and FTS5 checks it with a seek where a phrase costs
        a read of positions, so retrieval asks the phrases only of the papers holding it."""
        if all(len(a.words) == 1 for a in group.alts) or any(a.prefix for a in group.alts):
            return None
        rarest = [self.rarest(alt) for alt in group.alts]
        if not all(rarest):
            return None
        words = dict(r for r in rarest if r)
        if not self.narrows(sum(words.values())):
            return None  # a word most papers use narrows nothing and costs FTS5 a seek per row
        parts = [fts.phrase((word,)) for word in words]
        return Hint(parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")", sum(words.values()))

    def narrows(self, papers: int) -> bool:
        """Whether words that this many papers use are rare enough to narrow retrieval as a hint."""
        return idf(papers, self.cache.papers) >= self.thresholds.rare_word

    def rarest(self, alt: Alternative) -> tuple[str, int] | None:
        """An alternative's rarest word other than function words, and how many papers use it (None: it has only
        function words): what its document frequency is taken from, and what a hint asks for it."""
        words = alt.content_words
        if not words:
            return None
        dfs = self.words.df(words)
        word = min(words, key=lambda w: dfs[w])
        return word, dfs[word]
