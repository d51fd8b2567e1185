"""Acronyms: pairs learned from abstracts with their letters checked, and an acronym finding its long form and back."""

from __future__ import annotations

import re
from pathlib import Path

import sqlite_utils

from bot import search
from bot.papers import index
from bot.text import acronyms
from tests.search.results import ids
from tests.search.results import paper as _paper
from tests.support.paths import needs_shared_data
from tests.support.seed_ids import KNAPSACK, SCM_GRPO, SOFTMOE
from tests.support.venue_index import index_of


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
    # Spelled out by 2 of its 3 papers
    assert {r.paper["source_id"] for r in rope.results} == {"R1", "R2", "R3"}
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
