"""People: which person a query names (`Mohit Bansal`, `Bansal, Mohit`, `M. Bansal`, `Jurgen Schmidhuber`,
`Mohit Bansl`), looked up in the index's people table (bot.papers.index.rebuild_people).

Names compare folded (bot.text.person_names), so `Müller`, `Muller` and `MÜLLER` are one surname. A run of query
words names a person when it is a whole author name, in either order, skipping middle names, with an initial for
the given name, or with one typo in a word the papers' text does not use. One surname alone names nobody (there are
hundreds of Zhangs): it stays a word that also matches the authors column.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sqlite_utils
from rapidfuzz.distance import OSA

from bot.search import query as ql
from bot.text.person_names import fold_name

MAX_NAME_WORDS = 4  # longest run of query words tried as one name
TYPO_MAX_DF = 2  # a word may be a mistyped name only when the papers' text (almost) never uses it
_COLUMNS = "name, key, papers, rowids"


@dataclass(frozen=True)
class Person:
    """One author as the index lists them: the name as first written, and their papers' rowids in index order."""

    name: str
    key: tuple[str, ...]
    rowids: tuple[int, ...]


@dataclass(frozen=True)
class NameMatch:
    """A person a run of query words names: who, which words (start, end), whether typed as listed, and who else
    the words fit (M. Bansal: Mohit, Manish)."""

    person: Person
    start: int
    end: int
    exact: bool
    others: tuple[Person, ...] = ()


_Found = tuple[list[Person], bool]  # the people a run of words fits, and whether it was typed as listed


class People:
    """Look-ups in one index's people table through the caller's connection (an index without one knows nobody)."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        try:
            db.execute("SELECT 1 FROM people LIMIT 1")
            self.available = True
        except sqlite3.OperationalError:  # an index built before people were kept: re-index to search by person
            self.available = False

    def _rows(self, where: str, args: Sequence[str]) -> list[Person]:
        sql = f"SELECT {_COLUMNS} FROM people WHERE {where}"
        return [Person(n, tuple(k.split()), tuple(json.loads(r))) for n, k, _, r in self.db.execute(sql, list(args))]

    def knows(self, word: str) -> bool:
        """Whether some author's given name or surname is this word (so it is no typo to correct)."""
        folded = fold_name(word)
        if not self.available or len(folded) != 1:
            return False
        sql = "SELECT 1 FROM people WHERE last = ? UNION ALL SELECT 1 FROM people WHERE first = ? LIMIT 1"
        return self.db.execute(sql, [folded[0], folded[0]]).fetchone() is not None

    def find(
        self, words: Sequence[str], df: Callable[[str], int] | None = None, whole: bool = False
    ) -> NameMatch | None:
        """The longest leftmost run of words (query terms; a term may hold several words, Hans-Georg) that names a
        person: as listed in either order, skipping middle names, by initial, then with one typo in a word the
        papers never use (`df(word)`: its document frequency in names, titles and abstracts). `whole`: the run must
        be all the words."""
        if not self.available or not words:
            return None
        folded = [fold_name(w) for w in words]
        spans = [
            (i, i + n)
            for n in range(min(MAX_NAME_WORDS, len(words)), 0 if whole else 1, -1)
            for i in range(len(words) - n + 1)
            if not whole or (i == 0 and i + n == len(words))
        ]
        names = self._names_among({w for parts in folded for w in parts})
        if not names:
            return None  # no query word is anybody's given name or surname: nothing more to ask
        for tier in (self._exact, self._initial, self._typo):
            for i, j in spans:
                key = tuple(w for parts in folded[i:j] for w in parts)
                if not 2 <= len(key) <= MAX_NAME_WORDS + 1 or not (key[0] in names or key[-1] in names):
                    continue
                found = tier(key, df)
                if found:
                    people, exact = found
                    ranked = sorted(people, key=lambda p: (p.key != key, -len(p.rowids), p.name))
                    return NameMatch(ranked[0], i, j, exact, tuple(ranked[1:]))
        return None

    def _names_among(self, words: set[str]) -> set[str]:
        """Which of these words are some author's given name or surname (one indexed look-up per column)."""
        marks = ",".join("?" * len(words))
        sql = (
            f"SELECT DISTINCT last FROM people WHERE last IN ({marks}) UNION "
            f"SELECT DISTINCT first FROM people WHERE first IN ({marks})"
        )
        return {w for (w,) in self.db.execute(sql, [*words, *words])}

    def _exact(self, key: tuple[str, ...], df: Callable[[str], int] | None) -> _Found | None:
        """As listed, or surname first (`Bansal Mohit`, `Bansal, Mohit`); then given name and surname only."""
        keys = list(dict.fromkeys((" ".join(key), " ".join((*key[1:], key[0])))))
        found = self._rows(f"key IN ({','.join('?' * len(keys))})", keys)
        if found:  # as typed first: `Yi Dong` and `Dong Yi` may be two people
            found.sort(key=lambda p: p.key != key)
            return found, True
        for first, last in ((key[0], key[-1]), (key[-1], key[0])):
            found = self._rows("last = ? AND first = ?", [last, first])
            if found:
                return found, True
        return None

    def _initial(self, key: tuple[str, ...], df: Callable[[str], int] | None) -> _Found | None:
        """An initial and a surname, either order (`M. Bansal`, `Bansal M`)."""
        if len(key) != 2:
            return None
        for initial, last in ((key[0], key[1]), (key[1], key[0])):
            if len(initial) == 1 and len(last) >= 2:
                found = self._rows("last = ? AND first >= ? AND first < ?", [last, initial, chr(ord(initial) + 1)])
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
                if len(typed) < 4 or len(known) < 2 or (df is not None and df(typed) > TYPO_MAX_DF):
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


def people_in(parsed: ql.ParsedQuery, people: People, df: Callable[[str], int]) -> PersonFilter | None:
    """The person a query's free words name (`Mohit Bansal reasoning`) and the whole names in author: filters
    (`author:"Bo Zhang"`), as rowid sets; None when the query names nobody."""
    if not people.available:
        return None
    drop: set[int] = set()
    allowed: frozenset[int] | None = None
    denied: frozenset[int] = frozenset()
    fielded: list[tuple[NameMatch, str]] = []
    for i, term in enumerate(parsed.terms):
        if term.field == "author" and len(term.words) >= 2:
            found = people.find([term.text], df, whole=True)
            if found:
                rowids = frozenset(found.person.rowids)
                if term.negated:
                    denied |= rowids
                else:
                    allowed = rowids if allowed is None else allowed & rowids
                    fielded.append((found, term.text))
                drop.add(i)
    free = [i for i, t in enumerate(parsed.terms) if not t.negated and not t.quoted and t.field is None]
    match = people.find([" ".join(parsed.terms[i].words) for i in free], df) if len(free) >= 2 else None
    typed = ""
    if match:
        named = free[match.start : match.end]
        drop.update(named)
        typed = parsed.text[parsed.terms[named[0]].span[0] : parsed.terms[named[-1]].span[1]]
        rowids = frozenset(match.person.rowids)
        allowed = rowids if allowed is None else allowed & rowids
    if not drop:
        return None
    rest = dataclasses.replace(parsed, terms=[t for i, t in enumerate(parsed.terms) if i not in drop])
    if match is None and len(fielded) == 1:
        return PersonFilter(rest, fielded[0][0], fielded[0][1], False, allowed, denied)
    return PersonFilter(rest, match, typed, match is not None, allowed, denied)


def person_note(found: PersonFilter, count: int, topic: str) -> str:
    """What the answer says about the person it found: `4 papers by *Mohit Bansal*`, and how the name was read."""
    match = found.match
    if match is None:
        return ""
    name = match.person.name
    note = f"{count} paper{'s' if count != 1 else ''} by *{name}*"
    if topic:
        note += f", those about *{topic}* first" if found.from_text else f" about *{topic}*"
    if not match.exact:
        note += f" (you typed *{found.typed}*)"
    if match.others:
        more = ", ".join(f"{p.name} ({len(p.rowids)})" for p in match.others[:3])
        note += f". Also named so: {more}; type the full name for theirs."
    return note


@dataclass(frozen=True)
class PersonCard:
    """One person for `/icml author`: the name as listed, how many papers, and their co-authors by shared papers."""

    name: str
    papers: int
    coauthors: list[tuple[str, int]]

    @property
    def query(self) -> str:
        """The search that lists exactly their papers (author: takes the whole name)."""
        return 'author:"' + self.name.replace('"', " ") + '"'


def person_card(db: sqlite_utils.Database, name: str, most: int = 10) -> PersonCard | None:
    """The person a name means (typed any way find accepts, as a whole) with their most frequent co-authors."""
    match = People(db).find([name], whole=True)
    if match is None:
        return None
    person = match.person
    names: dict[tuple[str, ...], str] = {}
    shared: Counter[tuple[str, ...]] = Counter()
    marks = ",".join("?" * len(person.rowids))
    for (authors,) in db.execute(f"SELECT authors FROM papers WHERE rowid IN ({marks})", list(person.rowids)):
        for other in json.loads(authors or "[]"):
            key = fold_name(other)
            if key and key != person.key:
                names.setdefault(key, other)
                shared[key] += 1
    ranked = sorted(shared.items(), key=lambda kc: (-kc[1], names[kc[0]]))
    return PersonCard(person.name, len(person.rowids), [(names[k], n) for k, n in ranked[:most]])
