"""Fixtures shared by the search tests: a small index with the authors, statuses and code links the seeds lack."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot.papers import index


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
