"""A paper's whole title typed as the query finds that paper first (pinned, as its name or id would be): quoted
after `paper`, after a request for papers like it (whose answer is then the papers like it), with colons, quotes,
hyphens, question marks and LaTeX, pasted as the card shows it or as OpenReview writes it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from tests.support.marks import starred_notes
from tests.support.venue_index import index_of

GROKKING = "Grokking Finite-Dimensional Algebra"
LOOPED_LATEX = (
    r'$\mathcal{O}(\log n)$-Depth Transformers: Can "Looped" Models Learn Finite-State Automata Beyond the Training '
    r"Length? A Theoretical and Empirical Study"
)
LOOPED = (  # as the index keeps it and the card shows it
    'O(log n)-Depth Transformers: Can "Looped" Models Learn Finite-State Automata Beyond the Training Length? A '
    "Theoretical and Empirical Study"
)
SPIKING_LATEX = "A$^2$SG: Adaptive and Asymmetric Surrogate Gradients for Training Deep Spiking Neural Networks"
SPIKING = "A²SG: Adaptive and Asymmetric Surrogate Gradients for Training Deep Spiking Neural Networks"
# "... similar to From": a request's word
FROM_TOKENS = "From Tokens to Algebra: How Grokking Finite Groups Emerges"


def _paper(pid: str, title: str, abstract: str) -> dict[str, Any]:
    return {"id": pid, "title": title, "abstract": abstract, "authors": ["Ada Lovelace"]}


PAPERS = [
    _paper("T", GROKKING, "We train small networks on multiplication tables of finite-dimensional algebras. " * 2),
    # Papers that hold every word of `paper "<title>"`, the title's words among them: today's ranking puts them first.
    _paper(
        "R",
        "Revisiting Grokking Finite-Dimensional Algebra with Weight Decay",
        "In this paper we revisit grokking finite-dimensional algebra and show that weight decay speeds it up. " * 2,
    ),
    _paper("G1", "Grokking Modular Arithmetic", "We study grokking of modular arithmetic in small transformers. " * 2),
    _paper("G2", "Why Grokking Happens Late", "This paper explains grokking as slow circuit formation. " * 2),
    _paper("L", LOOPED_LATEX, "We prove looped transformers of logarithmic depth learn finite-state automata. " * 2),
    _paper(
        "L2",
        "Looped Transformers Learn Finite-State Automata Beyond the Training Length",
        f"This paper extends {LOOPED_LATEX} to looped models that extrapolate beyond the training length.",
    ),
    _paper("S", SPIKING_LATEX, "We train deep spiking neural networks with asymmetric surrogate gradients. " * 2),
    _paper(
        "S2",
        "Surrogate Gradients for Training Deep Spiking Neural Networks",
        "In this paper adaptive and asymmetric surrogate gradients train deep spiking neural networks. " * 2,
    ),
    _paper("F", FROM_TOKENS, "We follow grokking of finite groups from token embeddings to algebraic structure. " * 2),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite_utils.Database]:
    db = index.connect(index_of(tmp_path_factory.mktemp("titles"), PAPERS), readonly=True)
    yield db
    db.conn.close()


def first_title(db: sqlite_utils.Database, query: str) -> str:
    return str(search.search(db, query).results[0].paper["title"])


def test_the_index_keeps_the_titles_as_the_cards_show_them(db: sqlite_utils.Database) -> None:
    assert {LOOPED, SPIKING} <= {title for (title,) in db.execute("SELECT title FROM papers")}


@pytest.mark.parametrize(
    ("query", "title"),
    [
        (f'paper "{GROKKING}"', GROKKING),
        (f'paper "{LOOPED}"', LOOPED),  # quotes inside the quotes
        (f'paper "{LOOPED_LATEX}"', LOOPED),
        (f'paper "{SPIKING}"', SPIKING),
        (f'paper "{SPIKING_LATEX}"', SPIKING),
        (LOOPED, LOOPED),
    ],
    ids=["paper", "quotes-inside", "latex", "superscript", "superscript-latex", "pasted-alone"],
)
def test_a_quoted_title_after_paper_finds_that_paper_first(db: sqlite_utils.Database, query: str, title: str) -> None:
    assert first_title(db, query) == title


@pytest.mark.parametrize(
    ("query", "title"),
    [
        (f"papers similar to {GROKKING}", GROKKING),
        (f'papers similar to "{GROKKING}"', GROKKING),
        (f"work like {GROKKING}?", GROKKING),
        (f"papers similar to {LOOPED}", LOOPED),
        (f"papers like {LOOPED_LATEX}", LOOPED),
        (f"papers similar to {SPIKING}", SPIKING),
        # Its first word reads as part of the request
        (f"papers similar to {FROM_TOKENS}", FROM_TOKENS),
    ],
    ids=["similar", "similar-quoted", "work-like", "long", "latex", "superscript", "request-word-first"],
)
def test_papers_similar_to_a_title_are_the_papers_like_that_paper(
    db: sqlite_utils.Database, query: str, title: str
) -> None:
    response = search.search(db, query, limit=10)
    assert starred_notes(response)[0] == f"Papers like *{title}*"
    assert response.results
    assert title not in [r.paper["title"] for r in response.results]


def test_part_of_a_title_is_no_title(db: sqlite_utils.Database) -> None:
    response = search.search(db, "papers similar to Grokking Finite-Dimensional", limit=10)
    assert not starred_notes(response) or not starred_notes(response)[0].startswith("Papers like")
    assert not any(m.startswith("name:") for r in response.results for m in r.matched)


def test_a_title_still_obeys_exclusions(db: sqlite_utils.Database) -> None:
    response = search.search(db, f'paper "{GROKKING}" -multiplication', limit=10)
    assert GROKKING not in [r.paper["title"] for r in response.results]
