"""What meaning costs: index time, search latency and memory fused with BM25, beside the lexical engine alone.

Both in one run over the same index.

Run: python -m bench meaning [--rounds R] [--scale N]     (needs ../shared/data)

- Index time: loading the seeds and ICML 2026 (5,863 papers) as `icml-bot index` does, and of that the part that
  embeds every paper (bot.papers.vectors.rebuild, timed again on its own over the built index).
- Search: every query of bench/speed/search.py plus the graded set's, R rounds, interleaved, with the default
  fusion and with `LEXICAL_ONLY` (the lexical order alone, as before meaning): p50, p90, p99 and their ratios.
- Memory: the model's token table and the papers' vector matrix, and the process's resident size after a search.
- `--scale N`: the same over bench/speed/search.py's cached ~18,500×N-paper index (N=6: ~110,000 papers), p99 only.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import sqlite_utils

import bench.speed.search as search_bench
from bench import common, sets
from bot import search
from bot.papers import index, vectors
from bot.search.cache import index_cache
from bot.search.weights import DEFAULT, LEXICAL_ONLY, Weights
from bot.text import embedding


def timings(db: sqlite_utils.Database, queries: list[str], rounds: int) -> dict[str, list[float]]:
    """Milliseconds per search, by fusion, the two interleaved query by query so drift hits both alike."""
    fusions: dict[str, Weights] = {"fused": DEFAULT, "lexical only": LEXICAL_ONLY}
    out: dict[str, list[float]] = {name: [] for name in fusions}
    for fusion in fusions.values():  # warm: caches, vectors, model
        search.search(db, "kv cache", weights=fusion)
    for _ in range(rounds):
        for query in queries:
            for name, fusion in fusions.items():
                started = time.perf_counter()
                search.search(db, query, weights=fusion)
                out[name].append((time.perf_counter() - started) * 1000)
    return out


def report(label: str, times: dict[str, list[float]]) -> None:
    """p50/p90/p99 per fusion and the ratios of fused to lexical only."""
    p = search_bench.percentile
    for name, values in times.items():
        print(
            f"{label:24} {name:14} p50 {p(values, 0.5):7.2f} ms  p90 {p(values, 0.9):7.2f}  p99 {p(values, 0.99):7.2f}"
        )
    fused, lexical = times["fused"], times["lexical only"]
    print(
        f"{label:24} {'fused / lexical':14} p50 {p(fused, 0.5) / p(lexical, 0.5):6.2f}x"
        f"  p99 {p(fused, 0.99) / p(lexical, 0.99):6.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=int, default=0, help="also the cached large index of this many copies")
    args = parser.parse_args()
    if not common.ICML2026.exists():
        sys.exit(f"needs {common.ICML2026}")
    queries = search_bench.queries() + [q.text for q in sets.graded_queries()]
    started = time.perf_counter()
    model = embedding.model()
    print(f"model {model.name}: {model.table.nbytes / 1e6:.1f} MB in memory, loaded in "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        path = common.build(Path(tmp) / "full.db", [common.ICML2026])
        load = time.perf_counter() - started
        db = index.connect(path)
        started = time.perf_counter()
        with db.atomic():
            vectors.rebuild(db)
        embed = time.perf_counter() - started
        papers = db["papers"].count
        print(
            f"index of {papers} papers: {load:.1f} s, of which embedding {embed:.1f} s; without it {load - embed:.1f} s"
            f" (with / without: {load / max(load - embed, 1e-9):.2f}x)"
        )
        db.conn.close()
        db = index.connect(path, readonly=True)
        report(f"{papers} papers", timings(db, queries, args.rounds))
        matrix = index_cache(db).vectors(db)
        print(f"paper vectors: {matrix.megabytes if matrix else 0:.1f} MB; process resident size (max) "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")  # fmt: skip
    if args.scale:
        db = index.connect(search_bench.large_index(args.scale), readonly=True)
        n = db["papers"].count
        times = timings(db, queries, 1)
        report(f"{n} papers", times)
        matrix = index_cache(db).vectors(db)
        print(f"paper vectors at {n} papers: {matrix.megabytes if matrix else 0:.1f} MB")


if __name__ == "__main__":
    main()
