"""Correcting: how a query's words were meant, asked of the index's vocabulary and of the phrases its papers write.

A word the index has never seen is a typo of a close word papers use (the query's other words choose among equally
close ones), a hyphenated term is corrected as the phrase papers write (selfp-lay, meta-leaning, mixture-ofexperts),
and words run together with capitals marking them are split (HiddenState). The planner (bot.search.plan) builds on
this: the word frequencies and phrase counts here are what it plans with too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from bot.papers import fts, matching
from bot.papers.fulltext import count_matches
from bot.papers.reading import Reader
from bot.search import query as ql
from bot.search import typos
from bot.search.cache import IndexCache
from bot.search.joining_words import FREE_FORM_PAPERS
from bot.search.matching import Alternative, camel_case
from bot.search.scoring import idf
from bot.search.weights import DEFAULT, Thresholds
from bot.text import model_words
from bot.text.person_names import read_back, spelled_out
from bot.text.stopwords import FUNCTION_WORDS

_TOGETHER = 50  # papers using a correction with the query's other words: enough to choose it
CONTEXT_WORDS = 2  # ...and of those, the rarest this many
# papers writing a corrected compound, counted up to this to choose the likeliest
COMPOUND_PAPERS = 50
PART_OPTIONS = 8  # words one edit from a compound's part tried, most used first
# The words of HiddenState, KVCache, RLbased
_CAPITALS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_CAPS_THEN_WORD = re.compile(r"([A-Z]{2,})([a-z]{2,})")
_CASE_CHANGE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_WORD = re.compile(r"[^\W_]+")


def _no_name(word: str) -> bool:
    """No word is an author's name (when no people are known)."""
    return False


class WordCorrector:
    """One query's words as the index knows them: their frequencies, the phrases papers write, and corrections."""

    def __init__(
        self,
        db: Reader,
        cache: IndexCache,
        parsed: ql.ParsedQuery,
        unknown: list[str] | None = None,
        is_name: Callable[[str], bool] | None = None,
        thresholds: Thresholds = DEFAULT.thresholds,
    ) -> None:
        self.db, self.cache, self.parsed, self.thresholds = db, cache, parsed, thresholds
        # words neither known nor correctable (suggest near ones)
        self.unknown = [] if unknown is None else unknown
        self.is_name: Callable[[str], bool] = is_name or _no_name  # an author's name is no typo

    def fetch_df(self, words: list[str]) -> dict[str, int]:
        """Document frequencies from the vocab table (for the cache to fill itself)."""
        return matching.word_counts(self.db, words)

    def fetch_prefix(self, first: str) -> list[tuple[str, int]]:
        """Vocabulary words starting with one character, with their frequencies (typo candidates)."""
        return matching.words_from(self.db, first)

    def df(self, words: Iterable[str]) -> dict[str, int]:
        """Document frequency of each word in names, titles and abstracts (0: unknown)."""
        return self.cache.vocab.df(words, self.fetch_df)

    def papers_writing(self, phrase: Alternative, up_to: int = FREE_FORM_PAPERS) -> int:
        """How many papers hold a phrase, counted up to `up_to` (by default as many as "without X" asks to write
        X-free; a compound's checks ask for one paper, or compare counts up to COMPOUND_PAPERS)."""
        return count_matches(self.db, fts.phrase(phrase.words), up_to)

    def rejoined(self, words: tuple[str, ...]) -> list[str] | None:
        """A compound whose hyphen slipped, when a part is unknown: the word its letters make ("finet-uned",
        "fin-etuning": correcting each part made "fine-used"), the two words of a compound papers write
        ("selfp-lay": self-play), or a part split in two ("mixture-ofexperts": mixture-of-experts)."""
        if len(words) < 2 or all(self.df([w])[w] or self.is_name(w) for w in words):
            return None
        joined = "".join(words)
        if not joined.isalpha():
            return None
        if self.df([joined])[joined]:
            return [joined]
        if len(words) == 2:
            for cut in range(2, len(joined) - 1):
                first, second = joined[:cut], joined[cut:]
                known = self.df([first])[first] and self.df([second])[second]
                if known and self.papers_writing(Alternative((first, second))):
                    return [first, second]
        # A hyphen left out inside a part: "mixture-ofexperts", "chain-ofthought"
        for i, word in enumerate(words):
            parts = None if self.df([word])[word] else typos.split_compound(word, self.df)
            if not parts or any(len(p) < 3 and p not in FUNCTION_WORDS for p in parts):
                # not "in-cotext" as in co text: a phrase of such common words takes long to look for
                continue
            if self.papers_writing(Alternative((*words[:i], *parts, *words[i + 1 :]))):
                return [*words[:i], *parts, *words[i + 1 :]]
        return None

    def camel_names(self, term: ql.Term) -> frozenset[str]:
        """The words of a term typed in CamelCase (ConvNeXt): names, corrected by one letter at most."""
        return frozenset(w.lower() for w in _WORD.findall(term.text) if camel_case(w))

    def split_at_capitals(self, term: ql.Term) -> tuple[list[str], str] | None:
        """A term with words no paper uses that run words together, capitals marking where (HiddenState, KVCache,
        RLbased), split there when papers write the words so: the words, and the term as the answer shows it."""
        typed = _WORD.findall(term.text)
        if [w.lower() for w in typed] != list(term.words):
            return None
        words: list[str] = []
        shown = term.text
        for word in typed:
            caps_then_word = _CAPS_THEN_WORD.fullmatch(word)  # RLbased: RL based, not R Lbased
            parts = list(caps_then_word.groups()) if caps_then_word else _CAPITALS.findall(word)
            if (
                len(parts) > 1
                and "".join(parts) == word
                and _CASE_CHANGE.search(word)
                and not self.df([word.lower()])[word.lower()]
            ):
                words += [p.lower() for p in parts]
                shown = shown.replace(word, " ".join(parts), 1)
            else:
                words.append(word.lower())
        if len(words) == len(typed) or not self.papers_writing(Alternative(tuple(words))):
            return None
        return words, shown

    def corrected_compound(self, fixed: list[str], typed: tuple[str, ...], names: frozenset[str]) -> list[str]:
        """A typo'd compound's words, each corrected on its own, unless another close correction (two letters
        swapped, the first letter wrong) makes a phrase more papers write ("modl-collapse": mode collapse, which
        more papers write than model collapse; "zero-hsot": zero-shot; "multi-sgent": multi-agent). Words typed right
        that no paper writes together give way to a phrase several papers write, when a part is a rare word one
        letter from a common one ("meta-leaning": meta-learning; not CamelCase `names`)."""
        if len(fixed) < 2:
            return fixed
        real = fixed == list(typed) and all(self.df(fixed).values())
        if real and (names or not all(w.isalpha() for w in fixed) or self.papers_writing(Alternative(typed), 1)):
            # words papers write together, a name (DeepSeek-Coder) or a version (Llama-3)
            return fixed
        if real:
            most = self.thresholds.written_compound - 1
        elif any(w != t and w in FUNCTION_WORDS for w, t in zip(fixed, typed, strict=True)):
            # A part corrected into a word such as "are" gives way to any phrase papers write (awre: aware)
            most = 0
        else:
            most = self.papers_writing(Alternative(tuple(fixed)), COMPOUND_PAPERS)
        best = fixed
        for i, (word, was) in enumerate(zip(fixed, typed, strict=True)):
            for option in self.part_options(was, word, real, was in names) if most < COMPOUND_PAPERS else ():
                tried = [*fixed[:i], option, *fixed[i + 1 :]]
                papers = self.papers_writing(Alternative(tuple(tried)), COMPOUND_PAPERS)
                if papers > most:
                    best, most = tried, papers
                if most >= COMPOUND_PAPERS:
                    break  # counts stop there: no other phrase can beat it
        return best

    def part_options(self, typed: str, fixed: str, real: bool, name: bool) -> list[str]:
        """What a compound's part may have meant besides `fixed`: for an unknown word its corrections and known words
        one edit away at the first letter; for a known word of a compound no paper writes (`real`), words one edit
        away that many times more papers use, when only a paper in a thousand uses it (leaning: learning). A `name`
        only one edit away."""
        df = self.df([typed])[typed]
        if not typed.isalpha() or df > (max(1, self.thresholds.part_share * self.cache.papers) if real else 0):
            return []
        if df:  # a rare word, typed right: words one edit away many times more papers use
            near = typos.one_edit(typed) if len(typed) >= 2 else []
            counts = self.df(near)
            found = sorted((w for w in near if counts[w] >= self.thresholds.part_ratio * df), key=lambda w: -counts[w])
            return [w for w in found if w != fixed][:PART_OPTIONS]
        swapped = typos.swaps(typed)  # hsot: shot
        first = typos.one_edit(typed, first_only=True) if len(typed) >= typos.MIN_LENGTH else []
        counts = self.df(swapped + first)
        edits = 1 if name else 2
        found = typos.corrections(typed, self.cache.vocab, self.fetch_df, self.fetch_prefix, max_edits=edits)
        found += [w for w in swapped if counts[w]]
        # not dto: to
        first = [w for w in first if counts[w] and (len(w) >= len(typed) or w not in FUNCTION_WORDS)]
        found += sorted(first, key=lambda w: -counts[w])[:PART_OPTIONS]
        return [w for w in dict.fromkeys(found) if w != fixed]

    def spelled_otherwise(self, word: str) -> list[str]:
        """The word as papers here write it with ä, ö, ü, ß, ø, å or æ, or with them spelled out: Schroedinger and
        Schrodinger are Schrödinger, Nystroem Nyström, Schrödinger Schroedinger (none for short or function words)."""
        if len(word) < typos.MIN_LENGTH or word in FUNCTION_WORDS:
            return []
        # (a word typed plainly stands for one with the letters, not for another plain word: aare is no "are")
        forms = [spelled_out(word)] if not word.isascii() else [f for f in read_back(word) if not f.isascii()]
        forms = [f for f in forms if f != word]
        df = self.df(forms)
        return [f for f in forms if df[f]]

    def correct(self, word: str, name: bool = False) -> str:
        """The word, or its correction when the index has never seen it (British spellings are not typos, nor
        spellings of ä, ö, ü, ß, ø, å: spelled_otherwise). A `name` typed in CamelCase is corrected only by one
        letter: `FlashAtention`, but not ConvNeXt into context."""
        if self.df([word])[word] or any(self.df([v])[v] for v in typos.spellings(word)) or self.is_name(word):
            return word
        if self.spelled_otherwise(word):
            return word
        if word in ql.FILTER_WORDS:  # "oral cancer": what the query language knows is no typo
            return word
        # "suddenly generalize" is meant, not "sudden generalize"
        if not name and model_words.knows(word):
            return word
        if any(self.df([v])[v] > self.thresholds.typo_of_a_word for v in typos.singulars(word)):
            # parities: papers write parity (more than a paper or two: not prbes, whose "prbe" is some abstract's typo)
            return word
        edits = 1 if name else 2
        options = typos.corrections(word, self.cache.vocab, self.fetch_df, self.fetch_prefix, max_edits=edits)
        fixed = self.in_context(options) if len(options) > 1 else options[0] if options else None
        if fixed is None:
            if len(word) >= typos.MIN_LENGTH and not self.df([word])[word]:
                self.unknown.append(word)
            return word
        return fixed

    def is_typo(self, word: str) -> bool:
        """Whether an unknown word is a typo of a word papers use more than in passing (samplng: sampling), not
        merely near a rare one (olah: olaf)."""
        options = typos.corrections(word, self.cache.vocab, self.fetch_df, self.fetch_prefix)
        return any(self.df([o])[o] > self.thresholds.typo_of_a_word for o in options)

    def in_context(self, options: list[str]) -> str:
        """Of equally close corrections, the one most papers use together with the query's other words
        ("wheather forecasting" → weather, not whether); the most frequent one when there is no context."""
        rest = self.context(options)
        if rest is None:
            return options[0]
        best, best_n = options[0], -1
        # Ties go to the earlier (more frequent) option, so a full count ends the search
        for option in options:
            n = self.together(option, rest)
            if n > best_n:
                best, best_n = option, n
            if n >= _TOGETHER:
                break
        return best

    def context(self, apart: list[str]) -> str | None:
        """An FTS5 expression of the query's telling words other than `apart`, for asking which of them papers use
        together; None when the query has no other word papers use."""
        context = [
            w
            for t in self.parsed.positive
            for w in t.words
            if w not in FUNCTION_WORDS and w not in apart and self.df([w])[w]
        ]
        if not context:
            return None
        # Words most papers use ("model") tell the options apart no better than nothing, and make FTS5 seek
        # through their long posting lists (docs/benchmarks.md).
        df = {w: self.df([w])[w] for w in context}
        telling = [w for w in context if idf(df[w], self.cache.papers) >= self.thresholds.rare_word]
        telling = telling or [min(context, key=lambda w: df[w])]
        # The rarest of them tell the most. Each further word makes FTS5 read every paper the others share before
        # LIMIT stops it (docs/benchmarks.md).
        return " AND ".join(fts.phrase((w,)) for w in sorted(telling, key=lambda w: df[w])[:CONTEXT_WORDS])

    def together(self, word: str, rest: str) -> int:
        """How many papers use a word with the context expression `rest`, counted up to _TOGETHER."""
        return count_matches(self.db, f"{fts.phrase((word,))} AND {rest}", _TOGETHER)

    def slipped(self, word: str, common: str) -> bool:
        """Whether a word a paper or two use is a slip for a common word one letter away (modles: models, raining
        spiking networks: training). An English word (watching) is no slip on its own: only when papers write the
        query's other words with the common word and never with it (medial-oriented: medical)."""
        if not model_words.knows(word):
            return True
        rest = self.context([word, common])
        return rest is not None and not self.together(word, rest) and self.together(common, rest) > 0
