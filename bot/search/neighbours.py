"""Papers like one paper: the neighbours the index computed (bot.papers.related), read back with the words they
share; on an index built before those were stored, its most distinctive words find candidates with FTS5's bm25."""

from __future__ import annotations

import math
from typing import NamedTuple

from bot.papers import fts, index, lookup, matching, related
from bot.papers.reading import Reader
from bot.papers.row import PaperRow
from bot.papers.venues import MAIN
from bot.search import query as ql
from bot.search.cache import index_cache
from bot.search.groups import TermGroup
from bot.search.matching import Alternative, counter, norm
from bot.search.plan import QueryPlanner
from bot.search.results import MAX_LIMIT, Result
from bot.search.scope import Key
from bot.search.snippets import MARKUP_RE, Highlighter, make_snippet
from bot.search.weights import DEFAULT
from bot.text.stopwords import TOO_COMMON
from bot.text.words import WORD_RE, stem, valid_text

SIMILAR_TERMS = 12
# A shared topic word in the title counts as search's ranking weighs it
TITLE = DEFAULT.ranking.title
SIMILAR_CANDIDATES = 60
# sum of the chosen terms' document frequencies: bounds the work of FTS5's bm25
SIMILAR_BUDGET = 6000


class _Term(NamedTuple):
    """A distinctive word of the paper: the variants sharing its stem count as one term, or they would dominate."""

    weight: float  # tf × idf, summed over the words sharing a stem
    word: str  # the shortest of those words


class _Neighbour(NamedTuple):
    """A candidate with the terms it shares, which the result shows as the reason it is similar."""

    score: float
    rowid: int
    shared: list[str]  # the chosen terms both papers hold


def similar(db: Reader, paper_id: str, k: int = 5, keys: frozenset[Key] | None = None) -> list[Result]:
    """Papers closest to one paper: the neighbours the index stored (bot.papers.related), or on an index built before
    it stored them, papers found by the paper's most distinctive words. Each result names the words both share.
    `keys`: only papers of these (venue, track)s, the venues searched (looked for among the 4k closest)."""
    # A lone surrogate from a JSON payload: no paper has such an id
    if valid_text(paper_id) != paper_id:
        return []
    paper = index.get_paper(db, paper_id)
    if paper is None:
        return []
    k = max(1, min(int(k), MAX_LIMIT))
    wanted = k if keys is None else min(4 * k, MAX_LIMIT)
    me = lookup.rowid_of(db, paper["id"])
    if me is None:
        return []
    groups = _distinctive_terms(db, paper)
    stored = related.stored(db, me)
    if stored is None:
        if not groups:
            return []
        best = _by_words(db, me, groups, wanted)
    else:
        best = [_Neighbour(score, rowid, []) for rowid, score in stored[:wanted]]
    if keys is not None:  # (left out before their rows are read)
        places = matching.columns_of(db, "venue, track", [nb.rowid for nb in best])
        best = [nb for nb in best if nb.rowid in places and (places[nb.rowid][0], places[nb.rowid][1] or MAIN) in keys]
        best = best[:k]
    found = matching.papers_of(db, [nb.rowid for nb in best])
    shown = []
    for nb in best:
        other = found.get(nb.rowid)
        if other is None:
            continue
        if not nb.shared:
            ttext, atext = norm(other["title"]), norm(other["abstract"] or "")
            nb = nb._replace(shared=[g.label for g in groups if g.counters[0](ttext) or g.counters[0](atext)])
        shown.append((nb, other))
    # Only the words some result shares are highlighted: each word is a regex to compile.
    highlighter = Highlighter([g for g in groups if any(g.label in nb.shared for nb, _ in shown)])
    return [
        Result(
            other,
            round(nb.score, 4),
            make_snippet(other["abstract"], other.get("headline") or other["title"], highlighter),
            [f"shared:{w}" for w in nb.shared],
        )
        for nb, other in shown
    ]


def _distinctive_terms(db: Reader, paper: PaperRow) -> list[TermGroup]:
    """The paper's most distinctive words (title ×3, by df), best first, each a group that can find itself in text."""
    cache = index_cache(db)
    planner = QueryPlanner(db, cache, ql.parse(""))
    tf: dict[str, float] = {}
    for times, text in ((3, f"{paper.get('name') or ''} {paper['title']}"), (1, paper.get("abstract") or "")):
        for w in _display_words(text):
            tf[w] = tf.get(w, 0) + times
    # The paper's name says who it is, not what about
    own_name = set(_display_words(paper.get("name") or ""))
    words = [w for w in tf if len(w) >= 3 and w.isalpha() and w not in TOO_COMMON and w not in own_name]
    dfs = planner.df(words)
    n = cache.papers
    most = max(n * 0.05, min(n * 0.3, 5))  # words in more papers than this say little about a topic
    # A word only one other paper uses is more often incidental than topical
    least = 3 if n >= 1000 else 2
    by_stem: dict[str, _Term] = {}  # tokenizer, tokenizers, tokenization: one term
    for w in words:
        if least <= dfs[w] <= most:
            weight = tf[w] * math.log(n / dfs[w])
            key = stem(w)
            old = by_stem.get(key)
            by_stem[key] = _Term(weight + (old.weight if old else 0), min(w, old.word, key=len) if old else w)
    chosen: list[_Term] = []
    budget = 0
    for term in sorted(by_stem.values(), reverse=True):
        if budget + dfs[term.word] > SIMILAR_BUDGET and chosen:
            continue  # bounds FTS5's bm25, which reads every posting of every term
        chosen.append(term)
        budget += dfs[term.word]
        if len(chosen) == SIMILAR_TERMS:
            break
    groups = [TermGroup(t.word, [Alternative((t.word,))], weight=t.weight) for t in chosen]
    for group in groups:
        group.counters = [counter(group.alts[0])]
    return groups


def _by_words(db: Reader, me: int, groups: list[TermGroup], k: int) -> list[_Neighbour]:
    """The fallback for an index without stored neighbours: FTS5's bm25 over the distinctive words finds candidates,
    the words they share rank them."""
    expr = " OR ".join(fts.phrase((g.label,)) for g in groups)
    # bm25 over all the terms, plus titles holding the main ones: FTS5's stemmer folds "tokenizer" into "token",
    # so bm25 alone can drown the main terms in common stems.
    main = fts.in_columns(("title",), "(" + " OR ".join(fts.phrase((g.label,)) for g in groups[:3]) + ")")
    rows = list(dict.fromkeys(r for q in (expr, main) for r in fts.ranked(db, q, SIMILAR_CANDIDATES) if r != me))
    total = sum(g.weight for g in groups)
    # Only the paper's main terms count extra in the other's title
    topical = {g.label for g in groups[:3]}
    texts = matching.columns_of(db, "title, abstract", rows)
    neighbours = []
    for rowid in rows:
        title, abstract = texts[rowid]
        ttext, atext = norm(title), norm(abstract or "")
        shared = [g for g in groups if g.counters[0](ttext) or g.counters[0](atext)]
        score = (
            sum(g.weight * (1 + TITLE * (g.label in topical and bool(g.counters[0](ttext)))) for g in shared) / total
        )
        neighbours.append(_Neighbour(score, rowid, [g.label for g in shared]))
    neighbours.sort(key=lambda nb: (nb.score, -nb.rowid), reverse=True)
    return neighbours[:k]


def _display_words(text: str) -> list[str]:
    """Lowercase words of display text, markup dropped (cheap; the index already cleaned the text)."""
    return [w.lower() for w in WORD_RE.findall(MARKUP_RE.sub(" ", text))]
