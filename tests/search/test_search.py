"""Search: the query language, safety on any text, typos, acronyms, names, filters, snippets, similar() and --batch."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot import search
from bot.cli import main
from bot.papers import index, related
from bot.search import cache, typos
from bot.search import query as ql
from bot.search.cache import index_cache
from bot.search.groups import TermGroup
from bot.search.matching import Alternative
from bot.search.rank import Ranker, ScoredPaper
from bot.search.snippets import MARKUP_RE
from bot.search.weights import DEFAULT
from bot.text import acronyms
from bot.text.marked import Strong, marked
from tests.support.marks import starred, starred_notes
from tests.support.papers import known
from tests.support.paths import needs_shared_data
from tests.support.seed_ids import (
    CALIBRATION,
    CAUSCIBENCH,
    DEFENSIVE_KV,
    GPS,
    HIDE,
    KEYSTONE,
    KNAPSACK,
    LOGIC_VERIFICATION,
    MU_A,
    MULTI_ANSWER,
    RACO,
    SCM_GRPO,
    SOFTMOE,
    TOKENSWAP,
    TOKSUITE,
    VEGAS,
    VIEWMASK,
)
from tests.support.sources import ROBUST_OR_ROBUSTNESS, WEATHER_OR_WHETHER
from tests.support.venue_index import index_of


def ids(response: search.SearchResponse) -> list[str]:
    return [r.paper["id"] for r in response.results]


@pytest.fixture
def tiny_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    """A small index with authors, statuses and code links (the seed file has none of these)."""
    abstract = "We study {t} in depth. Our method improves {t} on many benchmarks while staying simple and fast. " * 2
    rows = [
        {
            "id": "A1",
            "title": "Sparse Attention for Long Contexts",
            "abstract": abstract.format(t="sparse attention"),
            "authors": ["Ada Lovelace", "Alan Turing"],
            "status": "Oral",
            "code_url": "https://github.com/x/sparse",
        },
        {
            "id": "B2",
            "title": "Dense Attention Revisited",
            "abstract": abstract.format(t="dense attention"),
            "authors": ["Grace Hopper"],
            "status": "Poster",
        },
        {
            "id": "C3",
            "title": "Attention Sinks in Streaming Models",
            "abstract": abstract.format(t="attention sinks"),
            "authors": ["Alan Turing"],
            "status": "Spotlight",
            "code_url": "https://github.com/x/sinks",
        },
        {
            "id": "D4",
            "title": "Gradient Descent without Tears",
            "abstract": abstract.format(t="gradient descent"),
            "authors": ["Edsger Dijkstra"],
            "status": "Poster",
        },
    ]
    source = tmp_path / "tiny2026.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    db = index.connect(tmp_path / "tiny.db")
    index.load(db, [source])
    yield db
    db.conn.close()


def _paper(pid: str, title: str, abstract: str) -> dict[str, Any]:
    """A source record by one author, for the small indexes tests build."""
    return {"id": pid, "title": title, "abstract": abstract, "authors": ["Ada Lovelace"]}


def source_ids(response: search.SearchResponse) -> list[str | None]:
    """The results' ids in their source lists (None for a seed abstract: sort with key=str)."""
    return [r.paper["source_id"] for r in response.results]


# ------------------------------------------------------------------------------------------------ query language


def test_parse_words_phrases_exclusions_and_filters() -> None:
    q = ql.parse('kv cache "exact phrase" -survey -"old idea" author:"Colin Raffel" has:code status:oral title:moe')
    assert [(t.words, t.quoted, t.negated, t.field) for t in q.terms] == [
        (("kv",), False, False, None),
        (("cache",), False, False, None),
        (("exact", "phrase"), True, False, None),
        (("survey",), False, True, None),
        (("old", "idea"), True, True, None),
        (("colin", "raffel"), True, False, "author"),
        (("moe",), False, False, "title"),
    ]
    assert q.has_code is True
    assert q.status == ("Oral",)
    assert not q.notes


def test_parse_compounds_smart_quotes_and_unknown_fields() -> None:
    q = ql.parse("mixture-of-experts “kv cache” month:2020 -has:code status:nonsense")
    assert [t.words for t in q.terms] == [("mixture", "of", "experts"), ("kv", "cache"), ("month", "2020")]
    assert q.terms[1].quoted
    assert q.has_code is False
    assert q.notes == ["status:nonsense is not a status; use status:oral, status:spotlight or status:poster"]


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("LoRA+DoRA", [("lora",), ("dora",)]),  # two methods, not a phrase no paper holds
        ("LLM/VLM safety", [("llm",), ("vlm",), ("safety",)]),
        ("GPT-4/GPT-5 pre-/post-training", [("gpt", "4"), ("gpt", "5"), ("pre",), ("post", "training")]),
        ("w/o A/B c++ GPT-4/5", [("w", "o"), ("a", "b"), ("c",), ("gpt", "4", "5")]),  # single characters: joined
        ('"LoRA+DoRA" -LoRA+DoRA', [("lora", "dora"), ("lora", "dora")]),  # quoted and excluded: as typed
    ],
)
def test_words_joined_by_plus_or_slash_are_words_of_their_own(text: str, terms: list[tuple[str, ...]]) -> None:
    q = ql.parse(text)
    assert [t.words for t in q.terms] == terms
    assert all(q.text[t.span[0] : t.span[1]] == t.text for t in q.terms if not t.quoted)


def test_not_between_words_excludes_like_a_minus(seed_db: sqlite_utils.Database) -> None:
    assert [(t.words, t.negated) for t in ql.parse("diffusion NOT video").terms] == [
        (("diffusion",), False),
        (("video",), True),
    ]
    title = "Position: RL Should Be Used to Adjust Foundation Models, NOT Abused"  # prose: after a comma
    assert not any(t.negated for t in ql.parse(title).terms)
    assert [t.words for t in ql.parse("NOT video").terms] == [("not",), ("video",)]  # nothing to exclude from
    asked = ql.parse("show me papers NOT about LLMs")  # used to exclude "about" and search LLMs
    assert [(t.words, t.negated) for t in asked.terms] == [(("llms",), True)]
    for query in ("kv cache NOT eviction", "language models NOT reasoning"):
        with_not = search.search(seed_db, query)
        with_minus = search.search(seed_db, query.replace("NOT ", "-"))
        assert ids(with_not) == ids(with_minus)
        assert with_not.total == with_minus.total


def test_parse_caps_long_input_and_says_so() -> None:
    q = ql.parse("attention " * 2000)
    assert q.truncated
    assert len(q.terms) == ql.MAX_TERMS
    assert len(q.text) <= ql.MAX_CHARS
    assert "first 32 terms" in q.notes[0]


def test_a_term_joining_more_words_than_any_real_term_is_read_as_its_words() -> None:
    """Garbled text (a\\a\\a…, the-model-the-model-…) would be one phrase of hundreds of words, which FTS5 reads
    word by word (1-2 s at 110,000 papers), and a note quoting all of it: its words are searched, each once."""
    garble = ql.parse(("the-model-" * 60)[:499])
    assert [(t.text, t.words) for t in garble.terms] == [("the", ("the",)), ("model", ("model",))]
    assert [t.words for t in ql.parse("Llama-3.1-8B-Instruct diffusion").terms] == [
        ("llama", "3", "1", "8b", "instruct"),
        ("diffusion",),
    ]
    phrase = ql.parse('"' + "large language models " * 20 + '"')
    assert len(phrase.terms[0].words) == ql.MAX_PHRASE_WORDS
    assert phrase.notes == [f"A phrase that long was searched by its first {ql.MAX_PHRASE_WORDS} words."]
    two = ql.parse(('"' + "kv " * 40 + '" ') * 2)
    assert [len(t.words) for t in two.terms] == [ql.MAX_PHRASE_WORDS] * 2
    assert two.notes == phrase.notes  # said once
    words = " ".join(f"w{n}" for n in range(ql.MAX_TERMS + 8))
    many = ql.parse("diffusion " + words.replace(" ", "-"))  # garble of more unique words than a query keeps
    assert len(many.terms) == ql.MAX_TERMS
    assert many.truncated
    assert many.notes[0].startswith(f"Your query was long: searched its first {ql.MAX_TERMS} terms")


def test_garbled_terms_get_an_answer_without_quoting_them_back(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, ("kv-cache-" * 60)[:499])
    assert source_ids(response)
    assert not any("kv-cache-kv" in note for note in starred_notes(response))


# ------------------------------------------------------------------------------------------------ safety


NOTHING_TO_SEARCH = 'Nothing to search for: type words, a "phrase", author:name, has:code or status:oral.'
# What search says when SQLite rejected an FTS5 expression: user text reached MATCH unquoted. search() catches the
# error, so "never raises" alone would pass for it; the tests below check this note never appears.
SEARCH_FAILED = "This query could not be searched; try plain words."
NOTHING = None  # nothing left to search for: the note, no results
EVERY_PAPER = "every paper"  # an exclusion alone: every paper, in index order

# Hostile or odd text, and what the user gets: the same papers as the plain query given (operators, FTS5 and SQL
# syntax are only text), a literal list of paper ids ([]: no paper holds these words), or NOTHING / EVERY_PAPER.
NASTY: list[tuple[str, str | list[str] | None]] = [
    ("", NOTHING),
    ("   ", NOTHING),
    ("AND", "and"),
    ("NOT", "not"),
    ("OR attention", "attention"),
    ("attention AND", "attention"),
    ("NEAR(a b)", []),
    ("a NEAR b", "a near b"),
    ("*", NOTHING),
    ("^foo", []),
    ("foo*", []),
    ("col:term", []),  # an unknown field is text: the words "col term", which no paper has side by side
    ("title:", []),
    ("year:2020", []),
    ('"unbalanced', []),
    ('a"b"c', []),
    ('""', NOTHING),
    ("c++", []),
    ("a-b", []),
    ("-foo", EVERY_PAPER),
    ("--", NOTHING),
    ("- -", NOTHING),
    ("don't", []),
    ("hello.world", []),
    ("e=mc^2", []),
    ("(", NOTHING),
    (")", NOTHING),
    ("{name}: x", []),
    ("\x00\x01\x02", NOTHING),
    ("\u202eRTL override", []),
    ("שלום עולם", []),
    ("注意力机制", []),
    ("🤖🔥", NOTHING),
    ("👩‍🔬 llm", "llm"),
    ("x" * 10_000, []),
    (" ".join(["diffusion"] * 100), [VIEWMASK]),
    ("'; DROP TABLE models; --", "drop table models"),  # (a trailing "papers" asks for papers: no word)
    ("%_%", NOTHING),
    ("\\", NOTHING),
    ("author:", []),
    ("has:", "has"),
    ("status:", []),  # as the word status, which no seed writes (an English word: not "corrected" into another)
    ("-author:smith", EVERY_PAPER),
    ("\ud800", NOTHING),
    ("ﬁne-tuning", "fine-tuning"),
    ("Ｋ Ｖ cache", "K V cache"),
]


@pytest.mark.parametrize(("text", "expected"), NASTY)
def test_any_text_gets_the_answer_its_words_deserve(
    seed_db: sqlite_utils.Database, text: str, expected: str | list[str] | None
) -> None:
    response = search.search(seed_db, text)
    assert SEARCH_FAILED not in starred_notes(response)
    if expected is NOTHING:
        assert (ids(response), starred_notes(response)) == ([], [NOTHING_TO_SEARCH])
    elif expected == EVERY_PAPER:
        in_index_order = [r[0] for r in seed_db.execute("SELECT id FROM papers ORDER BY rowid LIMIT 5")]
        assert (ids(response), response.total) == (in_index_order, 19)
    elif isinstance(expected, list):
        assert ids(response) == expected
        assert response.total == len(expected)
    else:
        plain = search.search(seed_db, expected)
        assert ids(plain)  # the comparison means something only when the plain words find papers
        assert (ids(response), response.total) == (ids(plain), plain.total)
    assert response.truncated == (len(text) > ql.MAX_CHARS)
    for result in response.results:
        assert len(result.snippet.text) <= search.SNIPPET_CHARS + 2


def test_long_input_is_cut_and_the_response_says_so(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, "sparse attention " * 1000)
    assert response.truncated
    assert starred_notes(response) == [
        "Your query was long: searched its first 32 terms (499 characters).",
        "Only 1 paper matches every word; the rest match some.",
    ]
    assert ids(response)[0] == VEGAS


def assert_a_sound_answer(response: search.SearchResponse, text: str, limit: int) -> None:
    """What holds for any text: FTS5 never saw user syntax, and "nothing to search for" is said exactly when the
    parser found neither words nor filters."""
    assert SEARCH_FAILED not in starred_notes(response)
    assert len(response.results) <= limit
    parsed = ql.parse(text)
    assert (NOTHING_TO_SEARCH in starred_notes(response)) == (not parsed.terms and not parsed.has_filters)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_arbitrary_text_gets_a_sound_answer(seed_db: sqlite_utils.Database, text: str) -> None:
    assert_a_sound_answer(search.search(seed_db, text, limit=3), text, 3)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.sampled_from(
            [
                '"',
                "-",
                ":",
                "*",
                "^",
                "(",
                ")",
                "AND",
                "OR",
                "NOT",
                "NEAR",
                "author:",
                "has:",
                "kv",
                "cache",
                "title:",
                "{",
                "}",
                " ",
                "status:",
                "+",
                "'",
            ]
        ),
        max_size=12,
    )
)
@example(parts=['"', "NOT", '"', "has:", " ", "AND", "-", "AND"])  # an idea of function words alone (AND-AND)
@example(parts=["kv", " ", "status:", " ", ":", "title:", "NOT"])  # BM25 once asked "not" alone of `title:NOT`
@example(parts=[":", "author:", "AND", " ", "status:", " ", "NOT"])  # BM25 once OR'd "and": papers holding nothing
@example(parts=["ANDAND", " ", "AND:NOT", " ", "kv"])  # BM25 once asked "not" alone of the compound `AND:NOT`
def test_operator_soup_is_searched_as_text(seed_db: sqlite_utils.Database, parts: list[str]) -> None:
    for text in ("".join(parts), " ".join(parts)):
        response = search.search(seed_db, text)
        assert_a_sound_answer(response, text, 5)
        if any(not t.negated for t in ql.parse(text).terms):  # (exclusions alone list papers without a reason)
            assert all(r.matched for r in response.results)  # each result shows which of kv, cache, ... it holds


@pytest.mark.parametrize("text", ["ANDAND AND:NOT kv", "ANDAND  AND:NOT  kv"])
def test_a_compound_lists_no_paper_holding_only_a_word_of_it(seed_db: sqlite_utils.Database, text: str) -> None:
    """`AND:NOT` is read whole ("and not"): a paper BM25 brought for "not" alone holds nothing the answer could show."""
    response = search.search(seed_db, text)
    assert ids(response) == [DEFENSIVE_KV, VEGAS]
    assert all("abstract:kv" in r.matched for r in response.results)
    assert starred_notes(response) == ["No paper here writes *andand*; showing papers with the other words."]


@pytest.mark.parametrize(
    ("query", "word_only"),
    [
        ("multi-view image generation discrete diffusion", RACO),  # writes "view", not multi-view
        ("adversarial robustness of graph neural networks", SCM_GRPO),  # "graph", not graph neural networks
    ],
)
def test_bm25_brings_no_paper_holding_only_a_word_of_a_compound_or_long_form(
    seed_db: sqlite_utils.Database, query: str, word_only: str
) -> None:
    """BM25 asks a compound's or long form's words one by one, ranking reads them whole: a paper holding one word
    alone once joined the page with nothing to show why."""
    response = search.search(seed_db, query)
    assert response.results
    assert word_only not in ids(response)
    assert all(r.matched for r in response.results)


def test_a_compound_of_function_words_is_read_as_function_words(seed_db: sqlite_utils.Database) -> None:
    """`and-or` joins nothing a paper could hold: it separates ideas like `and` does, it is not a word to match."""
    response = search.search(seed_db, "kv and-or cache")
    assert ids(response) == ids(search.search(seed_db, "kv and cache")) == [DEFENSIVE_KV, VEGAS]
    assert not response.partial
    assert not starred_notes(response)


def test_sql_and_fts_syntax_in_text_are_just_words(seed_db: sqlite_utils.Database) -> None:
    assert (
        ids(search.search(seed_db, "kv AND cache")) == ids(search.search(seed_db, "kv cache")) == [DEFENSIVE_KV, VEGAS]
    )
    dropped = search.search(seed_db, "'; DROP TABLE models; --")
    assert ids(dropped) == ids(search.search(seed_db, "drop table models"))  # searched as the words
    assert ids(dropped)
    assert seed_db["papers"].count == 19  # and the table is still there


# ------------------------------------------------------------------------------------------------ names, ids, ranking


@pytest.mark.parametrize(
    ("query", "paper"),
    [
        ("TokSuite", TOKSUITE),
        ("toksuite", TOKSUITE),
        ("μA", MU_A),
        ("µA", MU_A),
        ("Knapsack RL", KNAPSACK),
        ("knapsack-rl", KNAPSACK),
        ("SCM-GRPO", SCM_GRPO),
        (TOKSUITE, TOKSUITE),
        (TOKSUITE.upper(), TOKSUITE),
        ("TokSuite tokenizers", TOKSUITE),
        ("DefensiveKV", DEFENSIVE_KV),
    ],
)
def test_a_paper_name_or_id_puts_that_paper_first(seed_db: sqlite_utils.Database, query: str, paper: str) -> None:
    response = search.search(seed_db, query)
    assert ids(response)[0] == paper
    assert response.results[0].matched[0].startswith(("name:", "id:"))


def test_papers_matching_all_words_rank_above_papers_matching_some(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, "sparse attention", limit=10)
    levels = [all(any(m.endswith(w) for m in r.matched) for w in ("sparse", "attention")) for r in response.results]
    assert levels[0]
    assert levels == sorted(levels, reverse=True)
    assert not all(levels)  # papers with one of the words follow
    assert response.partial
    assert starred_notes(response) == ["Only 1 paper matches every word; the rest match some."]


def test_only_a_short_query_says_that_few_papers_match_every_word(seed_db: sqlite_utils.Database) -> None:
    # "No paper matches every word" came with nearly every long query, where nobody expects one paper to hold all
    # its words: it is said for queries of two to four words, and words no paper writes are named at any length.
    assert starred_notes(search.search(seed_db, "memory efficient kv cache")) == [
        "No paper matches every word; showing papers that match some of them."
    ]
    for query in ("sparse attention for long context language models", "kv cache compression for long reasoning"):
        response = search.search(seed_db, query)
        assert response.partial, query  # (still so in --json)
        assert starred_notes(response) == [], query
    unknown = search.search(seed_db, "sparse attention for long context qqxqzv models")
    assert starred_notes(unknown) == ["No paper here writes *qqxqzv*; showing papers with the other words."]


def test_a_word_that_matches_nothing_does_not_empty_the_results(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, "keystone neurons qqxqzv")
    assert ids(response) == [KEYSTONE]
    assert response.partial
    assert starred_notes(response) == [
        "No paper here writes *qqxqzv*; showing papers with the other words."
    ]  # (which word)


def test_quoted_phrase_must_match_exactly(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, '"sparse attention"')
    assert ids(response) == [VEGAS]
    assert "*sparse attention*" in starred(response.results[0].snippet).lower()


def test_exclusions_and_title_field(seed_db: sqlite_utils.Database) -> None:
    assert DEFENSIVE_KV in ids(search.search(seed_db, "kv cache"))
    assert DEFENSIVE_KV not in ids(search.search(seed_db, "kv cache -eviction"))
    assert ids(search.search(seed_db, "kv cache -eviction")) == [VEGAS]
    assert ids(search.search(seed_db, "title:critical")) == [DEFENSIVE_KV]  # "critical" is in other abstracts too
    assert ids(search.search(seed_db, "critical")) == [DEFENSIVE_KV, VEGAS, KEYSTONE, RACO]


def test_filters_author_status_and_code(tiny_db: sqlite_utils.Database) -> None:
    assert sorted(source_ids(search.search(tiny_db, "attention author:turing")), key=str) == ["A1", "C3"]
    assert source_ids(search.search(tiny_db, 'attention author:"Grace Hopper"')) == ["B2"]
    assert sorted(source_ids(search.search(tiny_db, "attention -author:turing")), key=str) == ["B2"]
    assert source_ids(search.search(tiny_db, "attention status:oral")) == ["A1"]
    assert sorted(source_ids(search.search(tiny_db, "attention -status:poster")), key=str) == ["A1", "C3"]
    assert sorted(source_ids(search.search(tiny_db, "attention has:code")), key=str) == ["A1", "C3"]
    assert source_ids(search.search(tiny_db, "status:spotlight")) == ["C3"]
    assert sorted(source_ids(search.search(tiny_db, "has:code")), key=str) == ["A1", "C3"]
    only = search.search(tiny_db, "author:dijkstra")
    assert source_ids(only) == ["D4"]
    assert only.results[0].matched == ["author:dijkstra"]
    oral = search.search(tiny_db, "sparse status:oral")
    assert "status:Oral" in oral.results[0].matched


def test_a_question_naming_orals_spotlights_or_code_filters_by_them(tiny_db: sqlite_utils.Database) -> None:
    """ "any oral papers on attention?" is `attention status:oral`: the words ask for orals, no paper need hold them."""
    asked = {
        "any oral papers on attention?": "attention status:oral",
        "spotlight papers about attention": "attention status:spotlight",
        "papers with code on attention": "attention has:code",
        "attention papers with code": "attention has:code",
        "is there code for attention papers?": "attention has:code",
        "Alan Turing's papers": "author:turing",
        "orals on attention": "attention status:oral",  # orals are papers wanted, as "papers" is
        "spotlights about attention": "attention status:spotlight",
        "oral presentations on attention": "attention status:oral",
        "orals": "status:oral",  # a status alone asks for those papers
        "spotlight": "status:spotlight",
        "Alan Turing oral papers": "author:turing status:oral",  # ...and beside a name filters theirs
    }
    for question, filtered in asked.items():
        expected = sorted(source_ids(search.search(tiny_db, filtered)), key=str)
        assert sorted(source_ids(search.search(tiny_db, question)), key=str) == expected, question
        assert 0 < len(expected) < 4, filtered  # the filter keeps some papers and leaves out others


def test_versus_between_two_terms_is_a_function_word_like_vs(seed_db: sqlite_utils.Database) -> None:
    # "versus" was a word every result had to hold: "No paper matches every word".
    versus = search.search(seed_db, "speculative versus decoding")
    assert ids(versus) == ids(search.search(seed_db, "speculative vs decoding"))
    assert not versus.partial


def test_a_filter_word_is_never_corrected_into_another_word(tmp_path: Path) -> None:
    papers = [
        _paper("T1", "Tumour Detection in Histology", "We detect tumours in histology slides with a small network."),
        _paper("O1", "Odal Groups and Tumour Growth", "The odal group acts on tumour growth models."),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    response = search.search(db, "oral tumour detection")  # no abstract says "oral": it was corrected to "odal"
    assert response.corrected is None
    assert source_ids(response)[0] == "T1"
    db.conn.close()


def test_a_filter_that_excludes_everything_suggests_the_query_without_it(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, "kv cache status:oral")  # the seed file has no statuses
    assert not response.results
    assert response.suggestions == ["kv cache"]
    assert starred_notes(response) == [
        "This index has no oral/spotlight/poster status for its papers, so status: finds nothing here."
    ]


def test_title_matches_rank_above_passing_mentions(seed_db: sqlite_utils.Database) -> None:
    # DefensiveKV is about KV cache eviction; Vegas mentions the KV cache in passing.
    assert ids(search.search(seed_db, "kv cache"))[:2] == [DEFENSIVE_KV, VEGAS]


def test_paging_returns_each_paper_once(seed_db: sqlite_utils.Database) -> None:
    first = search.search(seed_db, "language models", limit=3)
    second = search.search(seed_db, "language models", limit=3, offset=3)
    assert first.total == second.total == 19
    assert ids(first) == [TOKSUITE, VIEWMASK, SOFTMOE]
    assert ids(second) == [CALIBRATION, TOKENSWAP, GPS]
    assert ids(search.search(seed_db, "language models", limit=6)) == ids(first) + ids(second)


@needs_shared_data()
@pytest.mark.parametrize("query", ["diffusion", "language model", "kv cache", "has:code reasoning"])
def test_paging_deep_shows_each_paper_once_in_one_order_under_one_total(full_index_path: Path, query: str) -> None:
    db = index.connect(full_index_path, readonly=True)
    pages = [search.search(db, query, limit=25, offset=offset) for offset in range(0, 400, 25)]
    paged = [r.paper["id"] for page in pages for r in page.results]
    assert len(paged) == len(set(paged))
    assert paged[:50] == ids(search.search(db, query, limit=50))
    assert len({page.total for page in pages}) == 1
    assert len(paged) == min(400, pages[0].total) or not pages[0].total_exact


PAGED_QUERIES = [
    "diffusion",
    "language model",
    "kv cache",
    "weather forecasting with machine learning",
    "membership inference attacks on diffusion models",
    "Mohit Bansal reasoning",
    "speculative decodng",
]


@needs_shared_data()
def test_a_short_page_scores_fewer_papers_but_shows_the_places_of_the_whole_order(
    full_index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranking works out full scores only for candidates whose title leaves them a chance of the page: each page
    must still show exactly the papers, scores and order of those places when every candidate is scored."""
    db = index.connect(full_index_path, readonly=True)
    scored: list[int] = []
    full_score = Ranker.score

    def counted(self: Ranker, paper: ScoredPaper, *rest: Any) -> float:
        scored.append(paper.rowid)
        return full_score(self, paper, *rest)

    monkeypatch.setattr(Ranker, "score", counted)
    spared = 0
    for query in PAGED_QUERIES:
        whole = search.search(db, query, limit=DEFAULT.ranking.rerank)
        every = len(scored)
        for offset in (0, 1, 5, 10, 20):
            scored.clear()
            page = search.search(db, query, limit=5, offset=offset)
            assert [(r.paper["id"], r.score, starred(r.snippet)) for r in page.results] == [
                (r.paper["id"], r.score, starred(r.snippet)) for r in whole.results[offset : offset + 5]
            ], (query, offset)
            spared += every - len(scored)
        scored.clear()
    assert spared > 0  # some pages did leave candidates unscored: the test saw the shortcut at work


@needs_shared_data()
def test_abstracts_kept_in_memory_rank_as_abstracts_read_per_query(
    full_index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index small enough keeps the abstracts ranking reads in memory; a larger one reads them per query: both
    give the same answers, with the abstracts read for the first time or taken from memory."""
    db = index.connect(full_index_path, readonly=True)

    def answers() -> list[list[tuple[str, float, str, list[str]]]]:
        pages = [search.search(db, query, limit=10) for query in [*PAGED_QUERIES, "Mohit Bansal", "author:hayou"]]
        return [[(r.paper["id"], r.score, starred(r.snippet), r.matched) for r in page.results] for page in pages]

    first, again = answers(), answers()  # (the abstracts are kept as they are read)
    assert again == first
    assert len(index_cache(db).abstracts() or {}) >= 10 * len(first)
    monkeypatch.setattr(cache, "ABSTRACTS_IN_MEMORY", 0)
    assert index_cache(db).abstracts() is None
    assert answers() == first


def test_a_noun_in_the_query_finds_titles_with_its_adjective(tmp_path: Path) -> None:
    """`robustness of graph neural networks`: the paper titled *Robust ... Graph Neural Networks* is about both
    ideas and comes first, above a graph paper that mentions robustness in passing; its snippet shows *robust*."""
    db = index.connect(index_of(tmp_path, ROBUST_OR_ROBUSTNESS))
    found = search.search(db, "robustness of graph neural networks").results
    assert [r.paper["source_id"] for r in found[:2]] == ["R", "C"]
    assert "title:robustness" in found[0].matched
    assert "*robust*" in starred(found[0].snippet)


def test_result_json_shape(seed_db: sqlite_utils.Database) -> None:
    result = search.search(seed_db, "kv cache").results[0]
    data = result.to_json()
    assert {"id", "title", "abstract", "authors", "url", "code_url", "score", "snippet", "matched"} <= set(data)
    assert data["matched"] == ["title:kv", "abstract:kv", "title:cache", "abstract:cache"]


# ------------------------------------------------------------------------------------------------ snippets


def test_snippet_marks_matched_words_and_stays_short(seed_db: sqlite_utils.Database) -> None:
    snippet = starred(search.search(seed_db, "speculative decoding").results[0].snippet)
    assert "*speculative decoding*" in snippet.lower()
    assert len(snippet.replace("*", "")) <= search.SNIPPET_CHARS
    assert "**" not in snippet
    assert snippet.count("*") % 2 == 0


def test_notes_and_snippets_say_what_to_stress_as_data_not_as_slack_markup(seed_db: sqlite_utils.Database) -> None:
    """Search writes no display syntax: each edge (Slack, the shell, JSON) renders the Strong pieces its own way."""
    response = search.search(seed_db, "keystone neurons qqxqzv")
    assert response.notes == [
        marked("No paper here writes ", Strong("qqxqzv"), "; showing papers with the other words.")
    ]
    snippet = response.results[0].snippet
    assert Strong("keystone neurons") in snippet.parts
    assert "*" not in snippet.text
    assert [snippet.text[s:e].lower() for s, e in snippet.spans()][:1] == ["keystone neurons"]


def test_snippet_joins_a_hyphenated_phrase_into_one_bold_span(seed_db: sqlite_utils.Database) -> None:
    snippet = starred(search.search(seed_db, "mixture of experts").results[0].snippet)
    assert re.search(r"\*mixture[- ]of[- ]experts\*", snippet, re.I), snippet


def test_snippet_drops_markdown_from_the_abstract() -> None:
    highlighter = search.Highlighter([TermGroup("x", [Alternative(("cache",))])])
    assert starred(search.make_snippet("We _evict_ the *KV* cache.", "", highlighter)) == "We evict the KV *cache*."


def test_a_snippet_of_an_abstract_of_megabytes_comes_from_its_start() -> None:
    """Indexing caps abstracts (bot.papers.limits); one left longer by an older index is read only as far as that:
    finding every query word in 40 MB took seconds per search."""
    highlighter = search.Highlighter([TermGroup("x", [Alternative(("cache",))])])
    huge = "Sparse attention keeps the cache small. " + "Filler words about nothing. " * 1_500_000 + "cache " * 50
    snippet = search.make_snippet(huge, "A headline.", highlighter)
    assert starred(snippet).startswith("Sparse attention keeps the *cache* small. Filler words")
    assert len(snippet.text) <= search.SNIPPET_CHARS


@given(st.text(alphabet="ab_*~` é1.\n-", max_size=16))
def test_markdown_runs_removed_are_those_of_the_plain_rule(text: str) -> None:
    """The fast markup regex removes exactly the runs the readable rule names (after or before a non-word char)."""
    plain = re.compile(r"(?<!\w)[*_`~]+|[*_`~]+(?!\w)")
    assert MARKUP_RE.sub("", text) == plain.sub("", text)


# ------------------------------------------------------------------------------------------------ typos


@pytest.mark.parametrize(
    ("typed", "corrected", "paper"),
    [
        ("kv cahce", "kv cache", DEFENSIVE_KV),  # transposition, last word
        ("kv cahce eviction", "kv cache eviction", DEFENSIVE_KV),
        ("difusion models", "diffusion models", VIEWMASK),  # first word
        ("speculativ decoding sparse atention", "speculative decoding sparse attention", VEGAS),  # two words
        ("Knapsak RL", "Knapsack RL", KNAPSACK),  # keeps the user's capitals
        ("toksuit", "toksuite", TOKSUITE),  # a paper name
        ("kv cahce -survey", "kv cache -survey", DEFENSIVE_KV),  # the rest of the query is kept
    ],
)
def test_typos_are_corrected_and_reported(
    seed_db: sqlite_utils.Database, typed: str, corrected: str, paper: str
) -> None:
    response = search.search(seed_db, typed)
    assert response.corrected == corrected
    assert ids(response)[0] == paper


@pytest.mark.parametrize(
    "query",
    ["TokSuite", "GRPO", "grpo", "μA", "keystone", "kv", "cot", "gpt4o", "Vegas", "tokeniser", "ExSQF", "qqxqzv"],
)
def test_valid_rare_words_names_acronyms_and_short_words_are_not_corrected(
    seed_db: sqlite_utils.Database, query: str
) -> None:
    assert search.search(seed_db, query).corrected is None


def test_a_plural_the_index_never_spelled_out_is_no_typo(tmp_path: Path) -> None:
    # Papers write "parity"; FTS5's stemmer finds it for "parities", which used to be corrected into "parties".
    papers = [
        *(
            {"id": f"P{i}", "title": f"Learning {kind} Parity Functions", "abstract": f"We learn a {kind} parity."}
            for i, kind in enumerate(["Sparse", "Noisy", "Boolean"])
        ),
        {"id": "Q1", "title": "Political Parties as Agents", "abstract": "We simulate parties in elections."},
        *(
            {"id": f"L{i}", "title": f"Linear Probes of {part}", "abstract": f"We train linear probes on {part}."}
            for i, part in enumerate(["Attention", "Residuals", "Embeddings"])
        ),
        {"id": "T1", "title": "Typos in Abstracts", "abstract": "One prbe of one word."},  # a one-off typo
    ]
    db = index.connect(index_of(tmp_path, papers, "parity2026.jsonl"))
    response = search.search(db, "learning parities")
    assert response.corrected is None
    assert {r.paper["source_id"] for r in response.results} == {"P0", "P1", "P2"}
    assert search.search(db, "linear prbes").corrected == "linear probes"  # "prbe" once is no word to keep
    assert (typos.singulars("boxes"), typos.singulars("priors"), typos.singulars("loss")) == (
        ["box", "boxe"],
        ["prior"],
        [],
    )


def test_british_spelling_and_hyphen_variants_find_the_same_papers(seed_db: sqlite_utils.Database) -> None:
    assert ids(search.search(seed_db, "tokeniser"))[0] == TOKSUITE
    assert typos.spellings("tokeniser") == ["tokenizer"]
    assert "modeling" in typos.spellings("modelling")
    assert "behavior" in typos.spellings("behaviour")
    kv = ids(search.search(seed_db, "kv cache"))[:2]
    for variant in ("KV-cache", "kvcache", "KV cache", "kv-cache"):
        assert ids(search.search(seed_db, variant))[:2] == kv, variant
    assert ids(search.search(seed_db, "mixture-of-experts"))[0] == SOFTMOE


def test_a_compound_whose_hyphen_slipped_is_read_as_the_word_its_letters_make(tmp_path: Path) -> None:
    """`fin-etuning`: correcting each part made *fin-tuning* (or *fine-used* for finet-uned), which no paper holds;
    the letters together are a word the index has."""
    papers = [
        {"id": "F1", "title": "Finetuning Large Models Cheaply", "abstract": "We study finetuning of models."},
        {"id": "F2", "title": "Tuning Fins of Fish Robots", "abstract": "Fin tuning for swimming robots."},
        {"id": "F3", "title": "Fine Grained Vision", "abstract": "Fine grained recognition, often used."},
    ]
    db = index.connect(index_of(tmp_path, papers, "hyphens2026.jsonl"))
    response = search.search(db, "Fin-etuning")
    assert response.corrected == "Finetuning"
    assert [r.paper["source_id"] for r in response.results] == ["F1"]
    assert search.search(db, "fin-tuning").corrected is None  # every part known: the compound as typed


def _choosing(tmp_path: Path, papers: list[dict[str, str]], query: str) -> tuple[search.SearchResponse, list[str]]:
    """Search an index of these papers; also the counts that chose between corrections of wheather (whether or
    weather)."""
    db = index.connect(index_of(tmp_path, papers, "weather2026.jsonl"))
    asked: list[str] = []
    db.conn.set_trace_callback(asked.append)
    response = search.search(db, query)
    return response, [sql for sql in asked if "count(*)" in sql and "whether" in sql]


def test_a_correction_is_chosen_by_the_telling_words_beside_it(tmp_path: Path) -> None:
    """`wheather forecasting model`: whether and weather are one edit away and whether is more frequent, but
    weather is the one papers use with *forecasting*; *model*, in every paper, is not asked (it tells nothing and
    makes FTS5 read its whole posting list at 110,000 papers)."""
    weather = [(f"W{i}", f"Weather Forecasting {i}", f"A weather forecasting model, region {i}.") for i in range(2)]
    whether = [(f"H{i}", f"Does Size Matter {i}", f"We ask whether model size matters, case {i}.") for i in range(5)]
    papers = [{"id": i, "title": t, "abstract": a} for i, t, a in weather + whether]
    response, counts = _choosing(tmp_path, papers, "wheather forecasting model")
    assert response.corrected == "weather forecasting model"
    assert {r.paper["source_id"] for r in response.results[:2]} == {"W0", "W1"}
    assert counts
    assert all("forecasting" in sql and "model" not in sql for sql in counts)


def test_a_correction_asks_only_the_rarest_two_telling_words(tmp_path: Path) -> None:
    """`wheather forecasting storm radar`: of three telling words, the two rarest (radar, storm) choose weather;
    forecasting, the most common of them, is not asked (each further word makes FTS5 read every paper the others
    share before it can stop)."""
    response, counts = _choosing(tmp_path, WEATHER_OR_WHETHER, "wheather forecasting storm radar")
    assert response.corrected == "weather forecasting storm radar"
    assert response.results[0].paper["source_id"] == "W0"
    assert counts
    assert all('"radar"' in sql and '"storm"' in sql and "forecasting" not in sql for sql in counts)


def test_correction_prefers_frequent_words_and_respects_the_length_floor() -> None:
    vocab = typos.Vocabulary()
    words = {"learning": 2469, "leaning": 3, "cache": 105, "cace": 1, "models": 800, "modles": 1, "kv": 95}
    words |= {"training": 2182, "raining": 1, "transfer": 400, "ransfer": 1, "rasfer": 60}

    def fetch_df(ws: list[str]) -> dict[str, int]:
        return {w: words[w] for w in ws if w in words}

    def fetch_prefix(first: str) -> list[tuple[str, int]]:
        return [(w, n) for w, n in words.items() if w.startswith(first)]

    assert typos.correction("lerning", vocab, fetch_df, fetch_prefix) == "learning"
    assert typos.correction("cahce", vocab, fetch_df, fetch_prefix) == "cache"
    assert typos.correction("modles", vocab, fetch_df, fetch_prefix) is None  # in the vocabulary: never corrected
    assert typos.common_neighbour("modles", vocab, fetch_df, fetch_prefix) == "models"  # ...but searched beside
    assert typos.common_neighbour("raining", vocab, fetch_df, fetch_prefix) == "training"  # a first letter lost
    assert typos.common_neighbour("ransfer", vocab, fetch_df, fetch_prefix) == "rasfer"  # (not 10x: same letter)
    assert typos.correction("kx", vocab, fetch_df, fetch_prefix) is None  # too short
    assert typos.correction("zzzzzz", vocab, fetch_df, fetch_prefix) is None


@needs_shared_data()
def test_a_rare_word_one_first_letter_from_a_common_one_is_searched_beside_it(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    response = search.search(db, "raining spiking neural networks")  # one ICML 2026 abstract says "raining"
    assert "Also showing papers with *training* (only a paper or two use *raining*)." in starred_notes(response)
    assert all(r.paper["title"].lower().count("train") for r in response.results)
    assert [r.paper["id"] for r in response.results] == ids(search.search(db, "training spiking neural networks"))


def test_an_english_word_a_paper_or_two_use_is_not_read_as_a_slip_for_a_common_one(tmp_path: Path) -> None:
    # "watching" (one paper) was searched beside "matching" (sixty), and the matching papers came first: "Also showing
    # papers with *matching* (only a paper or two use *watching*)". A real word is what it says, unless the words
    # beside it are written with the common word and never with it ("raining spiking neural networks").
    topics = ("graphs", "markets", "images", "molecules", "proteins", "texts")
    papers = [
        _paper(
            f"M{i}",
            f"Score Matching for {topics[i % 6].title()} {i}",
            f"We study matching of {topics[i % 6]}, case {i}.",
        )
        for i in range(60)
    ]
    papers += [
        _paper("W", "Learning by Watching Videos", "Agents learn skills by watching videos of people."),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    try:
        for query in ("watching", "watching videos"):
            response = search.search(db, query)
            assert source_ids(response) == ["W"], query
            assert not [n for n in starred_notes(response) if "Also showing" in n], query
        # (still read so beside words papers write with it: test_a_rare_word_one_first_letter_from_a_common_one...)
    finally:
        db.conn.close()


def test_split_run_together_words() -> None:
    known = {"kv": 95, "cache": 105, "mixture": 40, "of": 5000, "experts": 60}

    def df(ws: list[str]) -> dict[str, int]:
        return {w: known.get(w, 0) for w in ws}

    assert typos.split_compound("kvcache", df) == ("kv", "cache")
    assert typos.split_compound("mixtureofexperts", df) == ("mixture", "of", "experts")
    assert typos.split_compound("zzzzzz", df) is None


# ------------------------------------------------------------------------------------------------ acronyms


def test_acronym_pairs_are_learned_with_their_letters_checked() -> None:
    text = (
        "Large language models (LLMs) use Retrieval-Augmented Generation (RAG) and Mixture of Experts (MoE). "
        "We apply Low-Rank Adaptation (LoRA) with Reinforcement Learning from Human Feedback (RLHF) and "
        "key-value (KV) caches. Our great new idea (GPT) and a Mixture of Experts (ABC) are not pairs."
    )
    assert acronyms.pairs_in(text) == [
        ("LLM", "large language model"),
        ("RAG", "retrieval augmented generation"),
        ("MoE", "mixture of expert"),
        ("LoRA", "low rank adaptation"),
        ("RLHF", "reinforcement learning from human feedback"),
        ("KV", "key value"),
    ]


def test_learned_pairs_need_two_papers() -> None:
    one = "We use a Frobnicated Widget Network (FWN)."
    two = "The frobnicated widget networks (FWNs) help."
    assert acronyms.learn([one]) == []
    assert acronyms.learn([one, two]) == [("fwn", "FWN", "frobnicated widget network", 2)]


def test_the_index_stores_learned_acronyms(seed_db: sqlite_utils.Database) -> None:
    rows = {(r["key"], r["long"]) for r in seed_db.query("SELECT key, long FROM acronyms")}
    assert ("llm", "large language model") in rows


def test_acronym_finds_its_long_form_and_back(seed_db: sqlite_utils.Database) -> None:
    moe = search.search(seed_db, "MoE routing")
    assert ids(moe) == [SOFTMOE]
    grpo = search.search(seed_db, "group relative policy optimization")
    assert ids(grpo) == [SCM_GRPO, KNAPSACK]
    # The long form finds the paper that only writes GRPO in its title, and says so.
    assert grpo.results[0].matched == ["title:grpo", "abstract:group relative policy optimization"]


def test_a_title_typed_whole_is_not_taken_over_by_a_paper_named_by_one_of_its_words(tmp_path: Path) -> None:
    def paper(pid: str, title: str) -> dict[str, Any]:
        abstract = f"{title}. We study state space models for long sequences and report results on benchmarks."
        return {"id": pid, "title": title, "abstract": abstract, "authors": ["Ada Lovelace"]}

    titled = "Dynamic Fractal Mamba: A Neural Renormalization Group Flow for Scale-Invariant Sequence Modeling"
    db = index.connect(index_of(tmp_path, [paper("F", "FRACTAL: State Space Models"), paper("D", titled)]))
    assert search.search(db, titled).results[0].paper["source_id"] == "D"
    assert search.search(db, "fractal sequence models").results[0].paper["source_id"] == "F"  # its name, named
    db.conn.close()


def test_a_name_in_capitals_that_papers_use_as_a_term_pins_nothing_among_other_words(tmp_path: Path) -> None:
    papers = [
        _paper("N1", "PAC: Safe Reachability for Control", "We call our method PAC. It certifies controllers."),
        _paper("N2", "PAC: Learning Theory Meets OOD Detection", "We call our method PAC for detection."),
        *(
            _paper(f"B{i}", f"PAC-Bayesian Bounds for {topic}", f"We prove PAC-Bayesian bounds for {topic}.")
            for i, topic in enumerate(["Transformers", "Policies", "Ensembles", "Kernels", "Meta Learning"])
        ),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    bounds = search.search(db, "PAC Bayesian bounds")
    assert all(str(r.paper["source_id"]).startswith("B") for r in bounds.results)  # the term, not papers called PAC
    for alone in ("PAC", "the PAC method"):  # the name alone, or beside words that only say which paper
        named = [r for r in search.search(db, alone).results if "name:PAC" in r.matched]
        assert {r.paper["source_id"] for r in named} == {"N1", "N2"}, alone
    db.conn.close()


def test_a_name_in_capitals_that_a_few_papers_write_as_a_word_pins_nothing_among_other_words(tmp_path: Path) -> None:
    # `lottery ticket` put LOTTERY, a two-sample test, first: the word is rare, and rare words pinned the name.
    papers = [
        _paper("L", "LOTTERY: Learning from Reference-Only Samples", "LOTTERY is a two-sample test for small samples."),
        _paper("T1", "Expressive Lottery Tickets", "We find lottery tickets in wide networks and prune the rest."),
        _paper("T2", "Lottery Tickets at Initialization", "Lottery ticket masks found at initialization transfer."),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    tickets = search.search(db, "lottery ticket")
    assert sorted(source_ids(tickets)[:2], key=str) == ["T1", "T2"]
    assert not any(m.startswith("name:") for r in tickets.results for m in r.matched)
    assert search.search(db, "lottery").results[0].matched[0] == "name:lottery"  # alone, it is the name
    db.conn.close()


METRIC_USES = ["traffic", "solar", "wind", "retail", "energy", "weather", "sales", "river"]


def test_a_long_form_skips_an_acronym_papers_use_for_something_else(tmp_path: Path) -> None:
    # Two papers define MAE as masked autoencoders; eight report MAE, the error metric, without spelling it out.
    papers = [
        _paper("M1", "Masked Autoencoders for Video", "We pretrain masked autoencoders (MAE) on video clips."),
        _paper("M2", "Scaling Masked Autoencoders", "Masked autoencoders (MAE) scale with data and model size."),
        *(
            _paper(f"E{i}", f"Forecasting {use.title()} Demand", f"On {use} demand our regressor lowers MAE and RMSE.")
            for i, use in enumerate(METRIC_USES)
        ),
        _paper("R1", "Rotary Position Embedding Revisited", "Rotary position embedding (RoPE) encodes positions."),
        _paper("R2", "Rotary Position Embedding for Images", "We extend rotary position embedding (RoPE) to 2D."),
        _paper("R3", "Scaling RoPE to Long Context", "We scale RoPE frequencies to extend context length."),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    masked = search.search(db, "masked autoencoders", limit=10)
    assert {r.paper["source_id"] for r in masked.results} == {"M1", "M2"}  # not the error metric
    rope = search.search(db, "rotary position embedding", limit=10)
    assert {r.paper["source_id"] for r in rope.results} == {"R1", "R2", "R3"}  # spelled out by 2 of its 3 papers
    db.conn.close()


@needs_shared_data()
def test_acronyms_on_the_real_list(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    moe = search.search(db, "MoE", limit=50)
    assert any(
        re.search(r"mixture[- ]of[- ]experts", r.paper["title"], re.I) and "moe" not in r.paper["title"].lower()
        for r in moe.results
    )
    rag = search.search(db, "retrieval-augmented generation", limit=20)
    assert any(
        re.search(r"\bRAG\b", r.paper["title"]) and "retrieval-augmented" not in r.paper["title"].lower()
        for r in rag.results
    )
    # An ambiguous two-letter acronym is not added to a long form (CL is also contrastive learning).
    cl = search.search(db, "continual learning", limit=5)
    assert all(re.search(r"continual|lifelong|incremental|forgetting", r.paper["title"], re.I) for r in cl.results)


# ------------------------------------------------------------------------------------------------ similar


def test_similar_excludes_the_paper_and_finds_its_neighbours(seed_db: sqlite_utils.Database) -> None:
    found = search.similar(seed_db, DEFENSIVE_KV, k=3)
    assert [r.paper["id"] for r in found] == [VEGAS, LOGIC_VERIFICATION, HIDE]  # Vegas: the other KV cache paper
    assert found[0].matched == [
        "shared:cache",
        "shared:entries",
        "shared:critical",
        "shared:algorithm",
        "shared:attention",
    ]
    assert "*cache entries*" in starred(found[0].snippet)
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)
    assert search.similar(seed_db, "nosuchpaper") == []
    assert [r.paper["id"] for r in search.similar(seed_db, "TokSuite", k=2)] == [MULTI_ANSWER, CALIBRATION]


def test_similar_reads_the_neighbours_the_index_stored(seed_db: sqlite_utils.Database) -> None:
    me = seed_db.execute("SELECT rowid FROM papers WHERE id = ?", [DEFENSIVE_KV]).fetchone()[0]
    rowids = {pid: rowid for rowid, pid in seed_db.execute("SELECT rowid, id FROM papers")}
    seed_db.execute(
        "UPDATE neighbours SET related = ? WHERE paper = ?",
        [related.pack([(rowids[SOFTMOE], 0.9), (rowids[RACO], 0.5)]), me],
    )
    found = search.similar(seed_db, DEFENSIVE_KV, k=5)
    assert [(r.paper["id"], r.score) for r in found] == [(SOFTMOE, 0.9), (RACO, 0.5)]


def test_similar_on_an_index_built_before_neighbours_were_stored(seed_db: sqlite_utils.Database) -> None:
    seed_db.execute("DROP TABLE neighbours")  # what an older release built: the words find the papers at query time
    found = search.similar(seed_db, DEFENSIVE_KV, k=3)
    assert [r.paper["id"] for r in found] == [VEGAS, LOGIC_VERIFICATION, RACO]
    assert found[0].matched == [
        "shared:cache",
        "shared:entries",
        "shared:critical",
        "shared:algorithm",
        "shared:attention",
    ]
    assert [r.paper["id"] for r in search.similar(seed_db, "TokSuite", k=2)] == [CAUSCIBENCH, MULTI_ANSWER]


@needs_shared_data()
def test_similar_on_the_real_list(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    toksuite = known(db, "TokSuite")
    found = search.similar(db, toksuite["id"], k=5)
    assert len(found) == 5
    assert toksuite["id"] not in [r.paper["id"] for r in found]
    assert sum(bool(re.search(r"tokeni[sz]", r.paper["title"], re.I)) for r in found) >= 2


# ------------------------------------------------------------------------------------------------ index changes


def test_a_rebuilt_index_is_seen_by_the_next_search(seed_db: sqlite_utils.Database, tmp_path: Path) -> None:
    assert not search.search(seed_db, "zorblatting").results
    source = tmp_path / "new2026.jsonl"
    paper = {"id": "NEW1", "title": "Zorblatting Transformers", "abstract": "We introduce zorblatting. " * 6}
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    index.load(seed_db, [source])
    assert source_ids(search.search(seed_db, "zorblatting")) == ["NEW1"]
    assert search.search(seed_db, "zorblating").corrected == "zorblatting"


def test_a_paper_edited_by_a_reindex_in_the_same_second_is_ranked_as_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Search keeps titles and abstracts in memory per index version: a second load within the same second (one
    stamp) that edits a paper in place (one seq) must still be read afresh."""
    monkeypatch.setattr("bot.papers.loading.time.strftime", lambda fmt, when=None: "2026-12-02T10:00:00Z")
    source = tmp_path / "list.jsonl"
    paper = {"id": "P1", "title": "Token Pruning for Vision Transformers", "abstract": "We prune tokens early. " * 4}
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    db = index.connect(tmp_path / "papers.db")
    index.load(db, [source])
    assert "abstract:pruning" in search.search(db, "token pruning").results[0].matched
    paper |= {"title": "Token Zorblating for Vision Transformers", "abstract": "We zorblat tokens early. " * 4}
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    index.load(db, [source])
    (found,) = search.search(db, "token zorblat").results
    assert {"title:zorblat", "abstract:zorblat"} <= set(found.matched)


def test_a_search_reads_one_snapshot_and_ends_its_read(seed_db: sqlite_utils.Database, tmp_path: Path) -> None:
    reader = index.connect(seed_db.conn.execute("PRAGMA database_list").fetchone()[2], readonly=True)
    assert search.search(reader, "kv cache").results
    assert not reader.conn.in_transaction
    seed_db.execute("UPDATE meta SET value = 'newer' WHERE key = 'last_indexed'")
    seed_db.conn.commit()
    busy, _, _ = seed_db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0  # no read left open by the search holds a rebuild's checkpoint back
    seed_db.execute("BEGIN")  # the caller's own transaction, with an uncommitted write
    seed_db.execute("UPDATE meta SET value = 'newest' WHERE key = 'last_indexed'")
    assert search.search(seed_db, "kv cache").results
    assert seed_db.conn.in_transaction  # still theirs to end
    seed_db.execute("ROLLBACK")
    reader.conn.close()


def test_an_index_without_the_acronyms_table_still_searches(seed_db: sqlite_utils.Database) -> None:
    seed_db.execute("DROP TABLE acronyms")
    seed_db.execute("UPDATE meta SET value = 'older' WHERE key = 'last_indexed'")
    seed_db.conn.commit()
    assert ids(search.search(seed_db, "MoE"))[0] == SOFTMOE  # the built-in list


def test_threads_with_their_own_connections(seed_index_path: Path) -> None:
    queries = ("kv cahce", "TokSuite", "MoE routing", "language models", "status:oral")
    expected = [
        [DEFENSIVE_KV, VEGAS],
        [TOKSUITE],
        [SOFTMOE],
        [TOKSUITE, VIEWMASK, SOFTMOE, CALIBRATION, TOKENSWAP],
        [],
    ]
    errors: list[BaseException] = []
    answers: list[list[list[str]]] = []

    def work() -> None:
        try:
            db = index.connect(seed_index_path, readonly=True)
            answers.append([ids(search.search(db, query)) for query in queries])
            db.conn.close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert answers == [expected] * len(threads)  # every thread, sharing the per-index cache, got the same answers


def test_a_non_fts_database_error_is_not_hidden(tmp_path: Path) -> None:
    db = index.connect(tmp_path / "empty.db")
    index.ensure_schema(db)
    db.execute("DROP TABLE vocab")
    with pytest.raises(sqlite3.OperationalError):
        search.search(db, "attention")


# ------------------------------------------------------------------------------------------------ CLI --batch


def test_batch_cli_writes_one_json_line_per_query(
    seed_index_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = ["kv cahce", "", "TokSuite", "🤖", 'AND "unbalanced', "status:oral"]
    batch = tmp_path / "queries.txt"
    batch.write_text("\n".join(queries) + "\n", encoding="utf-8")
    assert main(["search", "--db", str(seed_index_path), "--batch", str(batch), "--json", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(queries)
    answers = [json.loads(line) for line in lines]
    assert [a["query"] for a in answers] == queries
    assert answers[0]["corrected"] == "kv cache"
    assert answers[0]["took_ms"] > 0
    assert answers[0]["results"][0]["id"] == DEFENSIVE_KV
    assert len(answers[0]["results"]) == 2
    assert answers[2]["results"][0]["name"] == "TokSuite"
    assert answers[1]["results"] == []
    assert answers[3]["results"] == []
    # One shape: `search --json` prints what a batch line holds (all but the time it took).
    assert main(["search", "--db", str(seed_index_path), "kv cahce", "--json", "--limit", "2"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone.pop("took_ms") > 0
    assert alone == {key: value for key, value in answers[0].items() if key != "took_ms"}


def test_batch_cli_errors_are_one_line(
    seed_index_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "--db", str(seed_index_path), "--batch", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read the batch file" in capsys.readouterr().err
    assert main(["search", "--db", str(seed_index_path), "--batch", "x.txt", "kv"]) == 2
    assert main(["search", "--db", str(seed_index_path)]) == 2
    assert "nothing to search for" in capsys.readouterr().err


@needs_shared_data()
def test_similar_answers_the_forty_the_learning_digest_moves(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    toksuite = known(db, "TokSuite")
    found = search.similar(db, toksuite["id"], k=40)
    assert len(found) == 40  # bot.digest.select.NEIGHBOURS
    assert len({r.paper["id"] for r in found}) == 40
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)


def test_a_compound_no_paper_writes_is_searched_word_by_word_and_says_so(tmp_path: Path) -> None:
    # FlashAttention-3 is in no paper yet; FlashAttention and -2 are. Nothing found would help nobody, and a
    # version number alone says nothing: the FlashAttention papers come, the title first.
    papers = [
        {"id": "F2", "title": "FlashAttention-2 Kernels for Long Contexts", "abstract": "FlashAttention-2 is fast."},
        {"id": "F1", "title": "Tiling Attention", "abstract": "We speed up FlashAttention with 3 tricks."},
        {"id": "K1", "title": "KV-Cache Eviction", "abstract": "We evict entries from the kv-cache."},
        {"id": "S1", "title": "Swin Transformers at Scale", "abstract": "A large Swin model for T cells."},
        {"id": "D1", "title": "Stable Diffusion Edits", "abstract": "We edit images with stable diffusion."},
        {"id": "D2", "title": "Diffusion Is Stable", "abstract": "Sampling from diffusion models is stable."},
    ]
    db = index.connect(index_of(tmp_path, papers, "flash2026.jsonl"))
    response = search.search(db, "FlashAttention-3")
    assert [r.paper["source_id"] for r in response.results] == ["F2", "F1"]
    assert "No paper writes *FlashAttention-3*: showing papers with *flashattention*." in starred_notes(response)
    # A size or a letter says nothing alone (Swin-T, -large); the rest stays a phrase when papers write it.
    assert [r.paper["source_id"] for r in search.search(db, "Swin-T").results] == ["S1"]
    assert [r.paper["source_id"] for r in search.search(db, "Stable-Diffusion-v1.5").results] == ["D1"]
    assert search.search(db, "i-on").results == []  # nothing telling is left: as typed
    written = search.search(db, "kv-cache")  # a compound papers write stays one phrase, without a note
    assert [r.paper["source_id"] for r in written.results] == ["K1"]
    assert not any("No paper writes" in note for note in starred_notes(written))


def test_a_typo_in_a_hyphenated_term_is_corrected_to_the_term_papers_write(tmp_path: Path) -> None:
    # "modl" is one letter from model (in thirty papers, beside "collapse") and from mode; only mode collapse is a
    # term papers write. "selfp-lay" is self-play with its hyphen one letter late.
    papers = [
        *(
            {"id": f"M{i}", "title": f"Mode Collapse in GANs {i}", "abstract": f"Mode collapse, case {i}."}
            for i in range(5)
        ),
        *(
            {"id": f"N{i}", "title": f"Scaling Study {i}", "abstract": f"The model avoids collapse in run {i}."}
            for i in range(30)
        ),
        {"id": "S", "title": "Self-Play for Chess", "abstract": "Agents play against themselves in self-play."},
        {"id": "Z", "title": "Zero-Shot Transfer", "abstract": "A zero-shot method, a long shot."},
    ]
    db = index.connect(index_of(tmp_path, papers, "typos2026.jsonl"))
    response = search.search(db, "modl-collapse")
    assert response.corrected == "mode-collapse"
    assert {r.paper["source_id"] for r in response.results} == {f"M{i}" for i in range(5)}
    moved = search.search(db, "selfp-lay")
    assert (moved.corrected, [r.paper["source_id"] for r in moved.results]) == ("self-play", ["S"])
    swapped = search.search(db, "zero-hsot")  # two letters swapped
    assert (swapped.corrected, [r.paper["source_id"] for r in swapped.results]) == ("zero-shot", ["Z"])


def test_a_slip_at_a_words_first_letter_is_corrected_too(tmp_path: Path) -> None:
    # The corrector keeps a word's first letter; "ransformers" found nothing and "einforcement learning" became
    # enforcement learning, a word one paper uses. A word many times more used, or one the query's other words
    # go with, is the correction now; a word typed right keeps its first letter.
    papers = [
        *(
            {"id": f"T{i}", "title": f"Transformers at Scale {i}", "abstract": f"Transformers, study {i}."}
            for i in range(3)
        ),
        *(
            {"id": f"R{i}", "title": f"Reinforcement Learning for Games {i}", "abstract": f"Agents learn, run {i}."}
            for i in range(30)
        ),
        {"id": "E", "title": "Law Enforcement Data", "abstract": "Enforcement agencies publish data."},
        *(
            {"id": f"P{i}", "title": f"Conformal Prediction {i}", "abstract": f"Prediction sets, {i}."}
            for i in range(3)
        ),
        {"id": "D", "title": "Dimension Reduction", "abstract": "A reduction of dimension."},
    ]
    db = index.connect(index_of(tmp_path, papers, "first2026.jsonl"))
    assert search.search(db, "ransformers").corrected == "transformers"
    assert search.search(db, "einforcement learning").corrected == "reinforcement learning"
    conformal = search.search(db, "conformal rediction")  # reduction is as close and shares the first letter
    assert conformal.corrected == "conformal prediction"
    assert {r.paper["source_id"] for r in conformal.results} == {"P0", "P1", "P2"}
    assert search.search(db, "enforcement").corrected is None


def test_two_edits_correct_a_word_only_as_fingers_slip(tmp_path: Path) -> None:
    """`model stealing` (no paper here says stealing) was shown as *model scaling*, two edits away: two edits now
    keep the first two letters and strike a wrong letter only beside the right one on the keyboard, so neither
    scaling nor steering nor streaming is offered, while `reinfrocment` (a swap and a dropped letter) and
    `trabsformrs` (b beside n, one letter lost) are still corrected."""
    words = ["Scaling", "Steering", "Streaming", "Reinforcement", "Transformers"]
    papers = [
        {"id": f"{w[:3].upper()}{i}", "title": f"Model {w} {i}", "abstract": f"We study model {w.lower()}, run {i}."}
        for w in words
        for i in range(3)
    ]
    db = index.connect(index_of(tmp_path, papers, "slips2026.jsonl"))
    assert search.search(db, "model stealing").corrected is None
    assert search.search(db, "reinfrocment").corrected == "reinforcement"
    assert search.search(db, "trabsformrs").corrected == "transformers"


def test_a_fields_noun_finds_papers_that_use_its_adjective(tmp_path: Path) -> None:
    """`AI in medicine` found none of the medical papers (FTS5's stemmer keeps medicine and medical apart, as it
    does biology and biological, chemistry and chemical); a noun's adjective is searched beside it."""
    papers = [
        *(
            {"id": f"M{i}", "title": f"Medical Imaging with AI {i}", "abstract": f"Medical AI, study {i}."}
            for i in range(3)
        ),
        *(
            {"id": f"B{i}", "title": f"Biological Sequence Models {i}", "abstract": f"Sequences, run {i}."}
            for i in range(3)
        ),
        *({"id": f"X{i}", "title": f"Study {i}", "abstract": f"A policy for topic {i}."} for i in range(40)),
    ]
    db = index.connect(index_of(tmp_path, papers, "fields2026.jsonl"))
    assert {r.paper["source_id"] for r in search.search(db, "AI in medicine").results} == {"M0", "M1", "M2"}
    assert {r.paper["source_id"] for r in search.search(db, "biology").results} == {"B0", "B1", "B2"}
    assert search.search(db, "policy").total == 40  # (no adjective rule for every -y word: policy is no field)


def test_a_lost_first_letter_beats_a_stray_one_far_from_the_next_key(tmp_path: Path) -> None:
    """`nlearning` is unlearning with its u lost, not learning with a stray n (n is nowhere near l on a keyboard),
    however many more papers say learning and whatever the other words; `rtransformers` is a stray r beside t."""
    papers = [
        *(
            {"id": f"U{i}", "title": f"Machine Unlearning {i}", "abstract": f"Unlearning in LLMs, {i}."}
            for i in range(3)
        ),
        *(
            {"id": f"L{i}", "title": f"Learning Study {i}", "abstract": f"Learning in LLMs, run {i}."}
            for i in range(40)
        ),
        *({"id": f"T{i}", "title": f"Transformers {i}", "abstract": f"Transformers, study {i}."} for i in range(3)),
        {"id": "S", "title": "Stransformers Revisited", "abstract": "Stransformers transform twice."},
    ]
    db = index.connect(index_of(tmp_path, papers, "stray2026.jsonl"))
    assert search.search(db, "nlearning").corrected == "unlearning"
    assert search.search(db, "nlearning in LLMs").corrected == "unlearning in LLMs"
    assert search.search(db, "rtransformers").corrected == "transformers"


def test_a_slip_in_a_hyphenated_term_that_makes_real_words_or_drops_a_hyphen_is_corrected(tmp_path: Path) -> None:
    # "leaning" is a word (one paper leans), but no paper writes meta leaning, and five write meta-learning; a slip
    # at the first letter (sgent) or a hyphen left out (ofexperts) is a typo too. A compound papers write stays, and
    # a name typed in CamelCase is not rewritten into a word two letters away.
    papers = [
        *({"id": f"M{i}", "title": f"Meta-Learning for Task {i}", "abstract": f"Meta-learn {i}."} for i in range(5)),
        *({"id": f"N{i}", "title": f"Scaling Study {i}", "abstract": f"Learning rates in run {i}."} for i in range(50)),
        {"id": "L", "title": "The Leaning Tower", "abstract": "A leaning tower, the money we spent on it."},
        {"id": "A", "title": "Multi-Agent Games", "abstract": "Agents play."},
        {"id": "E", "title": "Mixture of Experts Routing", "abstract": "Experts route tokens."},
        {"id": "P", "title": "A Panel of Experts", "abstract": "Experts of all kinds."},
        *({"id": f"C{i}", "title": f"Long Context {i}", "abstract": f"The context is long, {i}."} for i in range(3)),
        {"id": "F", "title": "FlashAttention Kernels", "abstract": "Fast attention."},
        {"id": "H", "title": "Probing the Hidden State", "abstract": "What the hidden state holds."},
        {"id": "I", "title": "Information-Aware Agents", "abstract": "The information we have are few. Agents are."},
    ]
    db = index.connect(index_of(tmp_path, papers, "slips2026.jsonl"))
    real = search.search(db, "meta-leaning")
    assert real.corrected == "meta-learning"
    assert {r.paper["source_id"] for r in real.results} == {f"M{i}" for i in range(5)}
    assert search.search(db, "leaning-tower").corrected is None  # a paper writes it
    first = search.search(db, "multi-sgent")  # not multi-spent: no paper writes it
    assert (first.corrected, [r.paper["source_id"] for r in first.results]) == ("multi-agent", ["A"])
    dropped = search.search(db, "mixture-ofexperts")
    assert (dropped.corrected, [r.paper["source_id"] for r in dropped.results]) == ("mixture-of-experts", ["E"])
    # Two letters off is no slip of the fingers (v for t: keys far apart), typed in lower case or not: context is
    # only suggested. (It was the correction of `convnext` before two edits had to be slips.)
    lower = search.search(db, "convnext")
    assert (lower.corrected, lower.suggestions) == (None, ["context"])
    named = search.search(db, "ConvNeXt")  # a CamelCase name is corrected by one letter at most
    assert (named.corrected, named.results) == (None, [])
    assert search.search(db, "FlashAtention").corrected == "FlashAttention"  # in the capitals typed
    # Words run together, capitals marking where: split there, as papers write them.
    camel = search.search(db, "HiddenState")
    assert (camel.corrected, [r.paper["source_id"] for r in camel.results]) == ("Hidden State", ["H"])
    # "awre" is one letter from "are" too, which more papers use, and "information are" is in an abstract: a part
    # corrected into such a word gives way to the compound a paper writes.
    aware = search.search(db, "information-awre")
    assert (aware.corrected, [r.paper["source_id"] for r in aware.results]) == ("information-aware", ["I"])


def test_an_english_word_no_paper_uses_is_not_corrected_into_another(tmp_path: Path) -> None:
    # "suddenly" is in none of these abstracts and "sudden" in many: it was "corrected", and a description of
    # grokking became "sudden generalize".
    papers = [
        {"id": f"S{i}", "title": f"Sudden Drops in Loss {i}", "abstract": f"A sudden change in the loss, case {i}."}
        for i in range(6)
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    response = search.search(db, "networks that suddenly generalize")
    assert response.corrected is None, response.corrected
    assert search.search(db, "suddn drops").corrected == "sudden drops"  # (a real typo still is)
    db.conn.close()


def test_a_joined_spelling_finds_the_papers_that_hyphenate_it(tmp_path: Path) -> None:
    # ICML 2026: 59 papers write finetuning, 711 fine-tuning; typing the joined form found only the 59.
    papers = [
        *({"id": f"J{i}", "title": f"Finetuning Study {i}", "abstract": f"Finetuning case {i}."} for i in range(25)),
        *({"id": f"H{i}", "title": f"Fine-Tuning Study {i}", "abstract": f"Fine-tuning case {i}."} for i in range(40)),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    found = {str(r.paper["source_id"])[0] for r in search.search(db, "finetuning", limit=50).results}
    assert found == {"J", "H"}
    db.conn.close()


def test_a_comparison_keeps_what_both_sides_are_about(tmp_path: Path) -> None:
    # `diffusion vs autoregressive image generation`: image generation is what both sides are about; autoregressive
    # diffusion for audio or proteins (holding both sides' first words) once led the answer.
    papers = [
        *({"id": f"AUD{i}", "title": f"Autoregressive Diffusion for Audio Generation {i}",
           "abstract": f"Autoregressive diffusion makes audio, case {i}."} for i in range(4)),
        *({"id": f"DIF{i}", "title": f"Diffusion for Image Generation {i}",
           "abstract": f"Diffusion models generate images, case {i}."} for i in range(3)),
        *({"id": f"AR{i}", "title": f"Autoregressive Image Generation {i}",
           "abstract": f"Autoregressive models generate images token by token, case {i}."} for i in range(3)),
    ]  # fmt: skip
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    got = [
        str(r.paper["source_id"])
        for r in search.search(db, "diffusion vs autoregressive image generation", limit=6).results
    ]
    assert not any(s.startswith("AUD") for s in got), got
    assert {s[:2] for s in got} == {"DI", "AR"}
    db.conn.close()


def test_a_result_weighed_by_meaning_says_how_close_it_is_and_a_short_topic_is_not_weighed(
    seed_db: sqlite_utils.Database,
) -> None:
    described = search.search(seed_db, "compressing the memory used by attention when generating text", limit=5)
    closeness = [next((m for m in r.matched if m.startswith("meaning:")), None) for r in described.results]
    assert closeness
    assert all(c is not None and re.fullmatch(r"meaning:0\.\d\d", c) for c in closeness)
    named = search.search(seed_db, "kv cache", limit=5)
    assert named.results
    assert not any(m.startswith("meaning:") for r in named.results for m in r.matched)


def test_c_plus_plus_finds_the_papers_that_write_it_and_not_the_letter_c(tmp_path: Path) -> None:
    # `c++` was searched as the word "c": the C-index paper came first, though the docs said it stays empty.
    papers = [
        _paper("CPP", "Compiling Python to Fast Native Code", "We translate Python into C++ and compile it."),
        _paper("CIDX", "Stop Chasing the C-index", "The C-index (C) misleads survival analysis; we propose others."),
        _paper("ABC", "ABC++ for Likelihood-Free Inference", "Approximate Bayesian computation, improved: ABC++."),
        _paper("CS", "Code Generation for Scientific Software", "LLMs write C# and C code for simulations."),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    try:
        for query in ("c++", "C++", '"C++"', "papers on C++?"):
            response = search.search(db, query)
            assert source_ids(response) == ["CPP"], query
            assert response.total == 1, query
        assert source_ids(search.search(db, "c#")) == ["CS"]
        assert set(source_ids(search.search(db, "code -c++", limit=10))) == {"CS"}  # not every paper with a c
        assert "CIDX" in source_ids(search.search(db, "c index"))  # the letter alone is still the letter
    finally:
        db.conn.close()
