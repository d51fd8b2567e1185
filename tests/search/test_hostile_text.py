"""Any text, however hostile, gets the answer its words deserve: operators, FTS5 and SQL syntax are only words."""

from __future__ import annotations

import pytest
import sqlite_utils
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot import search
from bot.search import query as ql
from tests.search.results import ids
from tests.support.marks import starred_notes
from tests.support.seed_ids import DEFENSIVE_KV, RACO, SCM_GRPO, VEGAS, VIEWMASK

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
    # An unknown field is text: the words "col term", which no paper has side by side
    ("col:term", []),
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
    # A trailing "papers" asks for papers: no word
    ("'; DROP TABLE models; --", "drop table models"),
    ("%_%", NOTHING),
    ("\\", NOTHING),
    ("author:", []),
    ("has:", "has"),
    # as the word status, which no seed writes (an English word: not "corrected" into another)
    ("status:", []),
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
# An idea of function words alone (AND-AND)
@example(parts=['"', "NOT", '"', "has:", " ", "AND", "-", "AND"])
# BM25 once asked "not" alone of `title:NOT`
@example(parts=["kv", " ", "status:", " ", ":", "title:", "NOT"])
# BM25 once OR'd "and": papers holding nothing
@example(parts=[":", "author:", "AND", " ", "status:", " ", "NOT"])
# BM25 once asked "not" alone of the compound `AND:NOT`
@example(parts=["ANDAND", " ", "AND:NOT", " ", "kv"])
def test_operator_soup_is_searched_as_text(seed_db: sqlite_utils.Database, parts: list[str]) -> None:
    for text in ("".join(parts), " ".join(parts)):
        response = search.search(seed_db, text)
        assert_a_sound_answer(response, text, 5)
        # Exclusions alone list papers without a reason
        if any(not t.negated for t in ql.parse(text).terms):
            # Each result shows which of kv, cache, ... it holds
            assert all(r.matched for r in response.results)


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
        # "graph", not graph neural networks
        ("adversarial robustness of graph neural networks", SCM_GRPO),
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
