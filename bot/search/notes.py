"""Every note a search answer says beside its papers, and the queries it suggests, worded in one place: the stages
decide, this module words.

The engine (bot.search.engine) calls these with what it found; nothing else writes a note a user reads after
parsing (the query language's own notes are worded in bot.search.query, the venues' in bot.search.scope).
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from bot.papers.reading import Reader
from bot.search import query as ql
from bot.search.cache import IndexCache
from bot.search.people import PersonFilter, frequent_authors
from bot.search.plan import QueryPlanner
from bot.search.rank import ScoredPaper
from bot.search.retrieval_plan import RetrievalPlan
from bot.text.marked import Code, Marked, Strong, marked

OTHERS_NAMED = 3  # people the note names beside the one it found; the rest are counted
WHO_PAPERS = 50  # best-ranked papers whose authors answer "who works on ...?"
WHO_NAMED = 5
# A query of up to this many words says when few or no papers hold them all
EVERY_WORD_NOTE_UP_TO = 4

NO_TOPIC = marked(
    "Which topic? Name one, as in ", Code("any papers on grokking?"), " or ", Code("who works on kv cache?")
)
NOTHING_TO_SEARCH = 'Nothing to search for: type words, a "phrase", author:name, has:code or status:oral.'
DEFAULT_VENUES_ONLY = "Searched the default venues only; add venue:all to search every venue."
NOT_SEARCHABLE = "This query could not be searched; try plain words."
NO_STATUS = "This index has no oral/spotlight/poster status for its papers, so status: finds nothing here."


def nobody_called(name: str) -> Marked:
    """A query that is only the name of someone no author here is (`Dan Hendrycks`)."""
    return marked("No author here is called ", Strong(name), ", and no paper mentions ", Strong(name.split()[-1]), ".")


def many_called(typed: str, bearer: str) -> Marked:
    """A surname many authors share (`Zhang`): how to ask for one of them, with one of them as the example."""
    # as the index names them: the usual casing among a person's spellings
    first, *rest = bearer.split()
    example = (
        (Strong(" ".join((first, *rest))), ", ", Strong(f"{first[0]}. {' '.join(rest)}")) if rest else (Strong(bearer),)
    )
    return marked(
        "Many authors are called ", Strong(typed), ": add a first name or an initial for one person's papers (",
        *example,
        ").",
    )  # fmt: skip


def searched_apart(typed: str, words: str) -> Marked:
    """A hyphenated name no paper writes (FlashAttention-3), searched as its words."""
    return marked("No paper writes ", Strong(typed), ": showing papers with ", Strong(words), ".")


def also_searched(rare: str, common: str) -> Marked:
    """A rare word searched beside a common one an edit away: it may be a typo."""
    return marked("Also showing papers with ", Strong(common), " (only a paper or two use ", Strong(rare), ").")


def partial(full: int, unused: list[str], words: int) -> Marked | None:
    """What the page holds besides papers matching every word; the words no paper writes, by name, when they are why
    none matches every word. Of a query of more than EVERY_WORD_NOTE_UP_TO `words`, nobody expects every word in one
    paper: no note says so (None)."""
    if unused and not full:
        said = [piece for i, w in enumerate(unused) for piece in ((", ",) if i else ()) + (Strong(w),)]
        return marked("No paper here writes ", *said, "; showing papers with the other words.")
    if words > EVERY_WORD_NOTE_UP_TO:
        return None
    if not full:
        return marked("No paper matches every word; showing papers that match some of them.")
    verb = "papers match" if full > 1 else "paper matches"
    return marked(f"Only {full} {verb} every word; the rest match some.")


def most_papers_on(topic: str, who: list[tuple[str, int]]) -> Marked:
    """Who works on a topic: the authors of the most of its best-ranked papers, with how many each wrote."""
    return marked("Most papers on ", Strong(topic), " here: " + ", ".join(f"{name} ({n})" for name, n in who))


def papers_like(title: str, found: bool) -> Marked:
    """The head of an answer listing the papers like one paper (`papers similar to TokSuite`)."""
    return marked("Papers like ", Strong(title)) if found else marked("No papers like ", Strong(title), " here.")


def unknown_links(links: list[str], narrowed: bool) -> Marked:
    """Pasted links no paper in the index has (`narrowed`: none that passes the query's filters)."""
    return marked(f"No paper in the index has the link {', '.join(links)}{' with these filters' if narrowed else ''}.")


def person(found: PersonFilter, count: int, topic: str, on_topic: bool = True) -> Marked:
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


def who_works_on(db: Reader, plan: RetrievalPlan, ranked: list[ScoredPaper]) -> list[Marked]:
    """For a question asking who works on a topic: the authors of the most of its best-ranked papers (when anyone
    wrote more than one; else the papers' own author lines answer)."""
    on_topic = [s.rowid for s in ranked[:WHO_PAPERS] if s.level >= len(plan.groups)]
    who = [(name, n) for name, n in frequent_authors(db, on_topic, WHO_NAMED) if n > 1]
    if not who:
        return []
    return [most_papers_on(" ".join(g.label for g in plan.groups), who)]


def suggestions(cache: IndexCache, parsed: ql.ParsedQuery, plan: RetrievalPlan, planner: QueryPlanner) -> list[str]:
    """Queries worth trying when nothing matched: without filters, without exclusions, near words for unknown ones."""
    out: list[str] = []
    free = plan.free_text or parsed.free_text()
    if parsed.has_filters and free:
        out.append(free)
    if plan.negatives and free:
        out.append(free)
    for word in plan.unknown[:3]:
        for first in dict.fromkeys(word[:2]):
            buckets = cache.vocab.bucket(first, planner.words.fetch_prefix)
            near = [w for length in range(len(word) - 3, len(word) + 4) for w in buckets.get(length, ())]
            for cand, _, _ in process.extract(word, near, scorer=fuzz.ratio, score_cutoff=70, limit=3):
                out.append(re.sub(re.escape(word), cand, free, count=1) if free else cand)
    return list(dict.fromkeys(s for s in out if s and s != parsed.text))[:5]
