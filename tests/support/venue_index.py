"""Indexes built by the production loader for venue and swap tests: build_venue_index (the 19 ICML 2026 seeds, ICML
2024 papers whose titles match `kv cache` better than any seed's, an ICML 2026 position and a workshop paper),
build (the seeds plus a few papers, e.g. NEW_PAPER, to rename in over an index being served), and index_of (just
the papers a test writes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.papers import index
from tests.support.paths import SEEDS


def _paper(pid: str, year: int, track: str, title: str, topic: str) -> dict[str, Any]:
    abstract = (
        f"We study {topic} for large language model inference. {title} is our method: it keeps serving fast and "
        f"memory small on long inputs, and we evaluate it on standard long-context benchmarks against strong baselines."
    )
    return {
        "id": pid,
        "conference": "ICML",
        "year": year,
        "track": track,
        "title": title,
        "abstract": abstract,
        "authors": ["Ada Lovelace", "Alan Turing"],
        "url": f"https://openreview.net/forum?id={pid}",
    }


ICML2024_KV = [
    _paper("kv2024a", 2024, "main", "KV Cache Compression: KV Cache Quantization for KV Cache Serving", "kv cache"),
    _paper("kv2024b", 2024, "main", "KV Cache Eviction with KV Cache Budgets", "kv cache"),
    _paper("kv2024c", 2024, "main", "Paged KV Cache for KV Cache Reuse", "kv cache"),
]
POSITION = _paper("pos2026a", 2026, "position", "Position: KV Cache Research Needs Shared Benchmarks", "kv cache")
WORKSHOP = _paper("ws2026a", 2026, "workshop", "Streaming KV Cache Sketches", "kv cache")


def write_jsonl(path: Path, papers: list[dict[str, Any]]) -> Path:
    """Papers as a JSON Lines source file."""
    path.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    return path


def build_venue_index(folder: Path) -> Path:
    """The seeds, then ICML 2024, the position paper and the workshop paper, each file loaded as `icml-bot index`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS])
    index.load(
        db,
        [
            write_jsonl(folder / "icml2024.jsonl", ICML2024_KV),
            write_jsonl(folder / "icml2026-extra.jsonl", [POSITION, WORKSHOP]),
        ],
    )
    db.conn.close()
    return path


NEW_PAPER = {"id": "ZORB1", "title": "Zorblatting Transformers", "abstract": "We introduce zorblatting. " * 6}


def build(folder: Path, extra: list[dict[str, str]]) -> Path:
    """An index of the seeds plus `extra`, built by the production loader."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "papers.db"
    db = index.connect(path)
    sources: list[Path] = [SEEDS]
    if extra:
        (folder / "extra.jsonl").write_text("".join(json.dumps(p) + "\n" for p in extra), encoding="utf-8")
        sources.append(folder / "extra.jsonl")
    index.load(db, sources)
    db.conn.close()
    return path


def index_of(folder: Path, papers: list[dict[str, Any]], source: str = "papers.jsonl") -> Path:
    """An index of just these papers (from one source file named `source`), built by the production loader."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "papers.db"
    db = index.connect(path)
    index.load(db, [write_jsonl(folder / source, papers)])
    db.conn.close()
    return path


def _iclr(pid: str, year: int, title: str, topic: str) -> dict[str, Any]:
    return {**_paper(pid, year, "main", title, topic), "conference": "ICLR"}


ICLR2024 = [
    _iclr("iclr24kv1", 2024, "Quantized KV Cache for Long Prompts", "kv cache"),
    _iclr("iclr24g1", 2024, "Graph Rewiring for Message Passing", "graph rewiring"),
    _iclr("iclr24g2", 2024, "Curvature Aware Graph Pooling", "graph pooling"),
    _iclr("iclr24g3", 2024, "Spectral Graph Sparsification at Scale", "graph sparsification"),
]
ICLR2026 = [
    _iclr("iclr26kv1", 2026, "KV Cache Merging Across Layers", "kv cache"),
    _iclr("iclr26kv2", 2026, "Learned KV Cache Eviction Policies", "kv cache"),
    _iclr("iclr26kv3", 2026, "KV Cache Offloading for Agents", "kv cache"),
    _iclr("iclr26g1", 2026, "Graph Transformers Without Positional Encodings", "graph transformers"),
]


def build_four_venue_index(folder: Path) -> Path:
    """build_venue_index's ICML 2026 and ICML 2024, plus ICLR 2024 and ICLR 2026 (kv cache in some papers of each),
    each file loaded as `icml-bot index`: four venues over two years, for trend charts."""
    path = build_venue_index(folder)
    db = index.connect(path)
    index.load(db, [write_jsonl(folder / "iclr2024.jsonl", ICLR2024), write_jsonl(folder / "iclr2026.jsonl", ICLR2026)])
    db.conn.close()
    return path
