"""The query language a researcher can guess: words, "phrases", -exclusions and a few field filters.

Parsing is pure and total: any text (operators, unbalanced quotes, emoji, control characters, 10,000 characters)
becomes a ParsedQuery, possibly empty, and never raises. Nothing here builds FTS syntax (bot.papers.fts does).
"""

from __future__ import annotations

import dataclasses
import re

from bot.papers.venues import CONFERENCES, venue_filter
from bot.search.framing import COMPARING, LIKE, VERSUS, names_no_topic, only_asks, topic_span
from bot.search.parsed import ParsedQuery as ParsedQuery
from bot.search.parsed import Term as Term
from bot.search.typed import LINK, as_written, normalize_input, tokens
from bot.search.typed import MAX_CHARS as MAX_CHARS
from bot.text.stopwords import FUNCTION_WORDS
from bot.text.tokens import drop_possessives
from bot.text.words import WORD_RE, word_set

MAX_TERMS = 32
# Words a phrase or a hyphenated term may join. FTS5 reads a phrase's words' positions once per word: `"a a a …"`
# or `a-a-a-…` pasted 250 times took seconds at 110,000 papers (docs/benchmarks.md). Real terms join a few
# (Llama-3.1-8B-Instruct: five).
MAX_PHRASE_WORDS = 32
MAX_COMPOUND_WORDS = 8
STATUSES = ("oral", "spotlight", "poster")
# Field names people type, mapped onto the filters we have.
FIELDS = {
    "author": "author", "authors": "author", "by": "author", "au": "author",
    "title": "title", "ti": "title", "intitle": "title",
    "has": "has", "with": "has",
    "status": "status", "is": "status", "type": "status",
    "venue": "venue", "conf": "venue", "conference": "venue", "year": "year", "track": "track",
}  # fmt: skip
TRACK_VALUES = ("main", "position", "datasets", "workshop")  # bot.papers.venues.TRACKS
HAS_VALUES = {"code": "code", "github": "code", "repo": "code", "link": "code"}
# Filters a question names in words instead of as fields ("any oral papers on ...", "kv cache papers with code"):
# the field and value each word stands for. Most papers are posters, so "poster" stays a word.
_SAID = {
    "oral": ("status", "oral"), "orals": ("status", "oral"),
    "spotlight": ("status", "spotlight"), "spotlights": ("status", "spotlight"),
    "code": ("has", "code"), "github": ("has", "code"),
    "implementation": ("has", "code"), "implementations": ("has", "code"),
}  # fmt: skip
_WANTING = frozenset(("i", "d", "we", "would", "you", "they"))  # "I'd like ...": like as in want
# words of the query language: never typo-corrected into other words ("oral": odal)
FILTER_WORDS = frozenset(_SAID)
_YEAR = re.compile(r"(?:19|20)\d\d")
# between NOT and its term
_NOT_ABOUT = frozenset(("about", "on", "regarding", "concerning", "involving"))
_AROUND_LINKS = FUNCTION_WORDS | word_set(
    "see like this that these paper papers check out look what about here link links please similar related more same "
    "any anything"
)  # words around a pasted link that only point at it


def parse(raw: str) -> ParsedQuery:
    """Split user text into terms and filters; never raises, whatever the text."""
    text = normalize_input(raw)
    query = ParsedQuery(text="")
    if len(text) > MAX_CHARS:
        cut = text.rfind(" ", 0, MAX_CHARS + 1)
        text = text[: cut if cut > MAX_CHARS // 2 else MAX_CHARS]
        query.truncated = True
    query.text = text
    after_word = excluding = False  # "diffusion NOT video": an exclusion, as search engines read it
    for m in tokens(text):
        if m.group(0) == "NOT" and after_word:
            after_word, excluding = False, True
            continue
        # "papers NOT about LLMs": what follows is excluded
        if excluding and m.group(0).lower() in _NOT_ABOUT:
            continue
        # not "Models, NOT Abused"
        after_word = m.group(0)[-1].isalnum() or m.group(0)[-1] in '")'
        link = LINK.fullmatch(m.group(0))
        if link:
            query.links += (link["url"],)
            continue
        negated, excluding = bool(m["neg"]) or excluding, False
        fname = (m["field"] or "").lower()
        kind = FIELDS.get(fname)
        value = m["quoted"] if m["quoted"] is not None else (m["bare"] or "")
        quoted = m["quoted"] is not None
        if m["field"] and kind is None:
            # An unknown "field:" is just text (year:2020 searches for "year 2020").
            value = f"{m['field']} {value}"
        if kind in ("has", "status", "venue", "year", "track"):
            _filter_field(query, kind, value, negated)
            continue
        words = tuple(w.lower() for w in WORD_RE.findall(value))
        if not words:
            continue  # emoji, punctuation, operators: nothing to search for
        if len(query.terms) >= MAX_TERMS:
            query.truncated = True
            break
        _add_term(query, m, (value, words), quoted, negated, kind)
    _tidy(query, text)
    return query


def _add_term(
    query: ParsedQuery,
    m: re.Match[str],
    typed: tuple[str, tuple[str, ...]],
    quoted: bool,
    negated: bool,
    kind: str | None,
) -> None:
    """One token's term: a phrase or author name as typed, a garbled run of too many words as its words each once,
    or a bare word or compound (kv-cache, GPT-4o, don't) that must match as adjacent words. `typed`: its value and
    its words."""
    value, words = typed
    start = m.start()
    if quoted or kind == "author":
        if len(words) > MAX_PHRASE_WORDS:
            words = words[:MAX_PHRASE_WORDS]
            query.notes.append(f"A phrase that long was searched by its first {MAX_PHRASE_WORDS} words.")
        literal = as_written(value.strip()) if quoted else None
        query.terms.append(Term(value.strip(), words, quoted, negated, kind, span=(start, m.end()), literal=literal))
        return
    # No term joins so many (a\a\a…, garbled text): its words, each once
    if len(words) > MAX_COMPOUND_WORDS:
        unique = list(dict.fromkeys(words))
        room = MAX_TERMS - len(query.terms)
        query.truncated |= len(unique) > room
        for word in unique[:room]:
            at = start + max(0, m.group(0).lower().find(word))
            query.terms.append(Term(word, (word,), negated=negated, field=kind, span=(at, at + len(word))))
        return
    # A bare token: one word, or a compound (kv-cache, GPT-4o, don't) that must match as adjacent words.
    display = value.strip("'\".,;:!?()[]{}<>*^")
    if display.endswith("'s"):  # Bansal's papers: Bansal, as the vocabulary reads it
        display = drop_possessives(display)
        words = tuple(w.lower() for w in WORD_RE.findall(display)) or words
    if len(words) == 1:
        display = words[0] if not any(c.isalnum() for c in display) else display
    token_start = start + (m.group(0).find(display) if display in m.group(0) else 0)
    query.terms.append(
        Term(
            display or " ".join(words),
            words,
            negated=negated,
            field=kind,
            span=(token_start, token_start + len(display)),
            literal=as_written(display),
        )
    )


def _tidy(query: ParsedQuery, text: str) -> None:
    """A parsed query's filters each once, its question read (_keep_topic), and its notes said once each."""
    _keep_topic(query)
    query.venues, query.years = tuple(dict.fromkeys(query.venues)), tuple(dict.fromkeys(query.years))
    query.tracks = tuple(dict.fromkeys(query.tracks))
    query.status = tuple(dict.fromkeys(query.status))
    query.status_excluded = tuple(dict.fromkeys(query.status_excluded))
    query.notes = list(dict.fromkeys(query.notes))  # each said once, however many terms it is about
    if query.truncated:
        query.notes.insert(
            0, f"Your query was long: searched its first {len(query.terms)} terms ({len(text)} characters)."
        )


def _keep_topic(query: ParsedQuery, beside: bool = False) -> None:
    """Keep the terms that are the topic: a request around it goes, and the filters it names in words apply (bot.
    search.framing). `beside`: a person's name stood beside these terms, as an author: filter does."""
    # Exclusions and authors are never part of a request, wherever typed: "diffusion papers -video" (or "... papers
    # author:Levine") is about diffusion.
    # "are diffusion LMs still studied? | find me some": a second request
    asked_after = _asked_after(query)
    query.terms = [t for t in query.terms if t not in asked_after]
    aside = [t for t in query.terms if t.negated or t.field == "author"]
    wanted = [t for t in query.terms if not (t.negated or t.field == "author")]
    plain = [t.words if not (t.quoted or t.field) else None for t in wanted]
    beside = beside or bool(aside)
    question = "?" in query.text
    # The topic
    start, end = topic_span(plain, lambda w: (said := _said_field(w)) and said[0], beside, question)
    start, end = _venues_around(plain, start, end)
    typed = [w for words in plain for w in words or ("",)]
    # BEST, TOP, ME: papers' names
    capitals = any(len(t.text) > 1 and t.text.isupper() for t in wanted)
    query.only_request = not (beside or capitals or query.links) and None not in plain and names_no_topic(typed, False)
    query.names_no_topic = query.only_request and names_no_topic(typed)
    for term in wanted[:start] + wanted[end:]:  # "any oral ICML 2024 papers on", "... with code"
        for word in term.words:
            said = _said_field(word)
            if said:
                _filter_field(query, *said, negated=False)
    asked = [w for t in wanted[:start] for w in t.words]
    # "who works on this?"
    query.asks_who = query.asks_who or "who" in (typed if query.names_no_topic else asked)
    query.asks_similar = query.asks_similar or _asks_like(asked)
    kept = {id(t) for t in aside + wanted[start:end]}
    # Unquoted: "X vs Y" typed in quotes is a phrase
    between = [w for words in plain[start:end] for w in words or ()]
    query.compares = query.compares or any(w in COMPARING for w in asked) or any(w in VERSUS for w in between)
    query.terms = [t for t in query.terms if id(t) in kept]  # (in typed order)
    plain_terms = [t for t in query.terms if not (t.quoted or t.negated or t.field)]
    # "see <link>", "papers like <link>"
    if query.links and all(set(t.words) <= _AROUND_LINKS for t in plain_terms):
        query.asks_similar = query.asks_similar or _asks_like([w for t in plain_terms for w in t.words])
        query.terms = [t for t in query.terms if t not in plain_terms]


def _asked_after(query: ParsedQuery) -> list[Term]:
    """The plain terms after a question's last question mark when they only ask ("... still being studied? find me
    some"): a request of their own, not words of the topic."""
    cut = query.text.rfind("?")
    after = [t for t in query.terms if t.span[0] > cut] if cut >= 0 else []
    if not after or len(after) == len(query.terms) or any(t.quoted or t.negated or t.field for t in after):
        return []
    return after if names_no_topic([w for t in after for w in t.words], asked=False) else []


def _venues_around(plain: list[tuple[str, ...] | None], start: int, end: int) -> tuple[int, int]:
    """The topic without a conference or year typed plainly before or after it (`ICML 2024 grokking`, `iclr2026
    grokking`, `mixture of experts 2024`): those are filters, as `venue:` and `year:` are, when a topic word stays.
    A year alone counts from 2020 on, or beside a conference (`COCO 2017`, `WMT 2014` stay datasets)."""

    def filters(i: int) -> bool:
        words = plain[i]
        if not words:
            return False
        said = [_said_field(w) for w in words]
        if not all(s and s[0] in ("venue", "year") for s in said):
            return False
        if len(words) == 1 and said[0] and said[0][0] == "year" and int(words[0]) < PLAIN_YEARS_FROM:
            return any(0 <= j < len(plain) and filters_venue(plain[j]) for j in (i - 1, i + 1))
        return True

    def filters_venue(words: tuple[str, ...] | None) -> bool:
        return bool(words) and all((s := _said_field(w)) and s[0] == "venue" for w in words or ())

    topic = [i for i in range(start, end) if not filters(i)]
    if not topic:
        return start, end
    return topic[0], topic[-1] + 1


# A bare year before this, typed beside a topic, is a dataset's (COCO 2017), not a filter
PLAIN_YEARS_FROM = 2020


def _asks_like(asked: list[str]) -> bool:
    """Whether request words ask for papers like another ("papers similar to", "work like"), not say what one
    wants ("I'd like papers on", "we would like")."""
    return any(w in LIKE and not (w == "like" and i and asked[i - 1] in _WANTING) for i, w in enumerate(asked))


def without_name(parsed: ParsedQuery, name: set[int]) -> ParsedQuery:
    """The query with the terms of a person's name (indexes into its terms) taken out, and the request around the
    name gone as it goes around a topic: "What did | Sergey Levine | publish on offline RL?" is about offline RL."""
    query = dataclasses.replace(parsed, terms=[t for i, t in enumerate(parsed.terms) if i not in name])
    query.notes = list(parsed.notes)  # (a copy: framing may add to it)
    _author_place(query)
    _keep_topic(query, beside=True)
    plain = [t for t in query.terms if not (t.quoted or t.negated or t.field)]
    # A venue or year would come too late: scope is chosen
    said = [_SAID.get(w) for t in plain for w in t.words]
    # "Sergey Levine oral papers", "Mohit Bansal code": beside a name, filters, not words
    if plain and all(said):
        for kind, value in filter(None, said):
            _filter_field(query, kind, value, negated=False)
        query.terms = [t for t in query.terms if t not in plain]
    # "what did Yejin Choi publish?": no topic "publish"
    elif only_asks([w for t in plain for w in t.words]):
        query.terms = [t for t in query.terms if t not in plain]
    query.notes = list(dict.fromkeys(query.notes))
    return query


# ...in the author list
_PLACES = {"first": "first", "lead": "first", "last": "last", "senior": "last"}
_AUTHOR = frozenset(("author", "authors", "authored", "coauthor", "coauthors"))


def _author_place(query: ParsedQuery) -> None:
    """Beside a name, words about authorship are no topic: `as author` and `co-author` go, and `first author`,
    `last-author papers` or `as senior author` say where in the author list the person must be."""
    words = [(t, w) for t in query.terms if not (t.quoted or t.negated or t.field) for w in t.words]
    said = set()
    for i, (term, word) in enumerate(words):
        if word in _AUTHOR:
            said.add(id(term))
            before = words[i - 1] if i else None
            if before and before[1] in _PLACES:
                said.add(id(before[0]))
                query.author_position = _PLACES[before[1]]
    query.terms = [t for t in query.terms if id(t) not in said]


def _said_field(word: str) -> tuple[str, str] | None:
    """The filter a word of a question stands for, as (field, value): orals, spotlights and code, a conference or
    a year ("any ICML 2024 papers on ..."); None for a topic word."""
    if word in _SAID:
        return _SAID[word]
    if _YEAR.fullmatch(word):
        return "year", word
    wanted = venue_filter(word)
    return ("venue", word) if wanted and wanted[0] in CONFERENCES and wanted[2] is None else None


def _filter_field(query: ParsedQuery, kind: str, value: str, negated: bool) -> None:
    """has:, status:, venue:, year: and track: onto the query, or a note saying why not."""
    if kind == "has":
        if HAS_VALUES.get(value.strip().lower()):
            query.has_code = not negated
        else:
            query.notes.append(f"has:{value} is not a filter; try has:code")
    elif kind == "status":
        wanted = tuple(s.capitalize() for s in STATUSES if s in WORD_RE.findall(value.lower()))
        if not wanted:
            query.notes.append(f"status:{value} is not a status; use status:oral, status:spotlight or status:poster")
        elif negated:
            query.status_excluded += wanted
        else:
            query.status += wanted
    else:
        _venue_field(query, kind, value.strip().lower(), negated)


def _venue_field(query: ParsedQuery, kind: str, value: str, negated: bool) -> None:
    """venue:, year: and track: values onto the query (checked against the index later), or a note saying why not."""
    if negated:
        query.notes.append(f"-{kind}: is not supported; name the venues to search instead, e.g. venue:icml2026")
    elif kind == "year" and re.fullmatch(r"(?:19|20)\d\d", value):
        query.years += (int(value),)
    elif kind == "year":
        query.notes.append(f"year:{value} is not a year; use e.g. year:2024")
    elif kind == "track" and value in TRACK_VALUES:
        query.tracks += (value,)
    elif kind == "track":
        query.notes.append(f"track:{value} is not a track; use track:{', track:'.join(TRACK_VALUES)}")
    elif value:
        query.venues += (value,)
