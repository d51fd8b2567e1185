"""A paper's name or id puts it first; a name that papers also use as a word pins nothing among other words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from tests.search.results import ids, source_ids
from tests.search.results import paper as _paper
from tests.support.seed_ids import DEFENSIVE_KV, KNAPSACK, MU_A, SCM_GRPO, TOKSUITE
from tests.support.venue_index import index_of


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


def test_a_title_typed_whole_is_not_taken_over_by_a_paper_named_by_one_of_its_words(tmp_path: Path) -> None:
    def paper(pid: str, title: str) -> dict[str, Any]:
        abstract = f"{title}. We study state space models for long sequences and report results on benchmarks."
        return {"id": pid, "title": title, "abstract": abstract, "authors": ["Ada Lovelace"]}

    titled = "Dynamic Fractal Mamba: A Neural Renormalization Group Flow for Scale-Invariant Sequence Modeling"
    db = index.connect(index_of(tmp_path, [paper("F", "FRACTAL: State Space Models"), paper("D", titled)]))
    assert search.search(db, titled).results[0].paper["source_id"] == "D"
    # Its name, named
    assert search.search(db, "fractal sequence models").results[0].paper["source_id"] == "F"
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
    # The term, not papers called PAC
    assert all(str(r.paper["source_id"]).startswith("B") for r in bounds.results)
    # The name alone, or beside words that only say which paper
    for alone in ("PAC", "the PAC method"):
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
    # alone, it is the name
    assert search.search(db, "lottery").results[0].matched[0] == "name:lottery"
    db.conn.close()
