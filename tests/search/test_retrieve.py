"""Retrieval: the FTS5 expressions it builds match what the plain query would, however they are arranged for speed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st

from bot import search
from bot.papers import index, search_tables
from bot.search import query as ql
from bot.search import retrieve
from bot.search.cache import index_cache
from bot.search.expressions import conjunction
from bot.search.groups import TermGroup
from bot.search.matching import Alternative
from bot.search.plan import QueryPlanner, RetrievalPlan
from bot.search.retrieve import CandidateRetriever
from tests.support.marks import starred_notes


def rowids(db: sqlite_utils.Database, expression: str) -> list[int]:
    return [r[0] for r in db.execute("SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?", [expression])]


def test_the_empty_phrase_matches_nothing(seed_db: sqlite_utils.Database) -> None:
    """What the fence in conjunction() relies on: FTS5 parses "" as a phrase that matches no row."""
    assert rowids(seed_db, '""') == []
    assert rowids(seed_db, '"model" NOT ""') == rowids(seed_db, '"model"') != []


@pytest.mark.parametrize(
    ("cheap", "costly"),
    [
        (['"learning"', '"model"', '"language"'], ['("llm" OR "large language model")']),
        (['"cache"', '"memory"'], ['"kv cache"']),
        (['"attention"', '"model"'], ['{title} : "attention"', '("kv cache" OR "key value cache")']),
        (['"reasoning"'], ['"reinforcement learning"']),  # one cheap part: nothing to fence
        (['"diffusion"', '"model"'], []),
        ([], ['"kv cache"', '"language model"']),
    ],
)
def test_conjunction_matches_the_plain_and(seed_db: sqlite_utils.Database, cheap: list[str], costly: list[str]) -> None:
    fenced = conjunction(cheap, costly)
    assert rowids(seed_db, fenced) == rowids(seed_db, " AND ".join(cheap + costly)) != []
    assert ('NOT ""' in fenced) == (len(cheap) > 1 and bool(costly))


def _retriever(db: sqlite_utils.Database, titles_table: bool, **plan: Any) -> CandidateRetriever:
    return CandidateRetriever(db, RetrievalPlan(**plan), titles_table=titles_table)


@pytest.mark.parametrize(
    "body",
    [
        '"framework" AND "reasoning"',
        '"speculative decoding"',
        '("kv" AND "cache") OR "attention" OR "discrete"',
        '"framework" OR "benchmark" OR "fine tuning"',
        '(("a" AND "framework") NOT "") AND "formal logic"',
    ],
)
def test_the_titles_table_finds_what_a_title_filter_finds(seed_db: sqlite_utils.Database, body: str) -> None:
    assert seed_db[search_tables.TITLES_FTS].exists()
    for cap in (0, 1, 3, 60):
        plain = rowids(seed_db, f"{{title}} : ({body})")[: cap + 1]
        fast, slow = _retriever(seed_db, True).in_titles(body, cap), _retriever(seed_db, False).in_titles(body, cap)
        assert fast == slow == plain
    assert _retriever(seed_db, True).in_titles(body, 60)  # the cases find something


def test_the_titles_table_answers_filtered_queries_too(seed_db: sqlite_utils.Database) -> None:
    """status:, has:, venues and people filter the rowids either table returns: the same papers pass."""
    every = [r for (r,) in seed_db.execute("SELECT rowid FROM papers ORDER BY rowid")]
    allowed, denied = frozenset(every[::2]), frozenset({every[2]})
    filters = {"allowed": allowed, "denied": denied, "filtered": True}
    assert _retriever(seed_db, True, **filters).titles_answer
    for body in ('"a" OR "the" OR "model"', '"framework" OR "benchmark"'):
        for cap in (0, 1, 60):
            fast = _retriever(seed_db, True, **filters).in_titles(body, cap)
            slow = _retriever(seed_db, False, **filters).in_titles(body, cap)
            assert fast == slow
        assert fast
        assert set(fast) <= allowed - denied


def test_title_queries_with_authors_or_exclusions_read_the_whole_index(seed_db: sqlite_utils.Database) -> None:
    plain = _retriever(seed_db, False, authors=['"chen"']).in_titles('"model"', 60)
    assert _retriever(seed_db, True, authors=['"chen"']).in_titles('"model"', 60) == plain
    # An index built before the table: nothing asks it
    seed_db.execute(f"DROP TABLE {search_tables.TITLES_FTS}")
    assert _retriever(seed_db, False).in_titles('"model"', 60) == rowids(seed_db, '{title} : ("model")')


def _groups(*words: str) -> list[TermGroup]:
    return [TermGroup(w, [Alternative(tuple(w.split()))]) for w in words]


@pytest.mark.parametrize(
    ("in_title", "in_text"),
    [
        (("framework",), ("reasoning",)),
        (("a", "framework"), ("model",)),
        (("a",), ("training", "language model")),
        (("a",), ("reasoning",)),  # the rest keeps some of the titles' papers
        (("speculative",), ("zebra",)),  # titles hold it, no paper holds the rest
    ],
)
# The titles table hands over at most `few` titles, else one query
@pytest.mark.parametrize("few", [0, 2, 120])
# The rest is rare (its matches are read) or common (titles checked)
@pytest.mark.parametrize("df", [1, 10**9])
def test_titles_and_text_finds_what_one_query_finds(
    seed_db: sqlite_utils.Database,
    monkeypatch: pytest.MonkeyPatch,
    in_title: tuple[str, ...],
    in_text: tuple[str, ...],
    few: int,
    df: int,
) -> None:
    monkeypatch.setattr(retrieve, "FEW_TITLES", few)
    titled, text = _groups(*in_title), _groups(*in_text)
    for group in text:
        group.df = df
    for cap in (0, 1, 60):
        fast = _retriever(seed_db, True).in_titles_and_text(titled, text, cap)
        slow = _retriever(seed_db, False).in_titles_and_text(titled, text, cap)
        title = " AND ".join(f'"{w}"' for w in in_title)
        rest = " AND ".join(f'"{w}"' for w in in_text)
        assert fast == slow == rowids(seed_db, f"({{title}} : ({title})) AND {rest}")[: cap + 1]


def test_a_phrase_of_common_words_is_read_only_where_its_rarest_word_is(seed_db: sqlite_utils.Database) -> None:
    """`mixture of experts routing`: the long form's rarest word (or its acronym) joins the fence, so FTS5 reads the
    phrase's positions only in papers holding it; the same papers match."""
    plan = QueryPlanner(seed_db, index_cache(seed_db), ql.parse("mixture of experts routing")).build()
    moe, routing = plan.groups
    assert moe.hint
    assert moe.hint.expression == '("mixture" OR "moe")'
    assert routing.hint is None
    body = CandidateRetriever.body(plan.groups)
    fence, _ = body.split('NOT ""')
    assert '"mixture" OR "moe"' in fence
    assert '"routing"' in fence
    assert rowids(seed_db, body) == rowids(seed_db, f"{moe.expression()} AND {routing.expression()}") != []
    # a hint rarer than the fence: its phrase is cheap already, and it would cost
    routing.df = moe.hint.papers + 1
    assert CandidateRetriever.body(plan.groups) == conjunction([routing.expression()], [moe.expression()])


@pytest.mark.parametrize(
    "query",
    [
        "mixture of experts routing",
        "MoE layers",
        "kv cache memory",
        "reasoning with large language models",
        "title:speculative decoding attention",
        '"language model" reasoning',
    ],
)
def test_hints_never_change_the_matches(
    seed_db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """Every phrase gets a hint here, however common its words: a hint is words every match holds, so nothing
    changes but the work."""
    monkeypatch.setattr(QueryPlanner, "narrows", lambda self, papers: True)
    plan = QueryPlanner(seed_db, index_cache(seed_db), ql.parse(query)).build()
    plain = " AND ".join(g.fielded_expression() for g in plan.groups)
    assert rowids(seed_db, CandidateRetriever.body(plan.groups)) == rowids(seed_db, plain) != []
    for group in plan.groups:
        # every hint as common as can be: all of them join the fence
        group.df = 10**9 if group.hint else 1
    assert rowids(seed_db, CandidateRetriever.body(plan.groups)) == rowids(seed_db, plain)
    if any(len(a.words) > 1 for g in plan.groups for a in g.alts if not a.prefix):
        assert any(g.hint for g in plan.groups)


@pytest.fixture(scope="module")
def seeds(seed_index_path: Path) -> Iterator[sqlite_utils.Database]:
    """The seed index, read-only and shared by every example."""
    db = index.connect(seed_index_path, readonly=True)
    yield db
    db.conn.close()


# Words and phrases the seed abstracts use (long forms and their acronyms among them), function words and syntax.
SEED_TERMS = [
    "mixture of experts",
    "MoE",
    "large language models",
    "LLM",
    "kv cache",
    "KV-cache",
    "reinforcement learning",
    "RL",
    "state space",
    "chain of thought",
    "speculative decoding",
    "attention",
    "reasoning",
    "inference",
    "optimization",
    "tokens",
    "framework",
    "selection",
    "tuning",
    "benchmarks",
    "memory",
    "routing",
    "layers",
    "for",
    "of",
    "with",
    "the",
    '"language model"',
    '"key value"',
    "title:reasoning",
    "-attention",
    "token*",
]


def _always(planner: QueryPlanner, papers: int) -> bool:
    return True


def _never(planner: QueryPlanner, papers: int) -> bool:
    return False


@given(st.lists(st.sampled_from(SEED_TERMS), min_size=1, max_size=6))
def test_any_query_finds_the_same_papers_with_or_without_hints(seeds: sqlite_utils.Database, terms: list[str]) -> None:
    """Hints on every phrase or on none (QueryPlanner.narrows always or never): the same papers, order, total and
    notes."""
    query = " ".join(terms)
    answers = []
    for hinted in (_always, _never):
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(QueryPlanner, "narrows", hinted)
            response = search.search(seeds, query, limit=10)
        answers.append(([r.paper["id"] for r in response.results], response.total, starred_notes(response)))
    assert answers[0] == answers[1]


def _ideas(*ideas: tuple[str, ...]) -> list[TermGroup]:
    """Groups of one word each, numbered by idea."""
    return [
        TermGroup(w, [Alternative((w,))], weight=1.0, df=1, concept=i) for i, words in enumerate(ideas) for w in words
    ]


def test_a_question_widens_by_leaving_out_an_idea_of_generic_words_first(seed_db: sqlite_utils.Database) -> None:
    # certified robustness | of neural networks: papers on certified robustness need not say neural networks.
    groups = _ideas(("certified", "robustness"), ("neural", "networks"))
    first = next(iter(_retriever(seed_db, False, groups=groups).relaxations()))
    assert [g.label for g in first] == ["certified", "robustness"]
    # reinforcement learning | for chip placement: no idea is generic, and leaving one out would let the other
    # fill the page alone; the largest subsets of words come first, as for any short query.
    groups = _ideas(("reinforcement",), ("chip", "placement"))
    assert [len(subset) for subset in _retriever(seed_db, False, groups=groups).relaxations()] == [2, 2, 2, 1, 1, 1]


def test_a_long_query_widens_by_its_rarest_words_as_before(seed_db: sqlite_utils.Database) -> None:
    # Longer than retrieve.IDEAS_RELAXED groups: a title or a sentence, whose rarest words say most.
    groups = _ideas(("enhancing", "llms"), ("graph", "tasks"), ("aware", "lora", "generation"))
    groups[5].df = 0  # a word the index does not know (lora) goes last
    widened = list(_retriever(seed_db, False, groups=groups).relaxations())
    assert [len(subset) for subset in widened] == [6, 3, 2, 1]
    assert "lora" not in [g.label for g in widened[0]]
