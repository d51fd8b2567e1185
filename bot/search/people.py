"""People: which person a query names (`Mohit Bansal`, `Bansal, Mohit`, `M. Bansal`, `Jurgen Schmidhuber`,
`Mohit Bansl`), looked up in the index's people table (bot.papers.search_tables.rebuild_people).

Names compare folded (bot.text.person_names), so `Müller`, `Muller` and `MÜLLER` are one surname. A run of query
words names a person when it is a whole author name, in either order, skipping middle names and the particles
before a surname (`van der Schaar, Mihaela`), with an initial for the given names (bot.search.initials), with another
form of the given name (Dave: David), or with one typo in a word the papers' text does not use. A surname alone names
its few bearers (`Bengio`, `Levine`, `van der Schaar`) when they wrote more papers here than the text uses the
word; a common one (there are hundreds of Zhangs) stays a word that also matches the authors column. Initials
(`J. Li`) and a surname alone often fit several people: the answer lists all their papers, one person at a time, and
says who else fits.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from rapidfuzz.distance import OSA

from bot.papers import fts
from bot.papers.reading import Reader
from bot.search import query as ql
from bot.search.cache import IndexCache, index_cache
from bot.search.initials import fits, read_initials
from bot.search.retrieve import read_columns
from bot.text.marked import Marked, Strong, marked
from bot.text.nicknames import same_names
from bot.text.person_names import PARTICLES, fold_name, read_back, spelled_out, without_particles
from bot.text.stopwords import FUNCTION_WORDS

MAX_NAME_WORDS = 4  # longest run of query words tried as one name
TYPO_MAX_DF = 2  # a word may be a mistyped name only when the papers' text (almost) never uses it
_COLUMNS = "name, key, papers, rowids"
# Initials and a surname: read through the people table's (last, first) index, only the surname's bearers whose
# first name starts with the initial (`Y. Wang`: 250 of the 1,600 Wangs at 110,000 papers).
INITIALS_SQL = "SELECT name, key, rowids FROM people WHERE last = ? AND first >= ? AND first < ?"
OTHERS_NAMED = 3  # people the note names beside the one it found; the rest are counted
SURNAME_PEOPLE = 5  # a surname alone names its bearers when this many or fewer wrote papers here (not the Zhangs)
SURNAME_AMONG_WORDS = 4  # query words among which a capitalised surname names its bearers (a title is longer)
COMMON_SURNAME_PAPERS = 1000  # a common surname's papers are counted up to this many (as many as a page's total says)
T = TypeVar("T")


class Person(NamedTuple):
    """One author as the index lists them: the name as first written, and their papers' rowids in index order.
    (A NamedTuple: initials such as `Y. Wang` read hundreds of them per query.)"""

    name: str
    key: tuple[str, ...]
    rowids: tuple[int, ...]


@dataclass(frozen=True)
class NameMatch:
    """A person a run of query words names: who, which words (start, end), whether typed as listed, and who else
    the words fit (M. Bansal: Mohit, Manish); `shared`: typed by initials, so the others' papers are listed too."""

    person: Person
    start: int
    end: int
    exact: bool
    others: tuple[Person, ...] = ()
    shared: bool = False

    @property
    def everyone(self) -> tuple[Person, ...]:
        """The person and those listed after them, in the answer's order."""
        return (self.person, *self.others) if self.shared else (self.person,)

    @functools.cached_property
    def papers(self) -> tuple[int, ...]:
        """The rowids of everyone's papers, person by person in the answer's order (a paper may repeat); worked out
        once, though the filter and the listing both ask (4,900 rowids for `Y. Wang` at 110,000 papers)."""
        return tuple(r for p in self.everyone for r in p.rowids)


_Found = tuple[list[Person], bool]  # the people a run of words fits, and whether it was typed as listed
InText = Callable[[tuple[str, ...]], bool]  # whether the papers' titles or abstracts use these words as a phrase


class People:
    """Look-ups in one index's people table through the caller's connection (an index without one knows nobody).

    Whether a word is part of anybody's name is asked of the index cache's name parts (IndexCache.name_parts)."""

    def __init__(self, db: Reader, cache: IndexCache | None = None) -> None:
        self.db = db
        parts = (cache or index_cache(db)).name_parts(db)
        self.available = parts is not None
        self.parts: Container[str] = frozenset() if parts is None else parts  # given names and surnames (folded)

    def _rows(self, where: str, args: Sequence[str]) -> list[Person]:
        sql = f"SELECT {_COLUMNS} FROM people WHERE {where}"
        return [Person(n, tuple(k.split()), tuple(json.loads(r))) for n, k, _, r in self.db.execute(sql, list(args))]

    def used_as_words(self, words: tuple[str, ...]) -> bool:
        """Whether some title or abstract holds these words as a phrase (`k means`, `x ray`, `t sne`): then a letter
        and a word typed so are text, not an initial and a surname."""
        expression = fts.in_columns(("title", "abstract"), fts.phrase(words))
        sql = "SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT 1"
        return self.db.execute(sql, [expression]).fetchone() is not None

    def is_given_name(self, folded: str) -> bool:
        """Whether some author's given name is this (folded) word."""
        return self.db.execute("SELECT 1 FROM people WHERE first = ? LIMIT 1", [folded]).fetchone() is not None

    def knows(self, word: str) -> bool:
        """Whether some author's given name or surname is this word (so it is no typo to correct)."""
        folded = self.folded(word)
        return len(folded) == 1 and folded[0] in self.parts

    def folded(self, typed: str) -> tuple[str, ...]:
        """A name's words folded (bot.text.person_names), each as some author's name is when only a spelling of its
        letters differs: `Schoelkopf` is Schölkopf's (scholkopf), `Schölkopf` a Schoelkopf's, `Aaberg` Åberg's."""
        words = fold_name(typed)
        if all(w in self.parts for w in words):
            return words
        spelled = fold_name(spelled_out(typed)) if not typed.isascii() else ()
        out = []
        for i, word in enumerate(words):
            forms = [spelled[i]] if len(spelled) == len(words) else []
            forms += [w for form in read_back(word) for w in fold_name(form)[:1]]
            out.append(word if word in self.parts else next((f for f in forms if f in self.parts), word))
        return tuple(out)

    def find(
        self,
        words: Sequence[str],
        df: Callable[[str], int] | None = None,
        whole: bool = False,
        in_text: InText | None = None,
        within: frozenset[int] | None = None,
    ) -> NameMatch | None:
        """The longest leftmost run of words (query terms as typed, with a trailing period or comma; a term may hold
        several words, Hans-Georg) that names a person: as listed in either order, skipping middle names, by
        initials, then with one typo in a word the papers never use (`df(word)`: its document frequency in names,
        titles and abstracts). `whole`: the run must be all the words. `in_text`: initials typed without a period or
        comma (`K means`, `t SNE`, `MJ Smith`) name nobody when the papers use them as a phrase. `within`: the
        papers in scope, which decide who of several fitting people has the most."""
        if not self.available or not words:
            return None
        folded = [self.folded(w) for w in words]
        spans = [
            (i, i + n)
            for n in range(min(MAX_NAME_WORDS, len(words)), 0 if whole else 1, -1)
            for i in range(len(words) - n + 1)
            if not whole or (i == 0 and i + n == len(words))
        ]
        names = {w for parts in folded for w in parts if w in self.parts}
        if not names:
            return None  # no query word is anybody's given name or surname: nothing more to ask
        # Longest runs first, as listed or by initials (`Kutz, J. N.` before `Kutz, J.`), then a short form of the
        # given name or a typo, anywhere.
        rounds = [
            (tier, [(i, j) for i, j in spans if j - i == n])
            for n in sorted({j - i for i, j in spans}, reverse=True)
            for tier in ("exact", "initials")
        ]
        for tier, run in [*rounds, ("nickname or typo", spans)]:
            for i, j in run:
                key = tuple(w for parts in folded[i:j] for w in parts)
                if not 2 <= len(key) <= MAX_NAME_WORDS + 1 or not (key[0] in names or key[-1] in names):
                    continue
                if tier == "initials":
                    fitting = self._initials(" ".join(words[i:j]), in_text, within)
                    if fitting:
                        return NameMatch(fitting[0], i, j, False, tuple(fitting[1:]), shared=True)
                    continue
                found = self._named(key, tier == "exact", df)
                if found:
                    people, exact = found
                    # (those whose name has more of the words typed first: `Ran El-Yanv` is Ran El-Yaniv, not Ran Yan)
                    ranked = sorted(
                        people, key=lambda p: (p.key != key, len(set(key) - set(p.key)), -len(p.rowids), p.name)
                    )
                    return NameMatch(ranked[0], i, j, exact, tuple(ranked[1:]))
        return None

    def by_surname(self, word: str, within: frozenset[int] | None = None) -> NameMatch | None:
        """The few people a surname typed alone names (`Bengio`, `levine`, `van der Schaar`: only those whose name
        ends so), the most papers first, when they wrote more papers here than titles and abstracts use the words:
        typed alone, it was ranked as a word, and the papers mentioning Levin tree search came before Sergey
        Levine's. A common surname (Zhang) stays a word."""
        surname = self._surname(word)
        if surname is None:
            return None
        people: list[Person] = []
        for name, key, _, rowids in self.db.execute(f"SELECT {_COLUMNS} FROM people WHERE last = ?", [surname[-1]]):
            words = tuple(key.split())
            theirs = tuple(r for r in json.loads(rowids) if within is None or r in within)
            if theirs and words[-len(surname) :] == surname:
                people.append(Person(name, words, theirs))
                if len(people) > SURNAME_PEOPLE:
                    return None  # (the 1,600 Wangs of 110,000 papers are not all read)
        people.sort(key=lambda p: (-len(p.rowids), p.name))
        authored = len({r for p in people for r in p.rowids})
        if not people or authored < 2 or self._used_as_a_word(surname, authored):
            return None  # (Turing machines)
        return NameMatch(people[0], 0, 1, True, tuple(people[1:]), shared=True)

    def common_surname(self, word: str, as_name: bool = False) -> str | None:
        """For a word typed alone that more than SURNAME_PEOPLE authors bear as a surname, and papers use more as a
        name than as a word (Zhang, not Long; `as_name`: typed as a name, after author:): the name of the bearer with
        the most papers, for a note asking for a first name. by_surname leaves such a surname a word, and its papers
        are by many people of that name."""
        folded = self._surname(word)
        if folded is None or len(folded) > 1:
            return None
        surname = folded[0]
        sql = "SELECT name, count(*) OVER () FROM people WHERE last = ? ORDER BY papers DESC, name LIMIT 1"
        row = self.db.execute(sql, [surname]).fetchone()
        if row is None or row[1] <= SURNAME_PEOPLE:
            return None
        if as_name:
            return str(row[0])
        authored = self._count(fts.in_columns(("authors",), fts.phrase((surname,))), COMMON_SURNAME_PAPERS)
        return None if self._used_as_a_word((surname,), authored) else str(row[0])

    def _surname(self, word: str) -> tuple[str, ...] | None:
        """A surname typed alone, folded, with any particles before it (`van der Schaar`), when some author has it as
        a name (else None: no one is called so)."""
        folded = self.folded(word)
        return folded if folded and folded[-1] in self.parts and set(folded[:-1]) <= PARTICLES else None

    def _used_as_a_word(self, words: tuple[str, ...], authored: int) -> bool:
        """Whether titles and abstracts use a surname more often than its bearers wrote papers."""
        return self._count(fts.in_columns(("title", "abstract"), fts.phrase(words)), authored + 1) > authored

    def _count(self, expression: str, most: int) -> int:
        sql = "SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)"
        return int(self.db.execute(sql, [expression, most]).fetchone()[0])

    def _named(self, key: tuple[str, ...], exact: bool, df: Callable[[str], int] | None) -> _Found | None:
        """The people a name names as listed (`exact`), else by another form of the given name or a typo; as typed,
        then without the particles before the surname: the table keys a person by the first and last word of the
        name, which for `van der Schaar, Mihaela` are particles, and looks for a typo in two words only (`Mihaela
        van der Schar` was read as words, and the surname "corrected" into Schur)."""
        for form in dict.fromkeys((key, without_particles(key))):
            found = self._exact(form) if exact else self._nickname(form) or self._typo(form, df)
            if found:
                return found
        return None

    def _exact(self, key: tuple[str, ...]) -> _Found | None:
        """As listed, or surname first (`Bansal Mohit`, `Bansal, Mohit`, `van der Schaar, Mihaela`); then given name
        and surname only."""
        parts = self.parts  # a key's first and last words are a given name and a surname
        forms = (key, (*key[1:], key[0]), (key[-1], *key[:-1]))
        keys = [" ".join(k) for k in dict.fromkeys(forms) if k[0] in parts and k[-1] in parts]
        found = self._rows(f"key IN ({','.join('?' * len(keys))})", keys) if keys else []
        if found:  # as typed first: `Yi Dong` and `Dong Yi` may be two people
            found.sort(key=lambda p: p.key != key)
            return found, True
        for first, last in ((key[0], key[-1]), (key[-1], key[0])):
            if first not in parts or last not in parts:
                continue
            found = self._rows("last = ? AND first = ?", [last, first])
            if found:
                return found, True
        return None

    def _initials(self, typed: str, in_text: InText | None, within: frozenset[int] | None) -> list[Person]:
        """Everyone whose name fits initials and a surname, either order (`M. Bansal`, `Bansal, M.`, `MJ Smith`),
        the most papers in scope first; all initials must fit, else (when marked) the first one."""
        name = read_initials(typed)
        if name is None or (not name.marked and in_text is not None and in_text(fold_name(typed))):
            return []
        first = name.initials[0]
        surname = self.folded(" ".join(name.surname))
        if len(surname) == len(name.surname):  # (B. Schoelkopf: Schölkopf)
            name = dataclasses.replace(name, surname=surname)
        found_rows = self.db.execute(INITIALS_SQL, [name.last, first, chr(ord(first) + 1)])
        rows = [(n, tuple(k.split()), r) for n, k, r in found_rows]

        def fitting(strict: bool) -> list[Person]:  # papers read only for those who fit
            people = [Person(n, key, tuple(json.loads(r))) for n, key, r in rows if fits(key, name, strict=strict)]
            if within is not None:
                people = [p._replace(rowids=tuple(r for r in p.rowids if r in within)) for p in people]
                people = [p for p in people if p.rowids]
            return people

        found = fitting(strict=True)
        if not found and name.marked and len(name.initials) > 1:
            found = fitting(strict=False)
        return sorted(found, key=lambda p: (-len(p.rowids), p.name))

    def _nickname(self, key: tuple[str, ...]) -> _Found | None:
        """A given name as another form of it and a surname, either order, middle initials skipped (`Dave Blei` and
        `Dave M. Blei`: David Blei, `Philip Torr`: Phil Torr)."""
        if any(len(middle) > 1 for middle in key[1:-1]):  # (not `Li et al`)
            return None
        for given, last in ((key[0], key[-1]), (key[-1], key[0])):
            names = [n for n in same_names(given) if n in self.parts]
            if names and last in self.parts:
                found = self._rows(f"last = ? AND first IN ({','.join('?' * len(names))})", [last, *names])
                if found:
                    return found, False
        return None

    def _typo(self, key: tuple[str, ...], df: Callable[[str], int] | None) -> _Found | None:
        """A given name and a surname, either order, one of them typed exactly and the other one edit away
        (two for long words), provided the papers' text never uses the mistyped word."""
        if len(key) != 2:
            return None
        for first, last in ((key[0], key[1]), (key[1], key[0])):
            for known, typed, column, at in ((first, last, "first", -1), (last, first, "last", 0)):
                if len(typed) < 4 or len(known) < 2 or known not in self.parts:
                    continue
                if df is not None and df(typed) > TYPO_MAX_DF:
                    continue
                limit = 1 if len(typed) < 8 else 2
                keys = [
                    k
                    for (k,) in self.db.execute(f"SELECT key FROM people WHERE {column} = ?", [known])
                    if 0 < OSA.distance(k.split()[at], typed, score_cutoff=limit) <= limit
                ]
                near = self._rows(f"key IN ({','.join('?' * len(keys))})", keys) if keys else []
                if near:
                    return near, False
        return None


@dataclass(frozen=True)
class PersonFilter:
    """What the people in a query decide: the query without their words, the person named in the free text (if
    any), and the papers author: names allow or exclude (None: no such filter)."""

    rest: ql.ParsedQuery
    match: NameMatch | None  # the person the answer names: from the free words, else the one author: name
    typed: str  # the words that named the person, as typed
    from_text: bool  # named by free words (all their papers, a topic first), not by an author: filter
    allowed: frozenset[int] | None
    denied: frozenset[int]
    beside: NameMatch | None = None  # a second person the rest of the query names whole (`Finn and Levine`)


def _typed(parsed: ql.ParsedQuery, term: ql.Term) -> str:
    """A term as typed, with the period or comma right after it (`M.`, `Bansal,`): they say a name has initials."""
    start, end = term.span
    after = parsed.text[end : end + 1]
    return parsed.text[start:end] + (after if after in ".," else "")


def people_in(
    parsed: ql.ParsedQuery,
    people: People,
    df: Callable[[str], int],
    within: frozenset[int] | None = None,
) -> PersonFilter | None:
    """The person a query's free words name (`Mohit Bansal reasoning`) and the whole names in author: filters
    (`author:"Bo Zhang"`), as rowid sets; None when the query names nobody. `within`: the papers in scope. Free
    words typed like initials may be text (`K means`); author: is a name whatever it looks like."""
    if not people.available:
        return None
    drop: set[int] = set()
    allowed: frozenset[int] | None = None
    denied: frozenset[int] = frozenset()
    fielded: list[tuple[NameMatch, str]] = []
    for i, term in enumerate(parsed.terms):
        if term.field == "author" and len(term.words) >= 2:
            found = people.find([term.text], df, whole=True, within=within)
            if found:
                rowids = frozenset(found.papers)
                if term.negated:
                    denied |= rowids
                else:
                    allowed = rowids if allowed is None else allowed & rowids
                    fielded.append((found, term.text))
                drop.add(i)
    free = [i for i, t in enumerate(parsed.terms) if not t.negated and not t.quoted and t.field is None]
    typed_terms = [_typed(parsed, parsed.terms[i]) for i in free]
    match = people.find(typed_terms, df, in_text=people.used_as_words, within=within) if len(free) >= 2 else None
    # A surname alone: `Levine`, `van der Schaar`
    if match is None and free and len(parsed.terms[free[-1]].words) == 1 and _surname_from(parsed, free, -1) == 0:
        found = people.by_surname(" ".join(parsed.terms[i].text for i in free), within)
        match = dataclasses.replace(found, end=len(free)) if found else None
    content = [i for i in free if not set(parsed.terms[i].words) <= FUNCTION_WORDS]
    # ...or capitalised among a few: `Bengio GFlowNets`, `van der Schaar synthetic data` (else `Schaar` alone)
    runs = [
        (start, at + 1)
        for at, i in enumerate(free)
        if match is None and len(parsed.terms[i].words) == 1 and parsed.terms[i].text[:1].isupper()
        for start in dict.fromkeys((_surname_from(parsed, free, at), at))
    ]
    for start, end in runs:
        others = [j for j in content if j not in free[start:end]]
        # (beside words the papers use: `MK Smith` is initials that fit no Smith, not a topic)
        if 0 < len(others) < SURNAME_AMONG_WORDS and all(df(w) for j in others for w in parsed.terms[j].words):
            found = people.by_surname(" ".join(parsed.terms[j].text for j in free[start:end]), within)
            if found:
                match = dataclasses.replace(found, start=start, end=end)
                break
    typed = ""
    if match:
        named = free[match.start : match.end]
        drop.update(named)
        start, end = parsed.terms[named[0]].span[0], parsed.terms[named[-1]].span[1]
        typed = parsed.text[start:end] + ("." if parsed.text[end : end + 1] == "." else "")
        rowids = frozenset(match.papers)
        allowed = rowids if allowed is None else allowed & rowids
    if not drop:
        return None
    if match:  # the request around a name typed in words goes too ("Sergey Levine's work on offline RL")
        rest = ql.without_name(parsed, drop)
        if rest.author_position and allowed is not None:  # "Chelsea Finn as last author": only those papers
            allowed &= _in_place(people.db, match, rest.author_position)
    else:
        rest = dataclasses.replace(parsed, terms=[t for i, t in enumerate(parsed.terms) if i not in drop])
    if match is None and len(fielded) == 1:
        return PersonFilter(rest, fielded[0][0], fielded[0][1], False, allowed, denied)
    return PersonFilter(rest, match, typed, match is not None, allowed, denied, _beside(rest, match, people, within))


def _surname_from(parsed: ql.ParsedQuery, free: list[int], at: int) -> int:
    """Where a surname typed as the free term `at` starts: at the particles typed right before it (`van der
    Schaar`), which the people table does not key the surname by."""
    start = at % len(free)
    while start and (words := parsed.terms[free[start - 1]].words) and len(words) == 1 and words[0] in PARTICLES:
        start -= 1
    return start


def _beside(
    rest: ql.ParsedQuery, match: NameMatch | None, people: People, within: frozenset[int] | None
) -> NameMatch | None:
    """A second person the words left beside the first name make up whole (`Chelsea Finn and Sergey Levine`): the
    answer says their joint papers come first (the words rank them so) and marks both."""
    words = [t for t in rest.terms if not (t.quoted or t.negated or t.field) and not set(t.words) <= FUNCTION_WORDS]
    if match is None or not 2 <= len(words) <= MAX_NAME_WORDS:
        return None
    other = people.find([_typed(rest, t) for t in words], whole=True, within=within)
    return other if other and other.person.key != match.person.key else None


def common_surname_note(parsed: ql.ParsedQuery, people: People) -> Marked | None:
    """When the query is only a surname many authors share (`Zhang`, `author:Zhang`): how to ask for one of them."""
    terms = parsed.terms
    if not people.available or len(terms) != 1 or len(terms[0].words) != 1 or terms[0].negated:
        return None
    if terms[0].quoted or terms[0].field not in (None, "author"):
        return None
    bearer = people.common_surname(terms[0].text, as_name=terms[0].field == "author")
    if bearer is None:
        return None
    first, *rest = bearer.split()  # (as the index names them: the usual casing among a person's spellings)
    example = (
        (Strong(" ".join((first, *rest))), ", ", Strong(f"{first[0]}. {' '.join(rest)}")) if rest else (Strong(bearer),)
    )
    asked = Strong(terms[0].text)
    return marked(
        "Many authors are called ", asked, ": add a first name or an initial for one person's papers (", *example, ")."
    )


def unknown_person(
    parsed: ql.ParsedQuery, people: People, df: Callable[[str], int], typo: Callable[[str], bool]
) -> str | None:
    """The name a query is, when it is only the name of someone no author here is (`Dan Hendrycks`): two or three
    capitalised words, the first some author's given name, the last a word no title, abstract or author uses and no
    typo of a word they use (`typo`). Read as words, it would list other Dans' papers or correct the surname into a
    word (Olah into Olaf). A surname some author has is left to people search (`Dave Blei` is David Blei's)."""
    terms = parsed.terms
    if not people.available or not 2 <= len(terms) <= 3 or parsed.links:
        return None
    if any(t.quoted or t.negated or t.field or len(t.words) != 1 or not t.text.istitle() for t in terms):
        return None
    first, last = people.folded(terms[0].text), people.folded(terms[-1].text)
    if len(first) != 1 or len(last) != 1 or first[0] not in people.parts or last[0] in people.parts:
        return None
    surname = terms[-1].words[0]
    if df(surname) or typo(surname) or not people.is_given_name(first[0]):
        return None
    return " ".join(t.text for t in terms)


def person_note(found: PersonFilter, count: int, topic: str, on_topic: bool = True) -> Marked:
    """What the answer says about the person it found: `4 papers by Mohit Bansal` (the name Strong), and how it was read
    (`on_topic`: whether any of their papers holds a word of the topic)."""
    match = found.match
    if match is None:
        return marked()
    name = Strong(match.person.name)
    place = found.rest.author_position
    whose = marked("with ", name, f" as {place} author") if place and found.from_text else marked("by ", name)
    note = marked(f"{count} paper{'s' if count != 1 else ''} " if count else "No papers ") + whose
    if found.beside and count:
        note += marked(", those with ", Strong(found.beside.person.name), " first")
    elif topic and found.from_text and count and not on_topic:
        note += marked(", none about ", Strong(topic))
    elif topic:
        about = marked(", those about ", Strong(topic), " first") if found.from_text and count else None
        note += about or marked(" about ", Strong(topic))
    rest = found.rest
    if not count and (rest.status or rest.status_excluded or rest.has_code is not None or rest.names_venues):
        note += " with these filters"  # (they have papers here: a search names only people who do)
    if not match.exact:
        note += marked(" (you typed ", Strong(found.typed), ")")
    if match.others:
        more = ", ".join(f"{p.name} ({len(p.rowids)})" for p in match.others[:OTHERS_NAMED])
        if len(match.others) > OTHERS_NAMED:
            more += f" and {len(match.others) - OTHERS_NAMED} more"
        if match.shared:
            note += f". Also fits, listed after: {more}; type the full name for one person's papers."
        else:
            note += f". Also named so: {more}; type the full name for theirs."
    return note


def _in_place(db: Reader, match: NameMatch, place: str) -> frozenset[int]:
    """The person's papers that list them first (`place` "first") or last ("last", the senior author's place)."""
    keys = {p.key for p in match.everyone}
    at = 0 if place == "first" else -1
    rows = read_columns(db, "authors", list(match.papers))
    return frozenset(
        r for r, (text,) in rows.items() if (names := json.loads(text or "[]")) and fold_name(names[at]) in keys
    )


def author_of(match: NameMatch, authors: Sequence[str]) -> str:
    """Which of the people a name stands for wrote a paper (the one found, unless another fitting one did)."""
    keys = {fold_name(a) for a in authors}
    return next((p.name for p in match.everyone if p.key in keys), match.person.name)


def named_authors(
    authors: Sequence[str], matches: Sequence[NameMatch | None], author_words: Sequence[Sequence[str]]
) -> list[str]:
    """The authors of a paper the query named, as the paper lists them: the people it found (or others their
    initials fit), and authors holding every word of an author: term, so the answer can show where they are."""
    keys = {p.key for match in matches if match for p in match.everyone}
    wanted = [set(fold_name(" ".join(words))) for words in author_words]
    out = []
    for author in authors:
        folded = fold_name(author)
        spelled = set(fold_name(spelled_out(author)))  # (author:Schoelkopf marks Schölkopf)
        if folded in keys or any(words and (words <= set(folded) or words <= spelled) for words in wanted):
            out.append(author)
    return out


def one_person_at_a_time(
    found: PersonFilter, ranked: list[T], rowid: Callable[[T], int], on_topic: Callable[[T], bool]
) -> tuple[PersonFilter, list[T], int]:
    """Several people fit the initials: the one whose paper ranks first on the topic leads (else the one with the
    most papers), then each other person's papers in turn, each in ranked order. Returns the filter naming the
    lead, the papers reordered, and how many of them are the lead's."""
    match = found.match
    if match is None or not match.shared:
        return found, ranked, len(ranked)
    people = list(match.everyone)
    best = next((rowid(item) for item in ranked if on_topic(item)), None)
    if best is not None:
        lead = next(p for p in people if best in p.rowids)
        people = [lead] + [p for p in people if p is not lead]
    turn: dict[int, int] = {}
    for i, person in enumerate(people):
        for r in person.rowids:
            turn.setdefault(r, i)
    ordered = sorted(ranked, key=lambda item: turn.get(rowid(item), len(people)))
    lead_match = dataclasses.replace(match, person=people[0], others=tuple(people[1:]))
    theirs = sum(1 for item in ordered if turn.get(rowid(item)) == 0)
    return dataclasses.replace(found, match=lead_match), ordered, theirs


@dataclass(frozen=True)
class PersonCard:
    """One person for `/icml author`: the name as listed, how many papers, their co-authors by shared papers, and
    the initials typed when others fit them too (their papers follow, as in a search for those initials)."""

    name: str
    papers: int
    coauthors: list[tuple[str, int]]
    initials: str = ""

    @property
    def query(self) -> str:
        """The search that lists exactly their papers (author: takes the whole name), or theirs first and then
        those of the others the initials fit, as `author:"M. Bansal"` does."""
        return 'author:"' + (self.initials or self.name).replace('"', " ") + '"'


def person_card(db: Reader, name: str, most: int = 10, within: frozenset[int] | None = None) -> PersonCard | None:
    """The person a name means (typed any way find accepts, as a whole, or a surname few share; `within`: the papers
    in scope) with their most frequent co-authors."""
    people = People(db)
    match = people.find([name], whole=True, within=within) or people.by_surname(name, within)
    if match is None:
        return None
    person = match.person
    coauthors = frequent_authors(db, person.rowids, most, skip=person.key)
    initials = name if match.shared and match.others else ""
    return PersonCard(person.name, len(person.rowids), coauthors, initials)


def frequent_authors(
    db: Reader, rowids: Sequence[int], most: int = 10, skip: tuple[str, ...] = ()
) -> list[tuple[str, int]]:
    """The authors of these papers by how many of them they wrote, most first (then by name), each named as first
    listed; `skip`: a person's folded name (their co-authors are wanted)."""
    names: dict[tuple[str, ...], str] = {}
    shared: Counter[tuple[str, ...]] = Counter()
    for (authors,) in read_columns(db, "authors", list(rowids)).values():
        for author in dict.fromkeys(json.loads(authors or "[]")):
            key = fold_name(author)
            if key and key != skip:
                names.setdefault(key, author)
                shared[key] += 1
    ranked = sorted(shared.items(), key=lambda kc: (-kc[1], names[kc[0]]))
    return [(names[k], n) for k, n in ranked[:most]]
