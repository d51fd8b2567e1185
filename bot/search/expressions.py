"""FTS5 expressions of a plan's groups: what retrieval asks, built only from words bot.papers.fts quoted, in the
shapes FTS5 answers fastest (the cheap parts fenced in before the costly ones)."""

from __future__ import annotations

from bot.papers import fts
from bot.search.groups import TermGroup
from bot.search.query import FIELDS
from bot.search.retrieval_plan import RetrievalPlan
from bot.text.person_names import fold_name, read_back
from bot.text.stopwords import FUNCTION_WORDS

_CONTENT = ("name", "title", "abstract")  # the columns exclusions apply to


def bm25_units(group: TermGroup) -> list[tuple[str, ...]]:
    """What the BM25 list asks of a group: each word, never a function word alone ("author:AND" is not every paper
    with "and"); a compound holding a field's name (`title:NOT` typed loose) only whole, as the ranker reads it."""
    words = group.alts[0].words
    if group.compound and any(w in FIELDS for w in words):
        return [words]
    return [(w,) for w in words if w not in FUNCTION_WORDS]


def every(ideas: list[list[str]]) -> str:
    """An expression holding one of each idea's expressions."""
    return " AND ".join("(" + " OR ".join(dict.fromkeys(parts)) + ")" for parts in ideas)


def seeks(groups: list[TermGroup]) -> int:
    """About how many posting-list seeks FTS5 makes to count these groups' matches: the rarest one's papers for
    each other group."""
    return min(g.df for g in groups) * max(1, len(groups) - 1) if groups else 0


def costly(group: TermGroup) -> bool:
    """A phrase, a prefix or title: makes FTS5 read positions at every row it is asked about."""
    return group.scope is not None or any(len(a.words) > 1 or a.prefix for a in group.alts)


def conjunction(cheap: list[str], costly: list[str]) -> str:
    """Every part, the costly ones asked only about rows every cheap one holds: FTS5 merges nested ANDs into one
    (asking every child about every row any child stops at), so the cheap ones are fenced in by a NOT of the empty
    phrase, which matches nothing."""
    if len(cheap) > 1 and costly:
        return " AND ".join([fenced(" AND ".join(cheap)), *costly])
    return " AND ".join(cheap + costly)


def fenced(expression: str) -> str:
    """The same matches as one child of an AND that FTS5 does not merge into it (a NOT of the empty phrase, which
    matches nothing), so the AND asks its other children only about the rows this one finds."""
    return f'(({expression}) NOT "")'


def exclusions(plan: RetrievalPlan) -> list[str]:
    """FTS5 expressions for the excluded words and authors, each a reason to drop a paper."""
    negs = []
    if plan.negatives:
        negs.append(fts.in_columns(_CONTENT, "(" + " OR ".join(g.expression() for g in plan.negatives) + ")"))
    negs += [fts.in_columns(("authors",), a) for a in plan.neg_authors]
    return negs


def author_phrase(words: tuple[str, ...]) -> str:
    """An author: term as an FTS5 phrase; a single name also as it is spelled with or without its diacritics
    (author:Schoelkopf: Schölkopf too, which FTS5 reads as scholkopf)."""
    phrase = fts.phrase(words)
    if len(words) == 1:
        forms = [fts.phrase(f) for f in dict.fromkeys(map(fold_name, read_back(words[0]))) if f != words]
        phrase = "(" + " OR ".join([phrase, *forms]) + ")" if forms else phrase
    return phrase
