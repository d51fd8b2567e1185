"""Search latency at 19, 5,863 and ~110,000 papers, beside a plain FTS5 bm25 OR query over the same index.

Run: python -m bench search [--scale N] [--rounds R] [--build-only]
     python -m bench search --cold [--runs N] [--before GIT-REF] [--index PATH]

Measures the whole `bot.search.search` call (parsing, typo correction, acronyms, retrieval, ranking, snippets) for
every query of tests/relevance/ (with the longer questions typo'd too, and 80 ICML 2026 authors typed as listed, by
initial and with a typo) plus common-word, filter and junk queries, and the baseline (each word quoted,
OR-joined, ORDER BY bm25 rank LIMIT 5) in the same process over the same index. Also the time to open the index
and answer a first query in a fresh process (caches empty).

`--cold` times, at ~110,000 papers, the first query of fresh processes per kind of query (one word, a typo, four
words, an author), each process opening the index and answering one query as `icml-bot search` does (its venues
scope, imports before the clock starts; the whole process's wall time beside), interleaved with the same query in
plain FTS5 (bm25, every word OR'd) in a fresh process, and `--before REF`'s code (exported from git) in a fresh
process; and beside them the same queries warm (one process, its look-ups kept: a server's steady state). Medians.

The ~110,000-paper index is the ../shared/data lists repeated `--scale` times with distinct ids, titles and
abstracts (bench/speed/index.py's make_large, plus a rotation of each copy's sentences so copies do not merge
as the same abstract). Building it takes minutes, so it is cached under the system temp dir, keyed by the sizes
and mtimes of the sources and the code that builds the index; reruns reuse it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlite_utils

from bench import common, sets
from bench.common import ROOT, SHARED_DATA, make_large
from bot import search
from bot.papers import index

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
    out = [q for q, _, _ in sets.topics()] + [t for _, t, _ in sets.topics()]
    out += [q for q, _ in sets.titles()] + [q for q, _ in sets.seeds()]
    longer = [q for q, _, _ in sets.multiconcept()]
    out += longer + [sets.typo_query(q) for q in longer]
    if common.ICML2026.exists():
        for person in sets.people():
            forms = sets.name_forms(person.name)
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
    for path in sorted(SHARED_DATA.glob("*.jsonl")) + sorted((ROOT / "seeds").iterdir()):
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
    return common.build(path, sources)


def baseline(db: sqlite_utils.Database, query: str) -> int:
    """The plain FTS5 bm25 OR query a first version of the bot ran."""
    return len(common.baseline_or(db, query))


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def first_query_ms(path: Path, query: str) -> float:
    """Open the index and answer one query in a fresh process (imports excluded, caches empty)."""
    code = (
        f"import time; from bot import search; from bot.papers import index; "
        f"t = time.perf_counter(); db = index.connect({str(path)!r}, readonly=True); search.search(db, {query!r}); "
        "print((time.perf_counter() - t) * 1000)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


COLD_QUERIES = {  # per kind of query: what a one-shot `icml-bot search` of it reads differs
    "1 word": ("grokking", "diffusion", "transformers"),
    # Issue 40: 1,415 ms
    "typo": ("federated lerning", "speculatve decodng", "test time scalling"),
    "4 words": (
        "sparse attention long context",
        "reinforcement learning human feedback",
        "graph neural network robustness",
    ),
    "author": ("Sergey Levine", "Yejin Choi", "S. Levine"),
}
COLD_TARGET_MS = 300.0  # issue 40: a fresh process's first query at ~110,000 papers
# Each runs as `python -c` in the checkout whose bot/ it times: -c puts the working directory first on sys.path.
_COLD_CODE = """
import json, os, sys, time
started = time.perf_counter()
from bot import search
from bot.config import parse_venues
from bot.papers.reading import ReadOnly, read_only
imported = time.perf_counter()
db = ReadOnly(read_only({path!r}))
search.search(db, {query!r}, limit=5, scope=parse_venues(os.environ.get("ICML_BOT_VENUES", "")))
print(json.dumps([(imported - started) * 1000, (time.perf_counter() - imported) * 1000]))
"""
_FTS5_CODE = """
import json, sqlite3, sys, time
import bot.papers.fts
from bench.common import baseline_plain
imported = time.perf_counter()
db = sqlite3.connect({uri!r}, uri=True)
baseline_plain(db, {query!r})
print(json.dumps([0.0, (time.perf_counter() - imported) * 1000]))
"""


_PUBLISH_CODE = """
import json, sys, time
from pathlib import Path
from bot.papers.publish import publish
from bot.search.reader import Papers
publish(Path({old!r}), Path({live!r}))
served = Papers({live!r})
served.warm().join()
publish(Path({new!r}), Path({live!r}))
out = []
for query in {queries!r}:
    started = time.perf_counter()
    served.search(query)
    out.append((time.perf_counter() - started) * 1000)
print(json.dumps(out))
"""


def _after_publish(codes: dict[str, Path], path: Path, folder: Path) -> dict[str, list[float]]:
    """Per code: the first searches of a warmed server after a new index is renamed over its file (a copy of `path`
    one load later), each query another kind."""
    new, live = folder / "published.db", folder / "live" / "papers.db"
    live.parent.mkdir()
    source, conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True), sqlite3.connect(new)
    source.backup(conn)
    source.close()
    # A new version of the index
    conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
    conn.commit()
    conn.close()
    queries = [kind[0] for kind in COLD_QUERIES.values()]
    out = {}
    for name, code in codes.items():
        command = _PUBLISH_CODE.format(old=str(path), new=str(new), live=str(live), queries=queries)
        done = subprocess.run([sys.executable, "-c", command], cwd=code, capture_output=True, text=True, check=True)
        out[name] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def _fresh(code: str, checkout: Path) -> tuple[float, float, float]:
    """(imports ms, open + first query ms, whole process ms) of one fresh interpreter running `code` in `checkout`."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True)
    wall = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"a cold run failed: {done.stderr.strip()[-800:]}")
    imports, first = json.loads(done.stdout.strip().splitlines()[-1])
    return imports, first, wall


def _warm_ms(path: Path, queries: tuple[str, ...], runs: int) -> list[float]:
    """Each query's search times in one process whose whole-corpus look-ups are kept (a server after warming)."""
    from bot.config import parse_venues
    from bot.papers.reading import ReadOnly, read_only
    from bot.search.cache import index_cache

    scope = parse_venues(os.environ.get("ICML_BOT_VENUES", ""))
    db = ReadOnly(read_only(path))
    index_cache(db).load_whole(db)
    out = []
    for query in queries:
        search.search(db, query, scope=scope)
        for _ in range(runs):
            started = time.perf_counter()
            search.search(db, query, limit=5, scope=scope)
            out.append((time.perf_counter() - started) * 1000)
    db.conn.close()
    return out


def cold(path: Path, runs: int, before: str | None) -> None:
    """The --cold table: per kind of query, fresh processes' first query now, before REF and in plain FTS5."""
    with tempfile.TemporaryDirectory() as tmp:
        codes = {"icml-bot": ROOT}
        if before:
            folder = Path(tmp) / "before"
            folder.mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", before, "bot"], check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
            codes["before"] = folder
        for code in codes.values():  # (bytecode written first, as pip leaves an installed package)
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "bot")], check=True)
        papers = index.connect(path, readonly=True)
        n = papers.execute("SELECT count(*) FROM papers").fetchone()[0]
        papers.conn.close()
        uri = f"{path.resolve().as_uri()}?mode=ro"
        print(f"First query of a fresh process at {n:,} papers, {runs} runs per query, medians in ms (open + search;")
        print("the whole process, imports and start-up included, in brackets); warm: the same search, look-ups kept.")
        header = f"  {'kind':8} {'icml-bot':>17}" + (f" {'before':>17}" if before else "")
        print(header + f" {'plain FTS5':>11} {'warm':>6}  target <= {COLD_TARGET_MS:.0f} ms")
        for kind, queries in COLD_QUERIES.items():
            times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in [*codes, "FTS5"]}
            for run in range(runs):
                for query in queries:
                    commands = {name: _COLD_CODE.format(path=str(path), query=query) for name in codes}
                    commands["FTS5"] = _FTS5_CODE.format(uri=uri, query=query)
                    order = list(commands) if run % 2 == 0 else list(reversed(commands))
                    for name in order:
                        times[name].append(_fresh(commands[name], codes.get(name, ROOT)))
            warm = statistics.median(_warm_ms(path, queries, runs))
            med = {name: [statistics.median(t[i] for t in got) for i in range(3)] for name, got in times.items()}
            cells = [f"{med[name][1]:7.0f} [{med[name][2]:5.0f}]" for name in codes]
            ok = "ok" if med["icml-bot"][1] <= COLD_TARGET_MS else "MISSED"
            print(f"  {kind:8} " + " ".join(f"{c:>17}" for c in cells) + f" {med['FTS5'][1]:11.1f} {warm:6.1f}  {ok}")
            print(f"  {'':8} ({', '.join(queries)})")
        published = _after_publish(codes, path, Path(tmp))
        kinds = ", ".join(f"{kind} ({queries[0]})" for kind, queries in COLD_QUERIES.items())
        print(f"A warmed server's searches right after a new index is published over its file, in turn: {kinds}, ms:")
        for name, after in published.items():
            print(f"  {name:8} " + " ".join(f"{t:7.0f}" for t in after))


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
    parser.add_argument("--cold", action="store_true", help="fresh processes' first query at ~110,000 papers")
    parser.add_argument("--runs", type=int, default=5, help="--cold: fresh processes per query (default 5)")
    parser.add_argument("--before", metavar="REF", help="--cold: also time the code of this commit (e.g. main)")
    parser.add_argument("--index", type=Path, help="--cold: an index to time instead of the cached large one")
    args = parser.parse_args()
    if args.index is None and not (SHARED_DATA / "icml2026.jsonl").exists():
        sys.exit(f"needs {SHARED_DATA}/icml2026.jsonl")
    if args.build_only:
        print(large_index(args.scale))
        return
    if args.cold:
        cold(args.index or large_index(args.scale), args.runs, args.before)
        return
    with tempfile.TemporaryDirectory() as tmp:
        corpora = [
            ("seeds", small_index(Path(tmp) / "seeds.db", []), None),
            ("icml2026 + seeds", small_index(Path(tmp) / "full.db", [SHARED_DATA / "icml2026.jsonl"]), (5.0, 300.0)),
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
                # The 5,863-paper list: no slower than the plain FTS5 OR query at the median
                if first_target:
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
