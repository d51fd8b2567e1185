"""What a venue scope costs: search latency on an index of several conferences, scoped beside unscoped.

Run: python -m bench venue [--rounds R]   (needs ../shared/data)

The index holds the seeds and every ../shared/data list (ICML 2026 main and workshops, ICML 2024, ICLR 2024,
ICLR 2026: ~18,500 papers), built once and cached under the system temp dir. Each query of bench/speed/search.py
runs three ways in the same process over the same index, interleaved query by query: the default scope (ICML 2026,
all tracks: a rowid filter), `venue:icml2024` (a small venue), and `venue:all` (no filter: the baseline). Also
checks the issue's case: which venue the first result for `kv cache` comes from, over all venues and by default.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from pathlib import Path

import sqlite_utils

from bench.common import ROOT, SHARED_DATA
from bench.speed.search import queries
from bot import search
from bot.papers import index
from bot.papers.venues import Scope

CACHE = Path(tempfile.gettempdir()) / "icml-bot-bench"


def venue_index() -> Path:
    """The seeds plus every shared list, cached by the lists' and the index code's contents."""
    sources = [ROOT / "seeds", *sorted(SHARED_DATA.glob("*.jsonl"))]
    h = hashlib.sha256()
    for path in sorted(SHARED_DATA.glob("*.jsonl")) + sorted((ROOT / "bot" / "papers").rglob("*.py")):
        st = path.stat()
        h.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    target = CACHE / f"venues-{h.hexdigest()[:16]}.db"
    if not target.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        for old in CACHE.glob("venues-*.db*"):
            old.unlink()
        part = target.with_suffix(".part")
        part.unlink(missing_ok=True)
        db = index.connect(part)
        for source in sources:  # one load per list, as an admin adds them
            index.load(db, [source])
        db.conn.close()
        part.rename(target)
    return target


def timings(
    db: sqlite_utils.Database, qs: list[str], modes: list[tuple[str, Scope]], rounds: int
) -> dict[str, list[float]]:
    """Milliseconds per search for each (query suffix, scope) mode, interleaved query by query so that the load of
    a shared machine falls on every mode alike (one warm-up pass first)."""
    out: dict[str, list[float]] = {suffix: [] for suffix, _ in modes}
    for q in qs:
        for suffix, scope in modes:
            search.search(db, q + suffix, scope=scope)
    for _ in range(rounds):
        for q in qs:
            for suffix, scope in modes:
                started = time.perf_counter()
                search.search(db, q + suffix, scope=scope)
                out[suffix].append((time.perf_counter() - started) * 1000)
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not (SHARED_DATA / "icml2026.jsonl").exists():
        print("needs ../shared/data (not part of the repository)")
        return 0
    path = venue_index()
    db = index.connect(path, readonly=True)
    papers = db.execute("SELECT count(*) FROM papers").fetchone()[0]
    venues = db.execute("SELECT venue, count(*) FROM papers GROUP BY 1 ORDER BY 2 DESC").fetchall()
    print(f"index: {papers:,} papers; " + ", ".join(f"{v} {n:,}" for v, n in venues))
    qs = [q for q in queries() if len(q) <= 500]
    print(f"{len(qs)} queries x {args.rounds} rounds; ms per search (p50 / p99 / mean)")
    labels = {
        " venue:all": "venue:all (no filter, baseline)",
        "": "default scope: ICML 2026, all tracks",
        " venue:icml2024": "venue:icml2024",
    }
    found = timings(db, qs, [(suffix, Scope()) for suffix in labels], args.rounds)
    for suffix, label in labels.items():
        t = found[suffix]
        print(f"  {label:40s} {pct(t, 0.5):6.2f} / {pct(t, 0.99):6.2f} / {statistics.mean(t):6.2f}")
    for q in ("kv cache venue:all", "kv cache"):
        top = search.search(db, q, limit=1, scope=Scope()).results
        print(f"  first result for {q!r}: {top[0].paper['venue'] if top else None}")
    db.conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
