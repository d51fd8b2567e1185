"""Questions asked in words are searched by their topic; topics that merely look like requests are left alone."""

from __future__ import annotations

import pytest

from bot.search import query as ql


def topic(text: str) -> list[str]:
    return [t.text for t in ql.parse(text).terms]


@pytest.mark.parametrize(
    ("asked", "about"),
    [
        ("papers on grokking", ["grokking"]),
        ("any recent work about KV cache?", ["KV", "cache"]),
        ("what are the best methods for kv cache compression?", ["kv", "cache", "compression"]),
        ("what's new in diffusion?", ["diffusion"]),
        ("I'm looking for papers about tokenizers", ["tokenizers"]),
        ("has anyone worked on model merging?", ["model", "merging"]),
        ("which papers study grokking?", ["grokking"]),
        ("what is the state of the art in protein design", ["protein", "design"]),
        ("can you find papers related to speculative decoding?", ["speculative", "decoding"]),
        ("papers on new benchmarks", ["new", "benchmarks"]),  # the request ends at "on"; "new" is the topic's
        ("grokking papers", ["grokking"]),
        ("papers by Mohit Bansal", ["Mohit", "Bansal"]),
    ],
)
def test_a_question_is_searched_by_its_topic(asked: str, about: list[str]) -> None:
    assert topic(asked) == about


@pytest.mark.parametrize(
    "text",
    [
        "best arm identification",  # "best" describes nothing asked for
        "research agents",  # "research" leads into nothing
        "new benchmarks for reasoning",
        "papers",  # nothing would be left
        "on the convergence of adam",  # function words only: no request
        "using LLMs for theorem proving",
        "Which Heads Matter for Reasoning?",
        "Show Me the Work: Fact-Checkers' Requirements for Explainable Automated Fact-Checking",
    ],
)
def test_a_topic_that_looks_like_a_request_is_left_whole(text: str) -> None:
    assert len(topic(text)) == len(text.split())


def test_quoted_negated_and_fielded_terms_are_never_a_request() -> None:
    assert topic('"papers on" grokking') == ["papers on", "grokking"]
    assert topic("-papers on grokking") == ["papers", "on", "grokking"]
    assert topic("author:papers on grokking") == ["papers", "on", "grokking"]
    assert topic("status:oral papers on grokking") == ["grokking"]  # filters are not terms: the request still leads
