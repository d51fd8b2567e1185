"""Query in, ranked results out: typo correction, acronyms, phrases, filters, ranking and snippets. No Slack here.

How a query runs, and why it stays fast on 100,000+ papers:
1. `bot.query.parse` turns any text into terms and filters (never raises).
2. Words are corrected against the index vocabulary, given their British/US and run-together variants, and
   acronyms are expanded both ways (MoE ↔ mixture of experts). Each query word becomes a *group* of alternatives.
3. Candidates come from a few FTS5 queries built only from words we quoted ourselves, each reading at most a few
   hundred rowids in rowid order: every group anywhere; when that is too many, the stricter ones pick instead (the
   query as a phrase in the title, every group in the title, the phrase anywhere); when it is too few, subsets of
   the groups. FTS5's own bm25 is never asked for: it counts every document holding each term, ~100 ms for
   "language model" at 110,000 papers.
4. Candidates are scored here, BM25F-style, from the title (weighted far above the abstract), the abstract,
   phrase and coverage features; papers matching all groups always rank above papers matching some.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import logging
import math
import re
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils
from rapidfuzz import fuzz, process

from bot.papers import fts, index
from bot.search import acronyms, typos
from bot.search import query as ql
from bot.text.acronyms import long_key
from bot.text.stopwords import FUNCTION_WORDS, TOO_COMMON

log = logging.getLogger(__name__)

CAP = 120  # rowids read per candidate query: bounded work however common the words are
CAP_MANY = 400  # ...for queries of three or more words
CAP_TITLE = 60  # rowids read per title query (every one holds all the words in its title)
RERANK = 30  # candidates that get abstract-level features
RELAX_BELOW = 10  # fewer papers than this match every word: add papers matching most of them
DEEP_BLOCK = 200  # papers ranked together per further block when paging past the first candidates
MAX_LIMIT = 50
FILTER_SCAN = 20_000  # with status:/has:code, matches scanned at most per candidate query...
FILTER_COUNT = 4000  # ...and for the total
TOTAL_CAP = 1000  # beyond this many matches `total` is a lower bound (total_exact=False)
SNIPPET_CHARS = 300
TITLE_WEIGHT = 3.0  # a word in the title counts this much more than the same word in the abstract
NAME_BONUS = 100.0
TITLE_LOOKUP_WORDS = 4  # queries this long may be a (mistyped) title
MAX_PINNED = 20
RARE_COMPOUND = 20  # a word this rare may be two words run together (kvcache → "kv cache")

# Text normalisation for matching: ASCII lowercased, ASCII punctuation to spaces, other bytes (UTF-8) unchanged.
_NORM = bytes(
    (i + 32 if 65 <= i <= 90 else i if (48 <= i <= 57 or 97 <= i <= 122 or i >= 128) else 32) for i in range(256)
)
_MARKUP_RE = re.compile(r"(?<!\w)[*_`~]+|[*_`~]+(?!\w)")
_MARKUP_CHARS_RE = re.compile(r"[*_`~]")
_SUFFIXES = (
    "izations",
    "ization",
    "isations",
    "isation",
    "ations",
    "ation",
    "ings",
    "ing",
    "ies",
    "ied",
    "ers",
    "er",
    "ed",
    "es",
    "s",
    "e",
    "y",
)


def _norm(text: str) -> bytes:
    """Text as bytes for substring matching: ` word word ` with ASCII folded to lowercase."""
    return (" " + text + " ").encode("utf-8", "ignore").translate(_NORM)


@functools.lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    """A crude stem whose prefix matches the usual inflections (caching → cach, learning → learn)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _coined(name: str) -> bool:
    """A made-up name rather than a word: inner capitals, all capitals, digits or symbols (HiDe, REAL, μA, SCM-GRPO)."""
    return not (name.isalpha() and (name.islower() or name.istitle())) and len(name) >= 2


def _same_case(typed: str, word: str) -> str:
    """A correction in the user's capitals: Knapsak → Knapsack, CAHCE → CACHE."""
    if typed.isupper() and len(typed) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if typed[:1].isupper() else word


def _name_key(name: str) -> str:
    """Names compare by letters and digits only: `Knapsack RL`, `knapsack-rl` and `KnapsackRL` are one name."""
    return "".join(c for c in unicodedata.normalize("NFKC", name).casefold() if c.isalnum())


# --------------------------------------------------------------------------------------------- results


@dataclass
class Result:
    """One ranked paper with the words that matched, marked in a snippet."""

    paper: dict[str, Any]
    score: float
    snippet: str
    matched: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of `icml-bot search --json`."""
        p = self.paper
        return {
            "id": p["id"],
            "name": p.get("name"),
            "title": p["title"],
            "headline": p.get("headline"),
            "abstract": p["abstract"],
            "authors": p.get("authors", []),
            "url": p.get("url"),
            "code_url": p.get("code_url"),
            "status": p.get("status"),
            "session": p.get("session"),
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "matched": self.matched,
        }


@dataclass
class SearchResponse:
    """Results of one query, with the corrected query when typos were fixed and notes the UI may show."""

    query: str
    results: list[Result]
    total: int = 0
    offset: int = 0
    corrected: str | None = None
    suggestions: list[str] = field(default_factory=list)
    took_ms: float = 0.0
    notes: list[str] = field(default_factory=list)  # e.g. the query was cut to its first 32 terms
    truncated: bool = False  # the input was longer than the parser takes (see notes)
    total_exact: bool = True  # False: `total` is a lower bound (very common words)
    partial: bool = False  # some results match only some of the words

    def to_json(self) -> dict[str, Any]:
        """One line of `icml-bot search --batch --json`."""
        return {
            "query": self.query,
            "corrected": self.corrected,
            "took_ms": round(self.took_ms, 3),
            "total": self.total,
            "total_exact": self.total_exact,
            "offset": self.offset,
            "partial": self.partial,
            "suggestions": self.suggestions,
            "notes": self.notes,
            "results": [r.to_json() for r in self.results],
        }


# --------------------------------------------------------------------------------------------- per-index state


@dataclass
class _Acronyms:
    by_short: dict[str, list[tuple[str, tuple[str, ...], int, bool]]]  # key → (form, long words, papers, builtin)
    by_long: dict[str, list[tuple[str, str, int, bool]]]  # long key → (short key, form, papers, builtin)
    longest: int
    firsts: dict[str, int]  # first word of a long form → most words of a long form starting with it


class _State:
    """What search keeps per index file and version: vocabulary, paper names, acronyms. Shared by threads."""

    def __init__(self, papers: int) -> None:
        self.papers = max(papers, 1)
        self.vocab = typos.Vocabulary()
        self._lock = threading.Lock()
        self._names: dict[str, list[tuple[int, str]]] | None = None
        self._acronyms: _Acronyms | None = None
        self._sets: dict[str, frozenset[int]] = {}

    def names(self, db: sqlite_utils.Database) -> dict[str, list[tuple[int, str]]]:
        """Paper names by their letters-only key → (rowid, name as written), loaded on first use."""
        if self._names is None:
            with self._lock:
                if self._names is None:
                    names: dict[str, list[tuple[int, str]]] = {}
                    for rowid, name in db.execute("SELECT rowid, name FROM papers WHERE name IS NOT NULL"):
                        key = _name_key(name)
                        if key:
                            names.setdefault(key, []).append((rowid, name))
                    self._names = names
        return self._names

    def rowids(self, db: sqlite_utils.Database, what: str) -> frozenset[int]:
        """Rowids of papers with code (`code`) or with a status (`Oral`, ...), read once through their indexes."""
        found = self._sets.get(what)
        if found is None:
            if what == "code":
                rows = db.execute("SELECT rowid FROM papers WHERE code_url > ''")
            else:
                rows = db.execute("SELECT rowid FROM papers WHERE status = ?", [what])
            found = frozenset(r[0] for r in rows)
            with self._lock:
                self._sets[what] = found
        return found

    def acronyms(self, db: sqlite_utils.Database) -> _Acronyms:
        """Built-in plus learned acronym pairs, both directions, loaded on first use."""
        if self._acronyms is None:
            with self._lock:
                if self._acronyms is None:
                    self._acronyms = self._load_acronyms(db)
        return self._acronyms

    @staticmethod
    def _load_acronyms(db: sqlite_utils.Database) -> _Acronyms:
        pairs: dict[tuple[str, str], tuple[str, int, bool]] = {}
        for key, form, long, n in acronyms.builtin_pairs():
            pairs[(key, long)] = (form, n, True)
        try:
            for key, form, long, n in db.execute("SELECT key, form, long, papers FROM acronyms"):
                builtin = (key, long) in pairs
                pairs[(key, long)] = (pairs[(key, long)][0] if builtin else form, n, builtin)
        except sqlite3.OperationalError:
            pass  # an index built before acronyms were learned: the built-in list still works
        by_short: dict[str, list[tuple[str, tuple[str, ...], int, bool]]] = {}
        by_long: dict[str, list[tuple[str, str, int, bool]]] = {}
        for (key, long), (form, n, builtin) in pairs.items():
            by_short.setdefault(key, []).append((form, tuple(long.split()), n, builtin))
            by_long.setdefault(long, []).append((key, form, n, builtin))
        for entries in (*by_short.values(), *by_long.values()):
            entries.sort(key=lambda e: (not e[3], -e[2]))
        firsts: dict[str, int] = {}
        for long in by_long:
            words = long.split()
            firsts[words[0]] = max(firsts.get(words[0], 0), len(words))
        return _Acronyms(by_short, by_long, max(firsts.values(), default=0), firsts)


_STATES: dict[tuple[Any, ...], _State] = {}
_STATES_LOCK = threading.Lock()


def _state(db: sqlite_utils.Database) -> _State:
    """The cached state of this index file at its current version (rebuilds under a running bot change the key)."""
    conn = db.conn
    path = next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")
    try:
        stamp = conn.execute("SELECT value FROM meta WHERE key = 'last_indexed'").fetchone()
    except sqlite3.OperationalError:
        stamp = None
    seq = conn.execute("SELECT max(seq) FROM papers").fetchone()[0] or 0
    key = (path or f"memory:{id(conn)}", stamp[0] if stamp else None, seq)
    with _STATES_LOCK:
        state = _STATES.get(key)
        if state is None:
            for old in [k for k in _STATES if k[0] == key[0]]:
                del _STATES[old]
            while len(_STATES) >= 16:
                del _STATES[next(iter(_STATES))]
            state = _STATES[key] = _State(seq)
    return state


# --------------------------------------------------------------------------------------------- plan


@dataclass(frozen=True)
class _Alt:
    """One way a group can match: a word, a phrase, or a word prefix."""

    words: tuple[str, ...]
    prefix: bool = False
    exact: bool = False  # match the word itself (and its plural), not every word sharing its stem

    def fts(self) -> str:
        return fts.phrase(self.words, self.prefix)

    @property
    def label(self) -> str:
        return " ".join(self.words) + ("*" if self.prefix else "")


@dataclass
class _Group:
    """What one query word (or phrase, or recognised long form) may match, with its weight."""

    label: str
    alts: list[_Alt]
    scope: str | None = None  # "title": only the name and title columns
    df: int = 0
    weight: float = 1.0
    counters: list[Callable[[bytes], int]] = field(default_factory=list)
    exact: Callable[[bytes], int] | None = None  # the word as typed (or its plural), not just its stem

    def fts(self) -> str:
        return self.alts[0].fts() if len(self.alts) == 1 else "(" + " OR ".join(a.fts() for a in self.alts) + ")"

    def fts_fielded(self) -> str:
        return "{title} : " + self.fts() if self.scope == "title" else self.fts()


@dataclass
class _Plan:
    groups: list[_Group] = field(default_factory=list)
    negatives: list[_Group] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)  # FTS phrases for the authors column
    neg_authors: list[str] = field(default_factory=list)
    author_words: list[tuple[str, ...]] = field(default_factory=list)
    allowed: frozenset[int] | None = None  # status:/has:code, as rowid sets
    denied: frozenset[int] = frozenset()
    filtered: bool = False
    sequence: list[str] = field(default_factory=list)  # the unquoted words as typed (corrected), for phrase bonus
    corrected: str | None = None
    corrections: dict[str, str] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)  # words the index has never seen and we could not correct
    notes_extra: list[str] = field(default_factory=list)  # said only when nothing matched
    also: list[tuple[str, str]] = field(default_factory=list)  # (rare word, common word one edit away also searched)
    free_text: str = ""


def _keep(plan: _Plan, rowid: int) -> bool:
    """Whether a paper passes the status: and has:code filters."""
    return (plan.allowed is None or rowid in plan.allowed) and rowid not in plan.denied


@functools.lru_cache(maxsize=4096)
def _pattern(alt: _Alt) -> re.Pattern[bytes]:
    """A regex finding an alternative in `_norm` text: each word by its stem at a word start (short words whole)."""
    pieces = []
    for i, word in enumerate(alt.words):
        if alt.prefix and i == len(alt.words) - 1:
            pieces.append(re.escape(word.encode()) + rb"[^ ]*")
        elif len(word) <= 3 or not word.isascii() or alt.exact:
            pieces.append(re.escape(word.encode()) + rb"s?(?= )")
        else:
            pieces.append(re.escape(_stem(word).encode()) + rb"[^ ]*")
    return re.compile(rb" " + rb" +".join(pieces))


@functools.lru_cache(maxsize=4096)
def _counter(alt: _Alt) -> Callable[[bytes], int]:
    """A fast counter of an alternative's occurrences in `_norm` text (bytes.count for single words)."""
    if len(alt.words) == 1 and not alt.prefix:
        word = alt.words[0]
        if len(word) <= 3 or not word.isascii() or alt.exact:
            exact, plural = (" " + word + " ").encode(), (" " + word + "s ").encode()
            return lambda t: t.count(exact) + t.count(plural)
        key = (" " + _stem(word)).encode()
        return lambda t: t.count(key)
    pattern = _pattern(alt)
    return lambda t: len(pattern.findall(t))


@functools.lru_cache(maxsize=4096)
def _highlighter(alt: _Alt) -> str:
    """Regex source (for lowercased display text, after a word boundary) finding one alternative, for snippets."""
    pieces = []
    for i, word in enumerate(alt.words):
        if alt.prefix and i == len(alt.words) - 1:
            pieces.append(re.escape(word) + r"\w*")
        elif len(word) <= 3:
            pieces.append(re.escape(word) + r"s?\b")
        else:
            pieces.append(re.escape(_stem(word)) + r"\w*")
    return r"[\s\-‐‑–—/]+".join(pieces)


class _Planner:
    """Turns a parsed query into groups of alternatives: corrections, variants, acronyms, filters."""

    def __init__(self, db: sqlite_utils.Database, state: _State, parsed: ql.ParsedQuery) -> None:
        self.db, self.state, self.parsed = db, state, parsed
        self.plan = _Plan()

    def fetch_df(self, words: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in range(0, len(words), 500):
            chunk = words[i : i + 500]
            marks = ",".join("?" * len(chunk))
            out.update(self.db.execute(f"SELECT word, df FROM vocab WHERE word IN ({marks})", chunk).fetchall())
        return out

    def fetch_prefix(self, first: str) -> list[tuple[str, int]]:
        return self.db.execute(
            "SELECT word, df FROM vocab WHERE word >= ? AND word < ?", [first, chr(ord(first) + 1)]
        ).fetchall()

    def df(self, words: Iterable[str]) -> dict[str, int]:
        return self.state.vocab.df(words, self.fetch_df)

    def build(self) -> _Plan:
        parsed, plan = self.parsed, self.plan
        positive = parsed.positive
        only_stop = all(w in FUNCTION_WORDS for t in positive for w in t.words)
        words = {w for t in parsed.terms for w in t.words}
        words |= {v for w in words for v in typos.spellings(w)}
        self.df(words)  # one query for every word we may ask about
        # (group index or None, word) in typed order for unquoted terms: long forms and the phrase bonus use it.
        slots: list[tuple[int | None, str]] = []
        new_text: list[tuple[tuple[int, int], str]] = []
        for term in positive:
            if term.quoted:
                plan.groups.append(self.group(term.text, [_Alt(term.words)], term.field))
                slots.append((None, "\x00"))  # a quoted phrase breaks any long form around it
                continue
            fixed = [self.correct(w) for w in term.words]
            if fixed != list(term.words):
                display = term.text
                for old, new in zip(term.words, fixed, strict=True):
                    if old != new:
                        display = re.sub(
                            re.escape(old), lambda m, new=new: _same_case(m.group(), new), display, count=1, flags=re.I
                        )
                        plan.corrections[old] = new
                new_text.append((term.span, display))
            if len(fixed) == 1 and fixed[0] in FUNCTION_WORDS and not only_stop:
                slots.append((None, fixed[0]))
                continue
            alts = [_Alt(tuple(fixed))]
            if len(fixed) == 1:
                alts += self.variants(fixed[0])
            else:
                joined = "".join(fixed)
                if self.worthwhile(self.df([joined])[joined], min(self.df(fixed).values())):
                    alts.append(_Alt((joined,)))
            same = next((i for i, g in enumerate(plan.groups) if g.alts[0] == alts[0] and g.scope == term.field), None)
            if same is None:  # "diffusion diffusion": one group
                plan.groups.append(self.group(" ".join(fixed), alts, term.field))
                same = len(plan.groups) - 1
            for w in fixed:
                slots.append((same, w))
        plan.sequence = [w for _, w in slots if w != "\x00"]
        self.join_neighbours(slots)
        self.long_forms(slots)
        self.short_forms(positive)
        for term in parsed.negative:
            alts = [_Alt(term.words)]
            if len(term.words) == 1 and not term.quoted:
                alts += [_Alt((v,)) for v in typos.spellings(term.words[0]) if self.df([v])[v]]
                alts += self.expansions(term.words[0], term.text)
            plan.negatives.append(_Group(term.text, alts))
        for term in parsed.authors:
            phrase = _Alt(term.words).fts()
            (plan.neg_authors if term.negated else plan.authors).append(phrase)
            if not term.negated:
                plan.author_words.append(term.words)
        self.filters()
        self.weigh()
        if new_text:
            text = parsed.text
            for (start, end), display in sorted(new_text, reverse=True):
                text = text[:start] + display + text[end:]
            plan.corrected = text
        plan.free_text = " ".join(w for w in plan.sequence)
        return plan

    def group(self, label: str, alts: list[_Alt], fieldname: str | None) -> _Group:
        return _Group(label, alts, "title" if fieldname == "title" else None)

    def correct(self, word: str) -> str:
        """The word, or its correction when the index has never seen it (British spellings are not typos)."""
        if self.df([word])[word] or any(self.df([v])[v] for v in typos.spellings(word)):
            return word
        options = typos.corrections(word, self.state.vocab, self.fetch_df, self.fetch_prefix)
        fixed = self.in_context(options) if len(options) > 1 else options[0] if options else None
        if fixed is None:
            if len(word) >= typos.MIN_LENGTH and not self.df([word])[word]:
                self.plan.unknown.append(word)
            return word
        return fixed

    def in_context(self, options: list[str]) -> str:
        """Of equally close corrections, the one most papers use together with the query's other words
        ("wheather forecasting" → weather, not whether); the most frequent one when there is no context."""
        context = [
            w
            for t in self.parsed.positive
            for w in t.words
            if w not in FUNCTION_WORDS and w not in options and self.df([w])[w]
        ]
        if not context:
            return options[0]
        rest = " AND ".join(_Alt((w,)).fts() for w in context[:4])
        sql = "SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT 50)"
        together = {o: self.db.execute(sql, [f"{_Alt((o,)).fts()} AND {rest}"]).fetchone()[0] for o in options}
        return max(options, key=lambda o: (together[o], -options.index(o)))

    @staticmethod
    def worthwhile(alt_df: int, word_df: int) -> bool:
        """An alternative spelling earns its place in the query when it adds more than a sliver of papers
        (each OR branch makes FTS5 slower: "languagemodels" beside "language" costs more than it finds)."""
        return alt_df > 0 and (word_df == 0 or alt_df >= max(2, 0.02 * word_df))

    def variants(self, word: str) -> list[_Alt]:
        """Other spellings, the split of a run-together word (kvcache → "kv cache"), or a prefix for unknown words."""
        alts = [_Alt((v,)) for v in typos.spellings(word) if self.worthwhile(self.df([v])[v], self.df([word])[word])]
        common = typos.common_neighbour(word, self.state.vocab, self.fetch_df, self.fetch_prefix)
        if common:
            alts.append(_Alt((common,)))
            self.plan.also.append((word, common))
        df = self.df([word])[word]
        if df < RARE_COMPOUND:
            parts = typos.split_compound(word, self.df)
            if parts and self.worthwhile(min(self.df(parts).values()), df):
                alts.append(_Alt(parts))
        if not self.df([word])[word] and not alts and len(word) >= 4 and word.isalpha():
            alts.append(_Alt((word,), prefix=True))
        return alts

    def expansions(self, word: str, typed: str) -> list[_Alt]:
        """Long forms of an acronym (MoE → mixture of experts), when the corpus or the built-in list agrees."""
        acr = self.state.acronyms(self.db)
        key = word if word in acr.by_short else word[:-1] if word.endswith("s") and word[:-1] in acr.by_short else None
        if key is None:
            return []
        entries = acr.by_short[key]
        total = sum(max(e[2], 1) for e in entries)
        typed_as_acronym = any(c.isupper() for c in typed)
        df = self.df([key])[key]
        out = []
        for _form, long_words, papers, builtin in entries:
            if not builtin and (papers < 2 or papers < 0.2 * total or (not typed_as_acronym and papers * 25 < df)):
                continue  # a rare or minority meaning, or a common word that some paper also uses as an acronym
            if long_words != (word,):
                out.append(_Alt(long_words))
            if len(out) == 2:
                break
        return out

    def acronyms_for(self, long: str) -> list[str]:
        """Acronyms that stand for this long form and little else (no two-letter ones: CL, MT, GP mean too much)."""
        acr = self.state.acronyms(self.db)
        out = []
        for key, _form, papers, builtin in acr.by_long.get(long, []):
            if len(key) < 3:
                continue
            share = max(papers, 1) / sum(max(e[2], 1) for e in acr.by_short[key])
            if share >= 0.67 and (builtin or (papers >= 2 and self.df([key])[key] <= 25 * papers)):
                out.append(key)
        return out[:2]

    def short_forms(self, positive: list[ql.Term]) -> None:
        typed = {w: t.text for t in positive for w in t.words}
        for group in self.plan.groups:
            first = group.alts[0]
            if len(first.words) == 1 and not first.prefix and len(group.alts) < 8:
                word = first.words[0]
                group.alts += [a for a in self.expansions(word, typed.get(word, word)) if a not in group.alts]

    def long_forms(self, slots: list[tuple[int | None, str]]) -> None:
        """Merge the words of a known long form into one group that also matches its acronym."""
        table = self.state.acronyms(self.db)
        if not table.longest or len(slots) < 2:
            return
        used: set[int] = set()
        drop: set[int] = set()
        i = 0
        while i < len(slots):
            step = 1
            longest = table.firsts.get(slots[i][1], 0)  # most starts are no long form's first word
            for n in range(min(longest + 2, len(slots) - i), 1, -1):
                span = slots[i : i + n]
                gids = list(dict.fromkeys(g for g, _ in span if g is not None))
                if span[0][0] is None or span[-1][0] is None or any(w == "\x00" for _, w in span):
                    continue
                if used & set(gids) or not self._whole_groups(span, slots):
                    continue
                shorts = self.acronyms_for(long_key(w for _, w in span))
                if not shorts:
                    continue
                words = tuple(w for _, w in span)
                target = self.plan.groups[gids[0]]
                target.label = " ".join(words)
                target.alts = [_Alt(words)] + [_Alt((short,)) for short in shorts if (short,) != words]
                used |= set(gids)
                drop |= set(gids[1:])
                step = n
                break
            i += step
        if drop:
            self.plan.groups = [g for i, g in enumerate(self.plan.groups) if i not in drop]

    @staticmethod
    def _whole_groups(span: list[tuple[int | None, str]], slots: list[tuple[int | None, str]]) -> bool:
        """A long form may merge whole query terms only, never half of mixture-of-experts."""
        gids = {g for g, _ in span if g is not None}
        inside = sum(1 for g, _ in span if g in gids)
        total = sum(1 for g, _ in slots if g in gids)
        return inside == total

    def join_neighbours(self, slots: list[tuple[int | None, str]]) -> None:
        """`kv cache` also matches `kvcache`, `data set` also matches `dataset`."""
        pairs = [
            (a, b) for (ga, a), (gb, b) in itertools.pairwise(slots) if ga is not None and gb is not None and ga != gb
        ]
        if not pairs:
            return
        gid = {w: g for g, w in slots if g is not None}
        known = self.df(a + b for a, b in pairs)
        for a, b in pairs:
            if self.worthwhile(known[a + b], min(self.df([a])[a], self.df([b])[b])):
                for g in (gid[a], gid[b]):
                    group = self.plan.groups[g]
                    alt = _Alt((a + b,))
                    if alt not in group.alts and len(group.alts[0].words) == 1:
                        group.alts.append(alt)

    def filters(self) -> None:
        """status: and has:code as one set of allowed rowids (None: no such filter)."""
        parsed, plan, state = self.parsed, self.plan, self.state
        allowed: frozenset[int] | None = None
        if parsed.status:
            allowed = frozenset().union(*(state.rowids(self.db, s) for s in parsed.status))
        if parsed.has_code is True:
            code = state.rowids(self.db, "code")
            allowed = code if allowed is None else allowed & code
        denied = frozenset().union(*(state.rowids(self.db, s) for s in parsed.status_excluded))
        if parsed.has_code is False:
            denied |= state.rowids(self.db, "code")
        plan.allowed, plan.denied = allowed, denied
        plan.filtered = allowed is not None or bool(denied)

    def weigh(self) -> None:
        n = self.state.papers
        for group in self.plan.groups:
            total = 0
            for alt in group.alts:
                if alt.prefix:
                    total += n // 20
                    continue
                dfs = self.df(alt.words)
                total += (
                    min(dfs[w] for w in alt.words if w not in FUNCTION_WORDS)
                    if any(w not in FUNCTION_WORDS for w in alt.words)
                    else n
                )
            group.df = min(total, n)
            group.weight = math.log(1 + (n - group.df + 0.5) / (group.df + 0.5))
            group.counters = [_counter(a) for a in group.alts]
            first = group.alts[0]
            if len(first.words) == 1 and not first.prefix:
                group.exact = _counter(_Alt(first.words, exact=True))


# --------------------------------------------------------------------------------------------- retrieval


class _Retriever:
    """Candidate rowids from a few bounded FTS5 queries, strictest first."""

    def __init__(self, db: sqlite_utils.Database, plan: _Plan) -> None:
        self.db, self.plan = db, plan
        self.found: dict[int, tuple[int, int]] = {}  # rowid → (groups required by the query that found it, tier)
        self.deeper: tuple[str, int] | None = None  # (query, last rowid read) when more papers match every group

    def expression(self, groups: list[_Group], title_only: bool = False) -> str | None:
        plan = self.plan
        parts = [g.fts() if title_only else g.fts_fielded() for g in groups]
        body = " AND ".join(parts)
        if title_only and body:
            body = "{title} : (" + body + ")"
        parts = ([f"({body})"] if body else []) + ["{authors} : " + a for a in plan.authors]
        if not parts:
            return None
        expr = " AND ".join(parts)
        negs = []
        if plan.negatives:
            negs.append("{name title abstract} : (" + " OR ".join(g.fts() for g in plan.negatives) + ")")
        negs += ["{authors} : " + a for a in plan.neg_authors]
        if negs:
            expr = f"({expr}) NOT ({' OR '.join(negs)})"
        return expr

    def rowids(self, expr: str, cap: int = CAP, after: int = 0) -> list[int]:
        """Up to cap+1 matching rowids in rowid order, after `after` (filters applied here: as SQL, FTS5 would
        re-run the match once per allowed rowid)."""
        if not expr:
            return []
        sql = "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? AND rowid > ? LIMIT ?"
        if not self.plan.filtered:
            return [r[0] for r in self.db.execute(sql, [expr, after, cap + 1])]
        out: list[int] = []
        cursor = self.db.execute(sql, [expr, after, FILTER_SCAN])
        for (rowid,) in cursor:
            if _keep(self.plan, rowid):
                out.append(rowid)
                if len(out) > cap:
                    break
        return out

    def count(self, groups: list[_Group]) -> tuple[int, bool]:
        """(matches, exact) for a query that read more than CAP rows, counted with each group's first alternative
        only (phrase alternatives such as "key value" make FTS5 check positions in every common document)."""
        expr = self.expression([_Group(g.label, g.alts[:1], g.scope) for g in groups])
        if expr is None:
            return 0, True
        if not self.plan.filtered:
            sql = "SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)"
            n = self.db.execute(sql, [expr, TOTAL_CAP]).fetchone()[0]
            return n, n < TOTAL_CAP and all(len(g.alts) == 1 for g in groups)
        scanned = kept = 0
        for (rowid,) in self.db.execute(
            "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?", [expr, FILTER_COUNT]
        ):
            scanned += 1
            kept += _keep(self.plan, rowid)
        return min(kept, TOTAL_CAP), scanned < FILTER_COUNT and kept < TOTAL_CAP

    def add(self, rowids: list[int], level: int, tier: int, cap: int = CAP) -> None:
        for rowid in rowids[:cap]:
            if rowid not in self.found:
                self.found[rowid] = (level, tier)

    def relaxations(self) -> Iterable[list[_Group]]:
        """Smaller sets of groups to require, largest first: every subset for short queries; for long ones, the
        rarest groups (words the index does not know go first), halving: long queries are titles or sentences."""
        groups = self.plan.groups
        if len(groups) <= 4:
            for size in range(len(groups) - 1, 0, -1):
                subsets = [list(c) for c in itertools.combinations(groups, size)]
                subsets.sort(key=lambda c: -sum(g.weight for g in c if g.df))
                yield from subsets
            return
        order = sorted(groups, key=lambda g: (g.df == 0, g.df))  # rarest known words first
        size = len(groups) - 1
        while size >= 1:
            yield order[:size]
            size = min(size - 1, (size + 1) // 2)

    def run(self) -> tuple[int, bool, bool]:
        """Fill `found`; return (total, total_exact, partial). Nothing here depends on the page asked for, so
        paging through results shows each paper once, in one order, under one total.

        All groups anywhere first; when that is more than CAP papers, the strict queries (the query as a phrase in
        the title, every group in the title, the phrase anywhere) add the candidates rowid order would miss.
        """
        groups = self.plan.groups
        n = len(groups)
        expr = self.expression(groups)
        if expr is None:
            return 0, True, False
        # Three or more words together are rare enough to read them all (cheap).
        cap = CAP if n <= 2 else CAP_MANY
        rows = self.rowids(expr, cap)
        complete = len(rows) <= cap
        if not complete and n:
            seq = tuple(self.plan.sequence)
            simple = all(len(g.alts[0].words) == 1 and not g.scope for g in groups)
            phrase = _Group("", [_Alt(seq)]) if n > 1 and simple and len(seq) <= 4 else None
            if phrase:
                self.add(self.rowids(self.expression([phrase], title_only=True) or "", CAP_TITLE), n, 0, CAP_TITLE)
            if n <= 2:
                self.add(self.rowids(self.expression(groups, title_only=True) or "", CAP_TITLE), n, 1, CAP_TITLE)
            else:
                # A title filter on a very common word makes FTS5 read that word's whole posting list: ask for
                # the two rarest words in the title, and the rest anywhere.
                rare = sorted(groups, key=lambda g: g.df)[:2]
                title = self.expression(rare, title_only=True)
                if title:
                    self.add(self.rowids(f"{expr} AND {title}", CAP_TITLE), n, 2, CAP_TITLE)
            if phrase and len(seq) <= 3:
                self.add(self.rowids(self.expression([phrase]) or "", CAP), n, 2, CAP)
            self.deeper = (expr, rows[cap - 1])  # later pages continue the rowid scan from here
        self.add(rows, n, 3, cap)
        partial = False
        if len(self.found) < RELAX_BELOW and n > 1:
            # Hardly any paper matches every word: papers matching most of the words come next.
            for subset in self.relaxations():
                sub = self.expression(subset)
                sub_rows = self.rowids(sub) if sub else []
                if sub_rows:
                    partial = partial or any(r not in self.found for r in sub_rows)
                    self.add(sub_rows, len(subset), 4)
                    complete = complete and len(sub_rows) <= CAP
                if len(self.found) >= RELAX_BELOW:
                    break
        if complete:
            return len(self.found), True, partial
        total, exact = self.count(groups)
        return max(total, len(self.found)), exact, partial

    def next_block(self) -> list[int]:
        """The next DEEP_BLOCK papers matching every group, in rowid order after those already read (deep pages)."""
        if self.deeper is None:
            return []
        expr, after = self.deeper
        rows = self.rowids(expr, DEEP_BLOCK, after=after)
        self.deeper = (expr, rows[DEEP_BLOCK - 1]) if len(rows) > DEEP_BLOCK else None
        fresh = [r for r in rows[:DEEP_BLOCK] if r not in self.found]
        self.add(fresh, len(self.plan.groups), 3, DEEP_BLOCK)
        return fresh


# --------------------------------------------------------------------------------------------- scoring


@dataclass
class _Scored:
    rowid: int
    score: float
    level: int = 0  # how many query groups the paper matches
    in_title: list[int] = field(default_factory=list)  # per group: index of the alt found in name/title, or -1
    in_abstract: list[int] = field(default_factory=list)
    pinned: str | None = None


def _fetch(db: sqlite_utils.Database, columns: str, rowids: list[int]) -> dict[int, tuple[Any, ...]]:
    out: dict[int, tuple[Any, ...]] = {}
    for i in range(0, len(rowids), 900):
        chunk = rowids[i : i + 900]
        sql = f"SELECT rowid, {columns} FROM papers WHERE rowid IN ({','.join('?' * len(chunk))})"
        for row in db.execute(sql, chunk):
            out[row[0]] = row[1:]
    return out


def _which(counters: list[Callable[[bytes], int]], text: bytes) -> tuple[int, int]:
    """(index of the first alternative found, its count), or (-1, 0)."""
    for i, count in enumerate(counters):
        n = count(text)
        if n:
            return i, n
    return -1, 0


class _Ranker:
    """Scores candidates: coverage first, then title (weighted far above abstract), phrase and abstract evidence."""

    def __init__(self, db: sqlite_utils.Database, plan: _Plan) -> None:
        self.db, self.plan = db, plan
        self.total_weight = sum(g.weight for g in plan.groups) or 1.0
        seq = [w for w in plan.sequence if w]
        self.phrase = _counter(_Alt(tuple(seq))) if len(plan.groups) > 1 and 1 < len(seq) <= 12 else None
        self.lookup = " ".join(plan.sequence) if len(plan.sequence) >= TITLE_LOOKUP_WORDS else None

    def title_cover(self, text: bytes) -> tuple[float, list[int]]:
        """Weighted share of the groups found in a title (an alternative such as an acronym counts 0.9)."""
        hits = [_which(g.counters, text)[0] for g in self.plan.groups]
        got = sum(g.weight * (1.0 if h == 0 else 0.9) for g, h in zip(self.plan.groups, hits, strict=True) if h >= 0)
        return got / self.total_weight, hits

    def covers(self, texts: list[bytes]) -> list[float]:
        """title_cover's share for many titles at once: one regex pass per alternative over all of them."""
        groups = self.plan.groups
        starts, pos = [], 0
        for text in texts:
            starts.append(pos)
            pos += len(text) + 1
        blob = b"\x01".join(texts)
        best = [[-1] * len(groups) for _ in texts]
        for gi, group in enumerate(groups):
            for ai, alt in enumerate(group.alts):
                for m in _pattern(alt).finditer(blob):
                    row = best[bisect.bisect_right(starts, m.start()) - 1]
                    if row[gi] < 0 or row[gi] > ai:
                        row[gi] = ai
        return [
            sum(g.weight * (1.0 if h == 0 else 0.9) for g, h in zip(groups, hits, strict=True) if h >= 0)
            / self.total_weight
            for hits in best
        ]

    def rank(self, found: dict[int, tuple[int, int]], pinned: dict[int, str]) -> list[_Scored]:
        """Every candidate ordered: a cheap title-based score for all, full scores for the best RERANK (which then
        lead, in full-score order); the same candidates always come out in the same order."""
        groups = self.plan.groups
        titles = _fetch(self.db, "title", list(found))
        query_words = sum(len(g.alts[0].words) for g in groups)
        texts = {rowid: _norm(title) for rowid, (title,) in titles.items()}
        others = [rowid for rowid in texts if found[rowid][1] > 1]
        cover = dict(zip(others, self.covers([texts[r] for r in others]), strict=True))
        first: list[tuple[float, int, _Scored, bytes]] = []
        for rowid, text in texts.items():
            level, tier = found[rowid]
            if tier <= 1:  # found by a title query: every group is in the title
                words = max(1, text.count(b" ") - 1)
                pre = level * 10 + TITLE_WEIGHT + 0.5 * min(1.0, query_words / words)
            else:
                pre = level * 10 + TITLE_WEIGHT * cover[rowid] * cover[rowid]
            if rowid in pinned:
                pre += NAME_BONUS
            first.append((pre, -rowid, _Scored(rowid, 0.0, level, pinned=pinned.get(rowid)), text))
        first.sort(key=lambda x: (x[0], x[1]), reverse=True)
        head = RERANK if len(groups) <= 3 else RERANK // 2
        top, rest = first[:head], first[head:]
        abstracts = _fetch(self.db, "abstract, authors", [s.rowid for _, _, s, _ in top])
        for _, _, scored, ttext in top:
            abstract, authors = abstracts.get(scored.rowid, ("", ""))
            scored.score = self.score(scored, ttext, abstract or "", authors or "")
        ranked = [s for _, _, s, _ in top]
        ranked.sort(key=lambda s: (-s.score, s.rowid))
        for pre, _, scored, _ in rest:
            scored.score = pre
            ranked.append(scored)
        return ranked

    def score(self, scored: _Scored, ttext: bytes, abstract: str, authors: str) -> float:
        """Coverage × 10, then title (squared share: the whole topic in the title counts), abstract, phrase, focus."""
        groups = self.plan.groups
        cover, scored.in_title = self.title_cover(ttext)
        atext = _norm(abstract)
        lnorm = len(atext) / 1300
        s_abs, matched = 0.0, 0
        author_text = None
        scored.in_abstract = []
        for g, h in zip(groups, scored.in_title, strict=True):
            alt, tf = _which(g.counters, atext)
            scored.in_abstract.append(alt)
            s_abs += g.weight * tf / (tf + 1.2 * (0.25 + 0.75 * lnorm))
            if h < 0 and alt < 0:
                author_text = author_text if author_text is not None else _norm(authors)
                if _which(g.counters, author_text)[0] < 0:
                    continue
            matched += 1
        scored.level = max(scored.level, matched)
        words = max(1, ttext.count(b" ") - 1)
        in_title = sum(len(g.alts[h].words) for g, h in zip(groups, scored.in_title, strict=True) if h >= 0)
        score = scored.level * 10 + TITLE_WEIGHT * cover * cover + 0.5 * min(1.0, in_title / words)
        # "transformer" in the title beats "transformations", which only shares the stem.
        score += 0.3 * sum(g.weight for g in groups if g.exact and g.exact(ttext)) / self.total_weight
        score += s_abs / self.total_weight
        if self.phrase:
            in_abstract = self.phrase(atext)
            score += 1.5 * min(1, self.phrase(ttext)) + (1.0 + 0.5 * min(2, in_abstract - 1) if in_abstract else 0)
        if self.lookup:
            similarity = fuzz.ratio(self.lookup, ttext.decode("utf-8", "ignore").strip())
            if similarity >= 80:
                score += 20 + (similarity - 80)
        if scored.pinned:
            score += NAME_BONUS
        return score


# --------------------------------------------------------------------------------------------- snippets


class _Marker:
    """Finds query alternatives in display text: str.find for the first word, an anchored regex for the rest."""

    def __init__(self, groups: list[_Group]) -> None:
        alts = [(a, gi) for gi, g in enumerate(groups) for a in g.alts]
        alts.sort(key=lambda x: -len(_highlighter(x[0])))  # phrases before the words in them
        self.alts = [(self._head(a), re.compile(_highlighter(a)), gi) for a, gi in alts]

    @staticmethod
    def _head(alt: _Alt) -> str:
        word = alt.words[0]
        return word if alt.prefix or len(word) <= 3 else _stem(word)

    def spans(self, text: str) -> list[tuple[int, int, int]]:
        """(start, end, group index) of every match, in order, not overlapping (the longest wins)."""
        low = text.lower()
        if len(low) != len(text):  # a rare character whose lowercase is longer: positions would shift
            low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        found: list[tuple[int, int, int]] = []
        for head, regex, gi in self.alts:
            pos = low.find(head)
            while pos >= 0:
                if pos == 0 or not low[pos - 1].isalnum():
                    m = regex.match(low, pos)
                    if m and m.end() > pos:
                        found.append((pos, -m.end(), gi))
                pos = low.find(head, pos + 1)
        found.sort()
        spans: list[tuple[int, int, int]] = []
        for start, neg_end, gi in found:
            if not spans or start >= spans[-1][1]:
                spans.append((start, -neg_end, gi))
        return spans


def _bold(text: str, spans: list[tuple[int, int, int]]) -> str:
    """Wrap spans in *bold*; neighbours joined by a space or hyphen become one (*KV-cache*, not *KV*-*cache*)."""
    merged: list[list[int]] = []
    for s, e, _ in spans:
        if merged and s - merged[-1][1] <= 2 and not text[merged[-1][1] : s].strip(" -‐‑–—/"):
            merged[-1][1] = e
        else:
            merged.append([s, e])
    out, pos = [], 0
    for s, e in merged:
        out.append(text[pos:s])
        out.append("*" + text[s:e] + "*")
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _display(text: str | None) -> str:
    """Display text without Markdown emphasis, so our *bold* is the only markup in a snippet."""
    if not text:
        return ""
    if _MARKUP_CHARS_RE.search(text):
        text = _MARKUP_RE.sub("", text).replace("*", "∗")
    return " ".join(text.split())


def make_snippet(abstract: str, fallback: str, marker: _Marker, limit: int = SNIPPET_CHARS) -> str:
    """Up to `limit` characters of the abstract around the most query words, with matched words in *bold*."""
    text = _display(abstract)
    spans = marker.spans(text)
    if not spans:
        text = _display(fallback) or text
        spans = marker.spans(text)
    if len(text) <= limit:
        return _bold(text, spans)
    best: tuple[int, int, int] | None = None
    for s, _, _ in spans or [(0, 0, -1)]:
        start = max(0, s - 60)
        sentence = text.rfind(". ", 0, s)
        if sentence >= 0 and s - sentence <= 120:
            start = sentence + 2
        elif start:
            space = text.find(" ", start)
            start = space + 1 if 0 <= space < s else start
        inside = [sp for sp in spans if sp[0] >= start and sp[1] <= start + limit - 2]
        key = (len({sp[2] for sp in inside}), len(inside), -start)
        if best is None or key > (best[0], best[1], -best[2]):
            best = (key[0], key[1], start)
    start = best[2] if best else 0
    lead = "…" if start else ""
    end = start + limit - len(lead) - 1
    if end < len(text):
        cut = text.rfind(" ", start, end)
        end = cut if cut > start + limit // 2 else end
        tail = "…"
    else:
        end, tail = len(text), ""
    inside = [(s - start, e - start, g) for s, e, g in spans if s >= start and e <= end]
    return lead + _bold(text[start:end], inside) + tail


# --------------------------------------------------------------------------------------------- search


def _pinned(
    db: sqlite_utils.Database, state: _State, parsed: ql.ParsedQuery, plan: _Plan, planner: _Planner
) -> dict[int, str]:
    """Papers the query names outright (an id, an OpenReview id, a paper name): they go first."""
    out: dict[int, str] = {}
    positive = parsed.positive
    if not positive:
        return out
    if len(positive) == 1 and len(positive[0].text) >= 4:
        ref = positive[0].text.strip()
        row = db.execute(
            "SELECT rowid FROM papers WHERE id = ? UNION ALL "
            "SELECT papers.rowid FROM aliases JOIN papers ON papers.id = aliases.paper_id WHERE alias = ? UNION ALL "
            "SELECT papers.rowid FROM paper_keys JOIN papers ON papers.id = paper_keys.paper_id WHERE key = ?",
            [ref.lower(), ref.lower(), f"id:{ref}"],
        ).fetchone()
        if row:
            out[row[0]] = f"id:{ref}"
    names = state.names(db)

    def named(text: str, most: int) -> list[int]:
        """Papers called `text`: typed as the name is written (HiDe, REAL), or a name that is no common word
        (a paper called "Learning" must not take over the query "learning")."""
        key = _name_key(text)
        entries = names.get(key, [])
        if not entries or len(entries) > most:
            return []
        exact = [rowid for rowid, name in entries if name == text and _coined(name)]
        rare = not key.isalpha() or planner.df([key])[key] <= max(5, 3 * len(entries))
        return [rowid for rowid, _ in entries] if rare else exact

    typed = " ".join(t.text for t in positive)
    for text in dict.fromkeys((typed, plan.free_text)):
        for rowid in named(text, MAX_PINNED):
            out.setdefault(rowid, f"name:{text}")
    if len(positive) > 1:
        # One distinctive name among other words ("TokSuite tokenizer"): that paper first.
        for term in positive:
            if len(_name_key(term.text)) >= 3:
                for rowid in named(term.text, 3):
                    out.setdefault(rowid, f"name:{term.text}")
    if out and (plan.filtered or plan.negatives or plan.authors or plan.neg_authors):
        out = _pinned_filter(db, plan, out)
    return out


def _pinned_filter(db: sqlite_utils.Database, plan: _Plan, pinned: dict[int, str]) -> dict[int, str]:
    """Named papers still obey filters, exclusions and author: terms."""
    keep = [rowid for rowid in pinned if _keep(plan, rowid)]
    texts = _fetch(db, "name, title, abstract, authors", keep)
    out = {}
    for rowid in keep:
        name, title, abstract, authors = texts[rowid]
        body = _norm(f"{name or ''} {title} {abstract}")
        if any(_which([_counter(a) for a in g.alts], body)[0] >= 0 for g in plan.negatives):
            continue
        people = _norm(authors or "")
        if not all(all((" " + w + " ").encode() in people for w in words) for words in plan.author_words):
            continue
        out[rowid] = pinned[rowid]
    return out


def _matched(plan: _Plan, parsed: ql.ParsedQuery, scored: _Scored, paper: dict[str, Any]) -> list[str]:
    """Why a paper is here, as field:term entries (name:TokSuite, title:kv cache, abstract:moe, has:code)."""
    out = [scored.pinned] if scored.pinned else []
    for g, t, a in zip(plan.groups, scored.in_title, scored.in_abstract or [-1] * len(plan.groups), strict=True):
        if t >= 0:
            out.append(f"title:{g.alts[t].label}")
        if a >= 0:
            out.append(f"abstract:{g.alts[a].label}")
    out += [f"author:{' '.join(w)}" for w in plan.author_words]
    if parsed.status and paper.get("status"):
        out.append(f"status:{paper['status']}")
    if parsed.has_code:
        out.append("has:code")
    return list(dict.fromkeys(out))


def _suggestions(
    db: sqlite_utils.Database, state: _State, parsed: ql.ParsedQuery, plan: _Plan, planner: _Planner
) -> list[str]:
    """Queries worth trying when nothing matched: without filters, without exclusions, near words for unknown ones."""
    out: list[str] = []
    free = plan.free_text or parsed.free_text()
    if parsed.has_filters and free:
        out.append(free)
    if parsed.status and not db.execute("SELECT 1 FROM papers WHERE status IS NOT NULL LIMIT 1").fetchone():
        planner.plan.notes_extra.append(
            "This index has no oral/spotlight/poster status for its papers, so status: finds nothing here."
        )
    if plan.negatives and free:
        out.append(free)
    for word in plan.unknown[:3]:
        for first in dict.fromkeys(word[:2]):
            buckets = state.vocab.bucket(first, planner.fetch_prefix)
            near = [w for length in range(len(word) - 3, len(word) + 4) for w in buckets.get(length, ())]
            for cand, _, _ in process.extract(word, near, scorer=fuzz.ratio, score_cutoff=70, limit=3):
                out.append(re.sub(re.escape(word), cand, free, count=1) if free else cand)
    return list(dict.fromkeys(s for s in out if s and s != parsed.text))[:5]


def search(db: sqlite_utils.Database, query: str, limit: int = 5, offset: int = 0) -> SearchResponse:
    """Rank papers for a query: names and ids first, then papers about the topic (title) above passing mentions."""
    started = time.perf_counter()
    limit = max(1, min(int(limit), MAX_LIMIT))
    offset = max(0, int(offset))
    parsed = ql.parse(query)
    response = SearchResponse(
        query=query, results=[], offset=offset, notes=list(parsed.notes), truncated=parsed.truncated
    )
    try:
        _run(db, parsed, response, limit, offset)
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc) and "no such column" not in str(exc):
            raise
        log.warning("search could not run %r: %s", query[:200], exc)  # a bug: user text should never reach here
        response.results, response.total = [], 0
        response.notes.append("This query could not be searched; try plain words.")
    response.took_ms = (time.perf_counter() - started) * 1000
    return response


def _run(db: sqlite_utils.Database, parsed: ql.ParsedQuery, response: SearchResponse, limit: int, offset: int) -> None:
    if not parsed.terms and not parsed.has_filters:
        response.notes.append('Nothing to search for: type words, a "phrase", author:name, has:code or status:oral.')
        return
    state = _state(db)
    planner = _Planner(db, state, parsed)
    plan = planner.build()
    response.corrected = plan.corrected
    for rare, common in plan.also:
        response.notes.append(f"Also showing papers with *{common}* (only a paper or two use *{rare}*).")
    need = offset + limit
    retriever = _Retriever(db, plan)
    if plan.groups or plan.authors:
        total, exact, partial = retriever.run()
    else:
        total, exact, partial = _filter_only(db, plan, retriever)
    pinned = _pinned(db, state, parsed, plan, planner)
    for rowid in pinned:
        retriever.found.setdefault(rowid, (len(plan.groups), 0))
    ranker = _Ranker(db, plan)
    ranked = ranker.rank(retriever.found, pinned) if retriever.found else []
    total = max(total, len(ranked))
    while len(ranked) < need:  # a deep page: rank the next block of papers matching every word, after these
        block = retriever.next_block()
        if not block:
            break
        ranked += ranker.rank({r: retriever.found[r] for r in block}, {})
    page = ranked[offset : offset + limit]
    papers = _papers(db, [s.rowid for s in page])
    marker = _Marker(plan.groups)
    for scored in page:
        paper = papers.get(scored.rowid)
        if paper is None:
            continue
        if plan.groups and not scored.in_title:  # ranked by its title score only: work out what matched
            order_score = scored.score
            ranker.score(scored, _norm(paper["title"]), paper.get("abstract") or "", " ".join(paper["authors"]))
            scored.score = order_score
        snippet = make_snippet(paper.get("abstract") or "", paper.get("headline") or paper["title"], marker)
        response.results.append(Result(paper, round(scored.score, 4), snippet, _matched(plan, parsed, scored, paper)))
    response.total, response.total_exact = total, exact
    response.partial = partial and any(s.level < len(plan.groups) for s in page)
    if response.partial:
        full = sum(1 for s in ranked if s.level >= len(plan.groups))
        verb = "papers match" if full > 1 else "paper matches"
        response.notes.append(
            f"Only {full} {verb} every word; the rest match some."
            if full
            else "No paper matches every word; showing papers that match some of them."
        )
    if not response.results and offset == 0:
        response.suggestions = _suggestions(db, state, parsed, plan, planner)
        response.notes += plan.notes_extra


def _papers(db: sqlite_utils.Database, rowids: list[int]) -> dict[int, dict[str, Any]]:
    """Full decoded paper rows by rowid."""
    if not rowids:
        return {}
    cursor = db.execute(f"SELECT rowid AS _rowid, * FROM papers WHERE rowid IN ({','.join('?' * len(rowids))})", rowids)
    cols = [c[0] for c in cursor.description]
    return {v[0]: index.decode(dict(zip(cols[1:], v[1:], strict=True))) for v in cursor.fetchall()}


def _filter_only(db: sqlite_utils.Database, plan: _Plan, retriever: _Retriever) -> tuple[int, bool, bool]:
    """Only filters and exclusions (`has:code status:oral -diffusion`): matching papers in index order."""
    excluded: set[int] = set()
    negs = []
    if plan.negatives:
        negs.append("{name title abstract} : (" + " OR ".join(g.fts() for g in plan.negatives) + ")")
    negs += ["{authors} : " + a for a in plan.neg_authors]
    if negs:
        excluded = {
            r[0] for r in db.execute("SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?", [" OR ".join(negs)])
        }
    if plan.allowed is not None:
        rows = sorted(r for r in plan.allowed if r not in excluded and r not in plan.denied)
    else:
        rows = []
        for (rowid,) in db.execute("SELECT rowid FROM papers ORDER BY rowid"):
            if rowid not in excluded and rowid not in plan.denied:
                rows.append(rowid)
                if len(rows) >= TOTAL_CAP:
                    break
    rows = rows[:TOTAL_CAP]  # papers in index order; pages beyond the first thousand are not worth reading
    retriever.add(rows, 0, 2, len(rows))
    return len(rows), len(rows) < TOTAL_CAP, False


# --------------------------------------------------------------------------------------------- similar

SIMILAR_TERMS = 12
SIMILAR_CANDIDATES = 60
SIMILAR_BUDGET = 6000  # sum of the chosen terms' document frequencies: bounds the work of FTS5's bm25


def similar(db: sqlite_utils.Database, paper_id: str, k: int = 5) -> list[Result]:
    """Papers closest to one paper: its most distinctive words (title ×3, by df) find candidates, shared words rank."""
    try:
        paper_id.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a JSON payload: no paper has such an id
        return []
    paper = index.get_paper(db, paper_id)
    if paper is None:
        return []
    k = max(1, min(int(k), MAX_LIMIT))
    state = _state(db)
    planner = _Planner(db, state, ql.parse(""))
    tf: dict[str, float] = {}
    for weight, text in ((3, f"{paper.get('name') or ''} {paper['title']}"), (1, paper.get("abstract") or "")):
        for w in _plain_words(text):
            tf[w] = tf.get(w, 0) + weight
    own_name = set(_plain_words(paper.get("name") or ""))  # the paper's name says who it is, not what about
    words = [w for w in tf if len(w) >= 3 and w.isalpha() and w not in TOO_COMMON and w not in own_name]
    dfs = planner.df(words)
    n = state.papers
    most = max(n * 0.05, min(n * 0.3, 5))  # words in more papers than this say little about a topic
    least = 3 if n >= 1000 else 2  # a word only one other paper uses is more often incidental than topical
    by_stem: dict[str, tuple[float, str]] = {}  # tokenizer, tokenizers, tokenization: one term
    for w in words:
        if least <= dfs[w] <= most:
            weight = tf[w] * math.log(n / dfs[w])
            stem = _stem(w)
            old = by_stem.get(stem)
            by_stem[stem] = (weight + (old[0] if old else 0), min(w, old[1], key=len) if old else w)
    chosen, budget = [], 0
    for weight, w in sorted(by_stem.values(), reverse=True):
        if budget + dfs[w] > SIMILAR_BUDGET and chosen:
            continue  # bounds FTS5's bm25, which reads every posting of every term
        chosen.append((w, weight))
        budget += dfs[w]
        if len(chosen) == SIMILAR_TERMS:
            break
    if not chosen:
        return []
    expr = " OR ".join(_Alt((w,)).fts() for w, _ in chosen)
    me = db.execute("SELECT rowid FROM papers WHERE id = ?", [paper["id"]]).fetchone()[0]
    # bm25 over all the terms, plus titles holding the main ones: FTS5's stemmer folds "tokenizer" into "token",
    # so bm25 alone can drown the main terms in common stems.
    main = "{title} : (" + " OR ".join(_Alt((w,)).fts() for w, _ in chosen[:3]) + ")"
    rows = list(
        dict.fromkeys(
            r
            for sql, q in (
                ("SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? ORDER BY rank LIMIT ?", expr),
                ("SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? ORDER BY rank LIMIT ?", main),
            )
            for (r,) in db.execute(sql, [q, SIMILAR_CANDIDATES])
            if r != me
        )
    )
    groups = [_Group(w, [_Alt((w,))], weight=weight) for w, weight in chosen]
    for group in groups:
        group.counters = [_counter(group.alts[0])]
    total = sum(g.weight for g in groups)
    topical = {g.label for g in groups[:3]}  # only the paper's main terms count extra in the other's title
    texts = _fetch(db, "title, abstract", rows)
    scored = []
    for rowid in rows:
        title, abstract = texts[rowid]
        ttext, atext = _norm(title), _norm(abstract or "")
        shared = [g for g in groups if g.counters[0](ttext) or g.counters[0](atext)]
        score = (
            sum(g.weight * (1 + TITLE_WEIGHT * (g.label in topical and bool(g.counters[0](ttext)))) for g in shared)
            / total
        )
        scored.append((score, -rowid, rowid, [g.label for g in shared]))
    scored.sort(reverse=True)
    found = _papers(db, [rowid for _, _, rowid, _ in scored[:k]])
    marker = _Marker(groups)
    out = []
    for score, _, rowid, shared in scored[:k]:
        other = found[rowid]
        snippet = make_snippet(other["abstract"], other.get("headline") or other["title"], marker)
        out.append(Result(other, round(score, 4), snippet, [f"shared:{w}" for w in shared]))
    return out


def _plain_words(text: str) -> list[str]:
    """Lowercase words of display text, markup dropped (cheap; the index already cleaned the text)."""
    return [w.lower() for w in ql.WORD_RE.findall(_MARKUP_RE.sub(" ", text))]
