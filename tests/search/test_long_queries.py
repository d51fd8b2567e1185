"""Queries holding several ideas: papers whose titles carry all of them come first, and the bench learns where the
time of a search goes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index

TOPICS = ["sharpness", "pruning", "distillation", "calibration", "quantization", "routing", "tokenization",
          "curriculum", "augmentation", "regularization", "initialization", "normalization"]  # fmt: skip
FILLER = " We report experiments on standard benchmarks and release code for the community."
PAPERS = [
    {
        "id": "EXP",
        "title": "The Expressivity Limits of Transformers",
        "abstract": "We give a theoretical account of what transformers can and cannot compute, and prove that "
        "their expressivity is bounded by constant-depth circuits." + FILLER,
    },
    *(
        {
            "id": f"ALL{i}",
            "title": f"{topic.capitalize()} at Scale",
            "abstract": f"We study {topic} in deep networks. Our theory covers transformers and other networks; "
            f"expressivity is one of several properties of {topic} we measure." + FILLER,
        }
        for i, topic in enumerate(TOPICS)
    ),
    {
        "id": "OTHER",
        "title": "Expressivity of Graph Networks",
        "abstract": "We study message passing expressivity with the Weisfeiler-Leman test." + FILLER,
    },
]


@pytest.fixture
def theory_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    source = tmp_path / "ideas2026.jsonl"
    source.write_text("".join(json.dumps({**p, "authors": ["A. Author"]}) + "\n" for p in PAPERS), encoding="utf-8")
    db = index.connect(tmp_path / "ideas.db")
    index.load(db, [source])
    yield db
    db.conn.close()


def test_a_title_with_every_idea_beats_abstracts_that_mention_all_words(theory_db) -> None:  # type: ignore[no-untyped-def]
    # FTS5 stems "theory" and "theoretical" apart, so only the twelve papers that mention every word in passing
    # match the query as FTS5 sees it; the paper whose title is the question says "theoretical" in its abstract.
    response = search.search(theory_db, "theory of transformers expressivity", limit=5)
    got = [r.paper["source_id"] for r in response.results]
    assert got[0] == "EXP"
    assert set(got[1:]) < {f"ALL{i}" for i in range(len(TOPICS))}
    assert response.total == len(TOPICS) + 1


def test_every_answer_says_where_its_time_went(theory_db) -> None:  # type: ignore[no-untyped-def]
    response = search.search(theory_db, "transformers expressivity")
    assert list(response.stages) == ["parse", "plan", "retrieve", "rank", "snippets"]
    assert all(ms >= 0 for ms in response.stages.values())
    assert sum(response.stages.values()) <= response.took_ms


@pytest.mark.parametrize(
    ("query", "first", "corrected"),
    [
        (
            "self-speculatve decoding with sparse attention for long context",
            "yg1gm3",  # Vegas
            "self-speculative decoding with sparse attention for long context",
        ),
        ("MoE routing for sparse mixture models", "mehwh5", None),  # SoftMoE: the acronym inside a longer question
        (
            "identifying critical kv cahce entries for LLM inference compression",
            "txyyds",  # DefensiveKV
            "identifying critical kv cache entries for LLM inference compression",
        ),
    ],
)
def test_typos_and_acronyms_keep_working_inside_longer_questions(  # type: ignore[no-untyped-def]
    seed_db, query: str, first: str, corrected: str | None
) -> None:
    response = search.search(seed_db, query)
    assert response.results[0].paper["id"] == first
    assert response.corrected == corrected
