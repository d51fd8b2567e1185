"""Snippets: the matched words stressed as data, short, free of the abstract's Markdown, quick on huge abstracts."""

from __future__ import annotations

import re

import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st

from bot import search
from bot.search.groups import TermGroup
from bot.search.matching import Alternative
from bot.search.snippets import MARKUP_RE
from bot.text.marked import Strong, marked
from tests.support.marks import starred


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
