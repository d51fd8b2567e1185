"""One query end to end: parse, plan, retrieve, pin named papers, rank, page, snippets, notes and suggestions."""

from __future__ import annotations

import logging
import time
from typing import NamedTuple

from bot.papers import index
from bot.papers.matching import any_status, matching_among, papers_of
from bot.papers.reading import OperationalError, Reader
from bot.papers.row import PaperRow, shown_title
from bot.papers.venues import Scope
from bot.search import notes
from bot.search import query as ql
from bot.search.cache import IndexCache, index_cache
from bot.search.candidates import Candidate, Retrieval
from bot.search.expressions import exclusions
from bot.search.filtered import filter_only
from bot.search.fuse import described_order, fused_order
from bot.search.matching import norm
from bot.search.neighbours import similar
from bot.search.people import (
    People,
    PersonFilter,
    author_of,
    common_surname,
    named_authors,
    one_person_at_a_time,
    people_in,
    unknown_person,
)
from bot.search.pinned import found_links, pinned_papers
from bot.search.plan import QueryPlanner
from bot.search.query_words import WordCorrector
from bot.search.rank import Ranker, ScoredPaper
from bot.search.results import MAX_LIMIT, Evidence, Result, SearchResponse, Stages
from bot.search.retrieval_plan import RetrievalPlan
from bot.search.retrieve import CandidateRetriever
from bot.search.scope import Key, Resolved, in_scope, resolve
from bot.search.snippets import Highlighter, make_snippet
from bot.search.weights import DEFAULT, Weights
from bot.text.marked import marked

log = logging.getLogger(__name__)


def request_without_topic(query: str, asked: bool = True) -> str | None:
    """What a request that names no topic ("any papers on this?", "who works on this?") asks of the topic a thread
    discusses: "" (papers on it) or "who works on" (and who writes them); None when the request names a topic.
    Anywhere but in a thread, search answers such a request with NO_TOPIC. `asked=False`: words that only say which
    papers count too ("recent papers": no topic for a digest to follow, though search lists papers holding them)."""
    parsed = ql.parse(query)
    if not (parsed.names_no_topic if asked else parsed.only_request) or parsed.has_filters:
        return None
    return "who works on" if parsed.asks_who else ""


def search(
    db: Reader,
    query: str,
    limit: int = 5,
    offset: int = 0,
    scope: Scope | None = None,
    weights: Weights = DEFAULT,
) -> SearchResponse:
    """Rank papers for a query: names and ids first, then papers about the topic (title) above passing mentions.

    Only papers of the query's venue:/year:/track:, else of `scope` (the app passes ICML_BOT_VENUES; None: every
    venue, so a caller that knows nothing of venues gets what it always got)."""
    started = time.perf_counter()
    limit = max(1, min(int(limit), MAX_LIMIT))
    offset = max(0, int(offset))
    parsed = ql.parse(query)
    response = SearchResponse(
        query=query, results=[], offset=offset, notes=[marked(n) for n in parsed.notes], truncated=parsed.truncated
    )
    response.stages["parse"] = (time.perf_counter() - started) * 1000
    try:
        # The app's Papers has opened one already; other callers get it here
        with index.snapshot(db):
            _run(db, parsed, response, (limit, offset), scope or Scope(everything=True), weights)
    except OperationalError as exc:
        if "fts5" not in str(exc) and "no such column" not in str(exc):
            raise
        # a bug: user text should never reach here
        log.warning("search could not run %r: %s", query[:200], exc)
        response.results, response.total = [], 0
        response.notes.append(marked(notes.NOT_SEARCHABLE))
    response.took_ms = (time.perf_counter() - started) * 1000
    return response


def _run(
    db: Reader,
    parsed: ql.ParsedQuery,
    response: SearchResponse,
    page_asked: tuple[int, int],
    scope: Scope,
    weights: Weights,
) -> None:
    """The stages in turn: what the query asks (venues, people, plan, named papers), retrieval, order, the page."""
    limit, offset = page_asked
    if _nothing_to_search(parsed, response):
        return
    clock = Stages(response.stages)
    cache = index_cache(db)
    cache.count_search()
    asked = _settle(db, cache, parsed, response, (scope, weights), clock)
    if asked is None:
        return
    if asked.parsed.asks_similar and _like_the_named_paper(
        db, asked.parsed, asked.pinned, response, asked.venues.keys, page_asked
    ):
        return  # (before retrieving: the words are the paper's name, not what to search for)
    retriever, retrieval = _retrieve(db, cache, asked, weights)
    clock.lap("retrieve")
    order = _order(db, cache, asked, retriever, offset + limit, weights, clock)
    page = order.ranked[offset : offset + limit]
    clock.lap("rank")
    _write_page(db, asked, order, page, response)
    clock.lap("snippets")
    total, response.total_exact = retrieval.settled()
    response.total = total = max(total, order.candidates)
    clock.lap("count")  # (waiting for the count beside, when ranking and snippets took less)
    _notes(db, cache, asked, order, retriever, retrieval, (page, offset + limit, total), response)


class _Asked(NamedTuple):
    """What a query asks, settled before retrieval: the parse (without a person's name), its plan, the person it
    names, the papers of the venues searched (None: every venue) and the papers it names outright."""

    parsed: ql.ParsedQuery
    planner: QueryPlanner
    plan: RetrievalPlan
    person: PersonFilter | None
    venues: Resolved
    scoped: frozenset[int] | None
    pinned: dict[int, str]


class _Order(NamedTuple):
    """The papers in the order shown: how many were candidates before deep pages, the person an answer is about (of
    several that initials fit, one at a time) and how many of that person's papers lead."""

    ranked: list[ScoredPaper]
    ranker: Ranker
    candidates: int
    person: PersonFilter | None
    lead_count: int | None


def _nothing_to_search(parsed: ql.ParsedQuery, response: SearchResponse) -> bool:
    """An empty query, or a request that names no topic: the response says so, and nothing is searched."""
    if not parsed.terms and not parsed.has_filters and not parsed.links:
        response.notes.append(marked(notes.NOTHING_TO_SEARCH))
    # Searching "who works on" lists working memory papers
    elif parsed.names_no_topic and not parsed.has_filters:
        response.notes.append(notes.NO_TOPIC)
    else:
        return False
    response.searched = False
    return True


def _settle(
    db: Reader,
    cache: IndexCache,
    parsed: ql.ParsedQuery,
    response: SearchResponse,
    asked_in: tuple[Scope, Weights],
    clock: Stages,
) -> _Asked | None:
    """Venues, the person a query names, the plan and the papers it names, with the notes each adds; None: there is
    nothing to search (no such venue, or a name nobody here has). `asked_in`: the scope and the weights searched."""
    scope, weights = asked_in
    venues = resolve(db, parsed, scope, cache)
    response.notes += [marked(n) for n in venues.notes]
    response.venues = venues.venues
    if venues.nothing:
        return None
    people = People(db, cache)
    words = WordCorrector(
        db, cache, parsed, thresholds=weights.thresholds
    )  # (how often words occur, and typos, before the plan is made)
    scoped = in_scope(db, venues, cache)
    person = people_in(parsed, people, lambda w: words.df([w])[w], within=scoped)
    nobody = None if person else unknown_person(parsed, people, lambda w: words.df([w])[w], words.is_typo)
    if nobody:
        response.notes.append(notes.nobody_called(nobody))
        if scoped is not None and not parsed.names_venues:
            response.notes.append(marked(notes.DEFAULT_VENUES_ONLY))
        return None
    if person:
        parsed = person.rest
    elif surname := common_surname(parsed, people):
        response.notes.append(notes.many_called(*surname))
    clock.lap("people")
    planner = QueryPlanner(db, cache, parsed, is_name=people.knows, weights=weights)
    # The person's papers and the venues', like status: is
    within = person.allowed if person else None
    if scoped is not None:
        within = scoped if within is None else within & scoped
    plan = planner.build(within, person.denied if person else frozenset(), narrowed=bool(person) or scoped is not None)
    response.corrected = plan.corrected
    clock.lap("plan", apart=("correction", planner.correcting_ms))
    response.notes += [notes.searched_apart(typed, searched) for typed, searched in plan.apart]
    response.notes += [notes.also_searched(rare, common) for rare, common in plan.also]
    pinned = pinned_papers(db, cache, parsed, plan, planner)
    return _Asked(parsed, planner, plan, person, venues, scoped, pinned)


def _retrieve(db: Reader, cache: IndexCache, asked: _Asked, weights: Weights) -> tuple[CandidateRetriever, Retrieval]:
    """Candidates from a few bounded FTS5 queries (bot.search.retrieve), a named person's other papers after them,
    and the papers the query names."""
    plan, person = asked.plan, asked.person
    retriever = CandidateRetriever(db, plan, cache.titles_table(db), cache.index_file(), weights.thresholds)
    theirs = person.match.papers if person and person.match else ()
    # (the count of a large retrieval may still be running beside: it is asked for once the page is written)
    if plan.groups or plan.authors:
        retrieval = retriever.run()
    # a pasted link and no words: the paper it names (pinned), if it passes the filters
    elif asked.parsed.links:
        retrieval = Retrieval(0, True, False)
    else:
        retrieval = filter_only(db, plan, retriever, first=theirs)
    if person and person.match and person.from_text and plan.groups:
        _add_the_rest(db, plan, retriever, theirs)  # all their papers, the topic's first
    for rowid in asked.pinned:
        retriever.found.setdefault(rowid, Candidate(len(plan.groups), 0))
    return retriever, retrieval


def _order(
    db: Reader,
    cache: IndexCache,
    asked: _Asked,
    retriever: CandidateRetriever,
    need: int,
    weights: Weights,
    clock: Stages,
) -> _Order:
    """The candidates ranked (bot.search.rank), a comparison's sides in turn, fused with BM25 and meaning when the
    query is long enough, deeper blocks for a deep page, and one person at a time when initials fit several."""
    plan, person = asked.plan, asked.person
    ranker, fusion = Ranker(db, plan, cache.titles(db), cache.abstracts(), weights.ranking), weights.fusion
    fusing = fusion.on and len(plan.groups) >= fusion.from_words and not person and not plan.compares
    depth = None if plan.compares else max(need, fusion.depth) if fusing else need
    ranked = ranker.rank(retriever.found, asked.pinned, depth) if retriever.found else []
    if plan.compares:  # "DPO vs PPO": each side's papers in turn after those about both
        ranked = ranker.in_turn(ranked)
    # Only beside papers holding query words: meaning alone would answer anything
    if fusing and retriever.found:
        clock.lap("rank")
        ranked = fused_order(db, cache, (plan, ranker), retriever, ranked, fusion)
        clock.lap("fuse")
        ranked = described_order(db, cache, (plan, asked.planner), retriever, ranked, weights)
        clock.lap("described")
    candidates = len(ranked)
    listed = {s.rowid for s in ranked}
    # a deep page: rank the next block of papers matching every word, after these
    while len(ranked) < need:
        block = [r for r in retriever.next_block() or () if r not in listed]
        if not block:
            break
        ranked += ranker.rank({r: retriever.found[r] for r in block}, {})
        listed.update(block)
    lead_count: int | None = None
    # Initials several people fit: one person at a time
    if person and person.match and person.match.shared:
        on_topic = len(plan.groups)
        person, ranked, lead_count = one_person_at_a_time(
            person, ranked, lambda s: s.rowid, lambda s: bool(on_topic) and s.level >= on_topic
        )
    return _Order(ranked, ranker, candidates, person, lead_count)


def _write_page(db: Reader, asked: _Asked, order: _Order, page: list[ScoredPaper], response: SearchResponse) -> None:
    """The page's results: each paper with its snippet, why it is there and the authors the query named."""
    plan, person = asked.plan, order.person
    papers = papers_of(db, [s.rowid for s in page])
    highlighter = Highlighter(plan.groups)
    for scored in page:
        paper = papers.get(scored.rowid)
        if paper is None:
            continue
        # ranked by its title score only: what it holds where
        if plan.groups and not scored.in_title:
            abstract, authors = norm(paper.get("abstract") or ""), norm(" ".join(paper["authors"]))
            order.ranker.matched(scored, norm(paper["title"]), abstract, authors)
        snippet = make_snippet(paper.get("abstract") or "", paper.get("headline") or paper["title"], highlighter)
        result = Result(paper, round(scored.score, 4), snippet, _matched(plan, asked.parsed, scored, paper))
        if person or plan.author_words:
            people_found = (person.match, person.beside) if person else ()
            result.named = named_authors(paper["authors"], people_found, plan.author_words)
        response.results.append(result)


def _notes(
    db: Reader,
    cache: IndexCache,
    asked: _Asked,
    order: _Order,
    retriever: CandidateRetriever,
    retrieval: Retrieval,
    shown: tuple[list[ScoredPaper], int, int],
    response: SearchResponse,
) -> None:
    """What the answer says beside its papers: whose papers they are, who works on the topic, what they do not all
    match, links no paper has, and what to try when nothing matched. `shown`: the page, the places asked, the total."""
    parsed, plan, person, ranked = asked.parsed, asked.plan, order.person, order.ranked
    page, need, total = shown
    offset = response.offset
    if person and person.match:
        response.person = person.match.person.name
        topic = " ".join(g.label for g in plan.groups)
        on_topic = any(s.level for s in ranked)  # ("Tri Dao mamba": none of his papers here is)
        lead = total if order.lead_count is None else order.lead_count
        response.notes.insert(0, notes.person(person, lead, topic, on_topic))
        for result in response.results:
            result.matched.append(Evidence.AUTHOR.of(author_of(person.match, result.paper["authors"])))
    elif parsed.asks_who and plan.groups and offset == 0:  # "who works on kv cache?"
        response.notes += notes.who_works_on(db, plan, ranked)
    # Brought by BM25 (holding some of the words)
    added = any(s.rowid not in retriever.found for s in page)
    full = sum(1 for s in ranked if s.level >= len(plan.groups))
    response.partial = (retrieval.partial or (added and full < need)) and any(s.level < len(plan.groups) for s in page)
    if response.partial and (note := notes.partial(full, list(dict.fromkeys(plan.unknown)), len(plan.groups))):
        # plan.unknown: words no paper here writes, nor anything near them
        response.notes.append(note)
    found = found_links(asked.pinned)
    unknown = [link for link in parsed.links if link not in found]
    if unknown and offset == 0:
        response.notes.append(notes.unknown_links(unknown, bool(parsed.has_filters or parsed.negative)))
    if not response.results and offset == 0:
        if asked.scoped is not None and not parsed.names_venues:
            response.notes.append(marked(notes.DEFAULT_VENUES_ONLY))
        response.suggestions = notes.suggestions(cache, parsed, plan, asked.planner)
        if parsed.status and not any_status(db):
            response.notes.append(marked(notes.NO_STATUS))


def _like_the_named_paper(
    db: Reader,
    parsed: ql.ParsedQuery,
    pinned: dict[int, str],
    response: SearchResponse,
    keys: frozenset[Key] | None,
    page: tuple[int, int],
) -> bool:
    """ "papers similar to TokSuite", "work like <link>": when the topic is one paper's name, id or link, the answer
    is the papers like it in the venues searched (as its Similar button lists them), not that paper alone. False:
    not such a request."""
    if len(pinned) != 1:
        return False
    ((rowid, why),) = pinned.items()
    if not why.startswith(("id:", "link:")) and why != "name:" + " ".join(t.text for t in parsed.positive):
        return False  # (a name among other words: those words are the topic)
    paper = papers_of(db, [rowid])[rowid]
    paper_id, title = paper["id"], shown_title(paper)  # (as its card shows it)
    like = similar(db, paper_id, k=MAX_LIMIT, keys=keys)
    limit, offset = page
    response.results, response.total = like[offset : offset + limit], len(like)
    response.notes.insert(0, notes.papers_like(title, bool(like)))
    return True


def _add_the_rest(db: Reader, plan: RetrievalPlan, retriever: CandidateRetriever, rowids: tuple[int, ...]) -> None:
    """A person's papers the topic words missed, as candidates after those that match (exclusions still apply)."""
    rest = [r for r in rowids if r not in retriever.found and plan.passes_filters(r)]
    negs = exclusions(plan)
    if rest and negs:
        out = matching_among(db, " OR ".join(negs), rest)
        rest = [r for r in rest if r not in out]
    retriever.add(rest, 0, 4, len(rest))


def _matched(plan: RetrievalPlan, parsed: ql.ParsedQuery, scored: ScoredPaper, paper: PaperRow) -> list[str]:
    """Why a paper is here, as field:term entries (name:TokSuite, title:kv cache, abstract:moe, has:code)."""
    out = [scored.pinned] if scored.pinned else []
    for g, t, a in zip(plan.groups, scored.in_title, scored.in_abstract or [-1] * len(plan.groups), strict=True):
        if t >= 0:
            out.append(Evidence.TITLE.of(g.alts[t].label))
        if a >= 0:
            out.append(Evidence.ABSTRACT.of(g.alts[a].label))
    if scored.close is not None:
        out.append(Evidence.MEANING.of(f"{scored.close:.2f}"))
    out += [Evidence.AUTHOR.of(" ".join(w)) for w in plan.author_words]
    if parsed.status and paper.get("status"):
        out.append(Evidence.STATUS.of(str(paper["status"])))
    if parsed.has_code:
        out.append(Evidence.HAS.of("code"))
    return list(dict.fromkeys(out))
