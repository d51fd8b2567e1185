"""Regression tests for bugs the robustness work found in search and lookups: paging that repeated papers, a total
that changed from page to page, and lone surrogates (possible in JSON payloads) reaching SQLite."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from tests.support.seed_ids import VEGAS

WORDS = [
    "model",
    "learning",
    "graph",
    "policy",
    "image",
    "text",
    "training",
    "data",
    "attention",
    "network",
    "robust",
    "sparse",
    "optimal",
    "neural",
    "kernel",
    "noise",
    "score",
    "sampling",
    "generative",
    "latent",
    "guidance",
    "denoising",
]


@pytest.fixture(scope="module")
def synthetic_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite_utils.Database]:
    """150 generated papers about diffusion (deterministic): more candidates than search re-ranks at once."""
    rng = random.Random(1)
    folder = tmp_path_factory.mktemp("synthetic")
    source = folder / "synthetic.jsonl"
    with source.open("w", encoding="utf-8") as fh:
        for n in range(150):
            body = " ".join(rng.choice(WORDS) for _ in range(60))
            abstract = (
                f"We study {' '.join(['diffusion'] * rng.randint(1, 6))} {body} and diffusion models for "
                f"{rng.choice(WORDS)} tasks."
            )
            title = (
                f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} with {'diffusion ' if n % 3 == 0 else ''}"
                f"{rng.choice(WORDS)} {n}"
            )
            fh.write(json.dumps({"id": f"s{n}", "title": title, "abstract": abstract}) + "\n")
    db = index.connect(folder / "papers.db")
    index.load(db, [source], workers=1)
    yield db
    db.conn.close()


def pages(db: sqlite_utils.Database, query: str, size: int = 5, count: int = 10) -> list[str]:
    """Paper ids as the More-results button pages through them: offset 0, 5, 10, …"""
    ids: list[str] = []
    for offset in range(0, size * count, size):
        ids += [r.paper["id"] for r in search.search(db, query, limit=size, offset=offset).results]
    return ids


@pytest.mark.parametrize("query", ["diffusion", "diffusion models", "noise sampling"])
def test_paging_through_results_shows_each_paper_once(synthetic_db: sqlite_utils.Database, query: str) -> None:
    paged = pages(synthetic_db, query)
    whole = [r.paper["id"] for r in search.search(synthetic_db, query, limit=50).results]
    assert len(whole) == 50  # ten full pages: more candidates than one re-ranking round
    assert len(paged) == len(set(paged)), f"{len(paged) - len(set(paged))} papers shown twice"
    assert paged == whole


def test_the_total_of_a_query_does_not_depend_on_the_page(synthetic_db: sqlite_utils.Database) -> None:
    totals = {
        offset: search.search(synthetic_db, "noise sampling", limit=5, offset=offset).total
        for offset in range(0, 160, 5)
    }
    assert len(set(totals.values())) == 1, totals
    # Past the first re-ranked candidates, and the later offsets run past the end
    assert totals[0] > 50


@pytest.mark.parametrize("call", ["get_paper", "similar"])
def test_lookups_take_any_python_string(seed_index_path: Path, call: str) -> None:
    db = index.connect(seed_index_path, readonly=True)
    try:
        if call == "get_paper":
            assert index.get_paper(db, f"{VEGAS}\ud800") is None
        else:
            assert list(search.similar(db, "\ud800", k=3)) == []
    finally:
        db.conn.close()
