"""People in a query, as the answer uses them: the papers the people a query names allow or exclude, the notes
that say who was found (or that a surname is too common, or that nobody here has a name), the order when several
people fit initials, and the card of `/icml author`. Who a run of words names is bot.search.people_lookup's."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from bot.papers.matching import columns_of
from bot.papers.reading import Reader
from bot.search import query as ql
from bot.search.people_lookup import COMMON_SURNAME_PAPERS as COMMON_SURNAME_PAPERS
from bot.search.people_lookup import MAX_NAME_WORDS as MAX_NAME_WORDS
from bot.search.people_lookup import SURNAME_PEOPLE as SURNAME_PEOPLE
from bot.search.people_lookup import NameMatch as NameMatch
from bot.search.people_lookup import People as People
from bot.search.people_lookup import Person as Person
from bot.text.person_names import PARTICLES, fold_name, spelled_out
from bot.text.stopwords import FUNCTION_WORDS

# query words among which a capitalised surname names its bearers (a title is longer)
SURNAME_AMONG_WORDS = 4
T = TypeVar("T")


@dataclass(frozen=True)
class PersonFilter:
    """What the people in a query decide: the query without their words, the person named in the free text (if
    any), and the papers author: names allow or exclude (None: no such filter)."""

    rest: ql.ParsedQuery
    # The person the answer names: from the free words, else the one author: name
    match: NameMatch | None
    typed: str  # the words that named the person, as typed
    # named by free words (all their papers, a topic first), not by an author: filter
    from_text: bool
    allowed: frozenset[int] | None
    denied: frozenset[int]
    # a second person the rest of the query names whole (`Finn and Levine`)
    beside: NameMatch | None = None


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
    drop, allowed, denied, fielded = _author_filters(parsed, people, df, within)
    free = [i for i, t in enumerate(parsed.terms) if not t.negated and not t.quoted and t.field is None]
    match = _named_in_words(parsed, people, df, within, free)
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
    # The request around a name typed in words goes too ("Sergey Levine's work on offline RL")
    if match:
        rest = ql.without_name(parsed, drop)
        # "Chelsea Finn as last author": only those papers
        if rest.author_position and allowed is not None:
            allowed &= _in_place(people.db, match, rest.author_position)
    else:
        rest = dataclasses.replace(parsed, terms=[t for i, t in enumerate(parsed.terms) if i not in drop])
    if match is None and len(fielded) == 1:
        return PersonFilter(rest, fielded[0][0], fielded[0][1], False, allowed, denied)
    return PersonFilter(rest, match, typed, match is not None, allowed, denied, _beside(rest, match, people, within))


def _author_filters(
    parsed: ql.ParsedQuery, people: People, df: Callable[[str], int], within: frozenset[int] | None
) -> tuple[set[int], frozenset[int] | None, frozenset[int], list[tuple[NameMatch, str]]]:
    """The whole names in author: terms: the terms read as people, the papers they allow (None: no such filter) and
    exclude, and the people allowed with the names as typed."""
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
    return drop, allowed, denied, fielded


def _named_in_words(
    parsed: ql.ParsedQuery,
    people: People,
    df: Callable[[str], int],
    within: frozenset[int] | None,
    free: list[int],
) -> NameMatch | None:
    """The person the free terms (`free`: their indexes) name: a run of them, a surname alone, or a capitalised
    surname among a few words; start and end count free terms."""
    typed_terms = [_typed(parsed, parsed.terms[i]) for i in free]
    match = people.find(typed_terms, df, in_text=people.used_as_words, within=within) if len(free) >= 2 else None
    # A surname alone: `Levine`, `van der Schaar`
    if match is None and free and len(parsed.terms[free[-1]].words) == 1 and _surname_from(parsed, free, -1) == 0:
        found = people.by_surname(" ".join(parsed.terms[i].text for i in free), within)
        match = dataclasses.replace(found, end=len(free)) if found else None
    if match is not None:
        return match
    content = [i for i in free if not set(parsed.terms[i].words) <= FUNCTION_WORDS]
    # ...or capitalised among a few: `Bengio GFlowNets`, `van der Schaar synthetic data` (else `Schaar` alone)
    runs = [
        (start, at + 1)
        for at, i in enumerate(free)
        if len(parsed.terms[i].words) == 1 and parsed.terms[i].text[:1].isupper()
        for start in dict.fromkeys((_surname_from(parsed, free, at), at))
    ]
    for start, end in runs:
        others = [j for j in content if j not in free[start:end]]
        # (beside words the papers use: `MK Smith` is initials that fit no Smith, not a topic)
        if 0 < len(others) < SURNAME_AMONG_WORDS and all(df(w) for j in others for w in parsed.terms[j].words):
            found = people.by_surname(" ".join(parsed.terms[j].text for j in free[start:end]), within)
            if found:
                return dataclasses.replace(found, start=start, end=end)
    return None


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


def common_surname(parsed: ql.ParsedQuery, people: People) -> tuple[str, str] | None:
    """When the query is only a surname many authors share (`Zhang`, `author:Zhang`): the surname as typed and one
    of its bearers as the index names them (bot.search.notes says how to ask for one person)."""
    terms = parsed.terms
    if not people.available or len(terms) != 1 or len(terms[0].words) != 1 or terms[0].negated:
        return None
    if terms[0].quoted or terms[0].field not in (None, "author"):
        return None
    bearer = people.common_surname(terms[0].text, as_name=terms[0].field == "author")
    return None if bearer is None else (terms[0].text, bearer)


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


def _in_place(db: Reader, match: NameMatch, place: str) -> frozenset[int]:
    """The person's papers that list them first (`place` "first") or last ("last", the senior author's place)."""
    keys = {p.key for p in match.everyone}
    at = 0 if place == "first" else -1
    rows = columns_of(db, "authors", list(match.papers))
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
    for (authors,) in columns_of(db, "authors", list(rowids)).values():
        for author in dict.fromkeys(json.loads(authors or "[]")):
            key = fold_name(author)
            if key and key != skip:
                names.setdefault(key, author)
                shared[key] += 1
    ranked = sorted(shared.items(), key=lambda kc: (-kc[1], names[kc[0]]))
    return [(names[k], n) for k, n in ranked[:most]]
