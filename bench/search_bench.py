"""Search latency at 19, 5,863 and ~110,000 papers, beside a plain FTS5 bm25 OR query over the same index.

Run: python bench/search_bench.py [--scale N] [--rounds R] [--build-only]

Measures the whole `bot.search.search` call (parsing, typo correction, acronyms, retrieval, ranking, snippets) for
every query of tests/relevance/ (with the longer questions typo'd too, and 80 ICML 2026 authors typed as listed, by
initial and with a typo) plus common-word, filter and junk queries, and the baseline (each word quoted,
OR-joined, ORDER BY bm25 rank LIMIT 5) in the same process over the same index. Also the time to open the index
and answer a first query in a fresh process (caches empty).

The ~110,000-paper index is the ../shared/data lists repeated `--scale` times with distinct ids, titles and
abstracts (bench/index_bench.py's make_large, plus a rotation of each copy's sentences so copies do not merge
as the same abstract). Building it takes minutes, so it is cached under the system temp dir, keyed by the sizes
and mtimes of the sources and the code that builds the index; reruns reuse it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import relevance  # noqa: E402
import sqlite_utils  # noqa: E402
from index_bench import make_large  # noqa: E402

from bot import search  # noqa: E402
from bot.papers import index  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
CACHE = Path(tempfile.gettempdir()) / "icml-bot-bench"
BUILD_CODE = ("bot/papers", "bot/text")  # every module that turns sources into an index
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")

EXTRA_QUERIES = [
    "language model",
    "learning",
    "large language models",
    "deep reinforcement learning",
    "neural network",
    "graph",
    "data",
    "model training",
    "efficient inference",
    "attention",
    "transformers",
    "optimization",
    "diffusion",
    "benchmark",
    "agents",
    "reasoning",
    "LLM",
    "MoE",
    "RAG",
    "RLHF",
    "kv cache -survey",
    '"kv cache" eviction',
    "author:hayou",
    "author:raffel tokenizer",
    "has:code diffusion",
    "status:oral",
    "status:spotlight reasoning",
    "title:transformer",
    "kvcache",
    "KV-cache",
    "mixture-of-experts",
    "tokeniser",
    "modelling",
    "c++",
    "a-b",
    "NEAR(a b)",
    "attention AND NOT",
    "col:term ^foo *",
    '"unbalanced',
    "🤖 llm",
    "注意力机制",
    "שלום עולם",
    "x" * 600,
    " ".join(["diffusion"] * 40),
    "\x00\x01 control",
]


def queries() -> list[str]:
    """Every labelled query (topics, titles, seeds, longer questions, people as listed and by initial), each with
    and without a typo where the set has one, plus common-word, operator and junk queries."""
    out = [q for q, _, _ in relevance.topics()] + [t for _, t, _ in relevance.topics()]
    out += [q for q, _ in relevance.titles()] + [q for q, _ in relevance.seeds()]
    longer = [q for q, _, _ in relevance.multiconcept()]
    out += longer + [relevance.typo_query(q) for q in longer]
    if relevance.ICML2026.exists():
        for person in relevance.people():
            forms = relevance.name_forms(person.name)
            out += [forms["as listed"], forms["initial"], forms["typo"]]
    return out + EXTRA_QUERIES


def distinct_copies(src: Path, out: Path) -> int:
    """make_large's output with each copy's sentences rotated, so the index keeps copies apart."""
    n = 0
    with src.open(encoding="utf-8") as fin, out.open("w", encoding="utf-8") as fout:
        for line in fin:
            rec = json.loads(line)
            m = re.search(r"-c(\d+)$", rec["id"])
            if m:
                copy = int(m.group(1))
                parts = _SENTENCE.split(rec["abstract"])
                k = copy % len(parts)
                rec["abstract"] = " ".join(parts[k:] + parts[:k]) if k else f"(copy {copy}) {rec['abstract']}"
            fout.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    return n


def cache_key(scale: int) -> str:
    """Sizes and mtimes of the sources plus the index-building code: a change rebuilds the cached index."""
    h = hashlib.sha256(f"scale={scale}".encode())
    for path in sorted(DATA.glob("*.jsonl")) + sorted((ROOT / "seeds").iterdir()):
        st = path.stat()
        h.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    for name in BUILD_CODE:
        for path in sorted((ROOT / name).rglob("*.py")):
            h.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    return h.hexdigest()[:16]


def large_index(scale: int, log: bool = True) -> Path:
    """The ~110,000-paper index, built once and cached (minutes the first time, instant afterwards)."""
    target = CACHE / f"large-{cache_key(scale)}.db"
    if target.exists():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in CACHE.glob("large-*.db*"):
        old.unlink()
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        raw, src = Path(tmp) / "raw.jsonl", Path(tmp) / "large.jsonl"
        make_large(raw, scale)
        n = distinct_copies(raw, src)
        if log:
            print(f"building the {n}-record index (cached in {CACHE}; takes a few minutes) …", file=sys.stderr)
        started = time.perf_counter()
        building = Path(tmp) / "papers.db"
        db = index.connect(building)
        index.load(db, [ROOT / "seeds"])
        index.load(db, [src])
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.conn.close()
        building.replace(target)
        if log:
            print(f"built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return target


def small_index(path: Path, sources: list[Path]) -> Path:
    return relevance.build(path, sources)


def baseline(db: sqlite_utils.Database, query: str) -> int:
    """The plain FTS5 bm25 OR query a first version of the bot ran."""
    return len(relevance.baseline_or(db, query))


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def first_query_ms(path: Path, query: str) -> float:
    """Open the index and answer one query in a fresh process (imports excluded, caches empty)."""
    code = (
        f"import sys, time; sys.path.insert(0, {str(ROOT)!r}); from bot import search; from bot.papers import index; "
        f"t = time.perf_counter(); db = index.connect({str(path)!r}, readonly=True); search.search(db, {query!r}); "
        "print((time.perf_counter() - t) * 1000)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def measure(path: Path, rounds: int) -> dict[str, float]:
    """p50/p99 of search and of the baseline over all queries, each run `rounds` times, interleaved so machine load
    hits both alike: over every run, and over each query's best run (at 110,000 papers the baseline takes
    ~0.1-1 s a query)."""
    db = index.connect(path, readonly=True)
    qs = queries()
    for q in qs:  # warm the OS cache and the per-index state once
        search.search(db, q)
    ours, base, cpu = [], [], []
    best_ours: dict[int, float] = {}
    best_base: dict[int, float] = {}
    stages: dict[str, float] = {}
    for _ in range(rounds):
        for i, q in enumerate(qs):
            t, c = time.perf_counter(), time.thread_time()
            response = search.search(db, q)
            ms = (time.perf_counter() - t) * 1000
            cpu.append((time.thread_time() - c) * 1000)
            ours.append(ms)
            best_ours[i] = min(ms, best_ours.get(i, ms))
            for stage, spent in response.stages.items():
                stages[stage] = stages.get(stage, 0.0) + spent
            t = time.perf_counter()
            baseline(db, q)
            ms = (time.perf_counter() - t) * 1000
            base.append(ms)
            best_base[i] = min(ms, best_base.get(i, ms))
    papers = db.execute("SELECT count(*) FROM papers").fetchone()[0]
    db.conn.close()
    runs = max(1, len(ours))
    return {
        **{f"stage {k}": v / runs for k, v in stages.items()},
        "papers": papers,
        "queries": len(qs),
        "p50": statistics.median(ours),
        "p99": percentile(ours, 0.99),
        "cpu_p99": percentile(cpu, 0.99),
        "base_p50": statistics.median(base),
        "base_p99": percentile(base, 0.99),
        "best_p50": statistics.median(best_ours.values()),
        "best_p99": percentile(list(best_ours.values()), 0.99),
        "best_base_p50": statistics.median(best_base.values()),
        "best_base_p99": percentile(list(best_base.values()), 0.99),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, default=6, help="copies of the shared lists for the large index")
    parser.add_argument("--rounds", type=int, default=5, help="times each query runs")
    parser.add_argument("--build-only", action="store_true", help="build (or find) the cached large index and exit")
    args = parser.parse_args()
    if not (DATA / "icml2026.jsonl").exists():
        sys.exit(f"needs {DATA}/icml2026.jsonl")
    if args.build_only:
        print(large_index(args.scale))
        return
    with tempfile.TemporaryDirectory() as tmp:
        corpora = [
            ("seeds", small_index(Path(tmp) / "seeds.db", []), None),
            ("icml2026 + seeds", small_index(Path(tmp) / "full.db", [DATA / "icml2026.jsonl"]), (5.0, 300.0)),
            (f"shared lists x{args.scale}", large_index(args.scale), (10.0, None)),
        ]
        print(
            f"{'index':22} {'papers':>7} {'queries':>7} {'p50 ms':>7} {'p99 ms':>7} {'cpu p99':>7} "
            f"{'bm25 OR p50':>11} {'p99':>6} {'open+1st ms':>11}  targets"
        )
        for label, path, target in corpora:
            r = measure(path, args.rounds)
            first = statistics.median(first_query_ms(path, q) for q in ("kv cache", "federated lerning", "MoE"))
            verdict = ""
            if target:
                p99_target, first_target = target
                verdict = f"p99 < {p99_target:.0f} ms: {_ok(r['p99'] < p99_target, r['best_p99'] < p99_target)}"
                if first_target:  # the 5,863-paper list: no slower than the plain FTS5 OR query at the median
                    p50_ok = _ok(r["p50"] <= r["base_p50"], r["best_p50"] <= r["best_base_p50"])
                    verdict += f"; p50 <= bm25 OR p50: {p50_ok}"
                    verdict += f"; open+1st < {first_target:.0f} ms: {'ok' if first < first_target else 'MISSED'}"
            print(
                f"{label:22} {r['papers']:>7} {r['queries']:>7} {r['p50']:>7.2f} {r['p99']:>7.2f} "
                f"{r['cpu_p99']:>7.2f} {r['base_p50']:>11.2f} {r['base_p99']:>6.2f} {first:>11.0f}  {verdict}"
            )
            print(
                f"{'':22} best of {args.rounds} per query: p50 {r['best_p50']:.2f} ms, p99 {r['best_p99']:.2f} ms; "
                f"baseline p50 {r['best_base_p50']:.2f}, p99 {r['best_base_p99']:.2f}; "
                f"p50 {r['best_p50'] / r['best_base_p50']:.2f}x the baseline's, "
                f"p99 {r['best_p99'] / r['best_base_p99']:.2f}x"
            )
            stages = {k.removeprefix("stage "): v for k, v in r.items() if k.startswith("stage ")}
            spent = sum(stages.values()) or 1.0
            print(
                f"{'':22} all runs: p50 {r['p50'] / r['base_p50']:.2f}x the baseline's, "
                f"p99 {r['p99'] / r['base_p99']:.2f}x; mean ms per stage: "
                + ", ".join(f"{k} {v:.3f} ({v / spent:.0%})" for k, v in stages.items())
            )
    print(
        "p50/p99: wall time of the whole search() call over every run; cpu p99: its thread CPU time; best of N: each"
        " query's fastest run, what a quiet machine gives (a neighbour's burst on these shared machines slows single"
        " runs); targets: all runs / best runs; bm25 OR: the baseline query, run as often, interleaved; open+1st:"
        " connect + first search, fresh process."
    )


def _ok(every_run: bool, best_runs: bool) -> str:
    """A target's verdict over every run and over each query's best run."""
    return "/".join("ok" if met else "MISSED" for met in (every_run, best_runs))


if __name__ == "__main__":
    main()
