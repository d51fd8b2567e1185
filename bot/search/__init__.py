"""Query in, ranked results out: typo correction, acronyms, phrases, filters, ranking and snippets. No Slack here.

How a query runs, and why it stays fast on 100,000+ papers (one module per step):
1. query.py: `parse` turns any text into terms and filters (never raises).
2. plan.py: words are corrected against the index vocabulary (query_words.py, typos.py), given their British/US and
   run-together variants, and acronyms are expanded both ways (long_forms.py: MoE ↔ mixture of experts). Each query
   word becomes a *group* of alternatives, in one frozen plan.
3. retrieve.py: candidates come from a few FTS5 queries built only from words we quoted ourselves, each reading at
   most a few hundred rowids in rowid order; FTS5's own bm25 is never asked for (it reads every posting).
4. pinned.py: papers the query names (an id, a paper name) go first.
5. rank.py: candidates are scored here, BM25F-style, from the title (weighted far above the abstract), the abstract,
   phrase and coverage features; papers matching all groups always rank above papers matching some.
6. fuse.py: for queries of three words or more, that order is fused with FTS5's bm25 over the words (the rarest,
   within a bounded number of matches) and closeness in meaning (meaning.py, the vectors of bot.papers.vectors), by
   weighted reciprocal rank; titles holding every word and named papers lead.
7. snippets.py: the abstract around the most query words, the matched words marked (bot.text.marked).
engine.py runs these steps for `search`, as stages (settle, retrieve, order, write the page, notes); neighbours.py
finds papers like one paper (`similar`); pasted.py papers like a piece of text (`related`: a draft abstract, a
reviewer's paragraph, by its rarest words and meaning; imported where asked for, so `icml-bot search` never loads it);
cache.py keeps what each index needs loaded once (vocabulary, names, acronym table); matching.py finds words in text
fast.
"""

from __future__ import annotations

from bot.search.engine import request_without_topic, search
from bot.search.neighbours import similar
from bot.search.results import MAX_LIMIT, Result, SearchResponse
from bot.search.snippets import SNIPPET_CHARS, Highlighter, make_snippet

__all__ = [
    "MAX_LIMIT",
    "SNIPPET_CHARS",
    "Highlighter",
    "Result",
    "SearchResponse",
    "make_snippet",
    "request_without_topic",
    "search",
    "similar",
]
