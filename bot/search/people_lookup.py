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
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rapidfuzz.distance import OSA

from bot.papers import fts, people_table
from bot.papers.fulltext import any_match, count_matches
from bot.papers.people_table import PersonRow
from bot.papers.reading import Reader
from bot.search.cache import IndexCache, index_cache
from bot.search.initials import fits, read_initials
from bot.text.nicknames import same_names
from bot.text.person_names import PARTICLES, fold_name, read_back, spelled_out, without_particles

MAX_NAME_WORDS = 4  # longest run of query words tried as one name
TYPO_MAX_DF = 2  # a word may be a mistyped name only when the papers' text (almost) never uses it
# A surname alone names its bearers when this many or fewer wrote papers here (not the Zhangs)
SURNAME_PEOPLE = 5
# A common surname's papers are counted up to this many (as many as a page's total says)
COMMON_SURNAME_PAPERS = 1000


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


# The people a run of words fits, and whether it was typed as listed
_Found = tuple[list[Person], bool]
# Whether the papers' titles or abstracts use these words as a phrase
InText = Callable[[tuple[str, ...]], bool]


class People:
    """Look-ups in one index's people table through the caller's connection (an index without one knows nobody).

    Whether a word is part of anybody's name is asked of the index cache's name parts (IndexCache.name_parts)."""

    def __init__(self, db: Reader, cache: IndexCache | None = None) -> None:
        self.db = db
        parts = (cache or index_cache(db)).name_parts(db)
        self.available = parts is not None
        # given names and surnames (folded)
        self.parts: Container[str] = frozenset() if parts is None else parts

    @staticmethod
    def _people(rows: list[PersonRow]) -> list[Person]:
        return [Person(n, tuple(k.split()), tuple(json.loads(r))) for n, k, r in rows]

    def used_as_words(self, words: tuple[str, ...]) -> bool:
        """Whether some title or abstract holds these words as a phrase (`k means`, `x ray`, `t sne`): then a letter
        and a word typed so are text, not an initial and a surname."""
        expression = fts.in_columns(("title", "abstract"), fts.phrase(words))
        return any_match(self.db, expression)

    def is_given_name(self, folded: str) -> bool:
        """Whether some author's given name is this (folded) word."""
        return people_table.is_given_name(self.db, folded)

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
        for name, key, rowids in people_table.with_surname(self.db, surname[-1]):
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
        bearer = people_table.most_published(self.db, surname)
        if bearer is None or bearer[1] <= SURNAME_PEOPLE:
            return None
        if as_name:
            return bearer[0]
        authored = self._count(fts.in_columns(("authors",), fts.phrase((surname,))), COMMON_SURNAME_PAPERS)
        return None if self._used_as_a_word((surname,), authored) else bearer[0]

    def _surname(self, word: str) -> tuple[str, ...] | None:
        """A surname typed alone, folded, with any particles before it (`van der Schaar`), when some author has it as
        a name (else None: no one is called so)."""
        folded = self.folded(word)
        return folded if folded and folded[-1] in self.parts and set(folded[:-1]) <= PARTICLES else None

    def _used_as_a_word(self, words: tuple[str, ...], authored: int) -> bool:
        """Whether titles and abstracts use a surname more often than its bearers wrote papers."""
        return self._count(fts.in_columns(("title", "abstract"), fts.phrase(words)), authored + 1) > authored

    def _count(self, expression: str, most: int) -> int:
        return count_matches(self.db, expression, most)

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
        found = self._people(people_table.with_keys(self.db, keys))
        if found:  # as typed first: `Yi Dong` and `Dong Yi` may be two people
            found.sort(key=lambda p: p.key != key)
            return found, True
        for first, last in ((key[0], key[-1]), (key[-1], key[0])):
            if first not in parts or last not in parts:
                continue
            found = self._people(people_table.named(self.db, first, last))
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
        rows = [(n, tuple(k.split()), r) for n, k, r in people_table.by_initial(self.db, name.last, first)]

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
                found = self._people(people_table.with_given_names(self.db, last, names))
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
                    for k in people_table.keys_where(self.db, column, known)
                    if 0 < OSA.distance(k.split()[at], typed, score_cutoff=limit) <= limit
                ]
                near = self._people(people_table.with_keys(self.db, keys))
                if near:
                    return near, False
        return None
