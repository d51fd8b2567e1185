"""Indexing speed and peak memory at 5,863 and ~110,000 papers, beside a bare sqlite-utils insert + FTS baseline.

Run: python -m bench index [--scale N]   (needs ../shared/data; ~110,000 papers = the shared lists x 6)
Each measurement runs in a fresh subprocess so peak memory (max RSS) is its own.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, SHARED_DATA, make_large


def child(mode: str, source: str, db: str) -> None:
    """Index one source into one database and print seconds and peak RSS as JSON."""
    started = time.perf_counter()
    if mode == "bot":
        from bot.papers import index

        report = index.load(index.connect(db), [source])
        papers = report.papers
    else:
        import sqlite_utils

        base = sqlite_utils.Database(db)
        with open(source, encoding="utf-8") as fh:
            base.table("papers").insert_all(
                (json.loads(line) for line in fh), pk="id", alter=True, replace=True, batch_size=1000
            )
        base.table("papers").enable_fts(["title", "abstract"], fts_version="FTS5", tokenize="porter")
        papers = base["papers"].count
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"papers": papers, "seconds": seconds, "peak_mb": peak_mb}))


def measure(mode: str, source: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-m", "bench.speed.index", "--child", mode, str(source), str(Path(tmp) / "p.db")],
            check=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=int, default=6, help="copies of the shared lists for the large run")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    if not (SHARED_DATA / "icml2026.jsonl").exists():
        sys.exit(f"needs {SHARED_DATA}/icml2026.jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        large = Path(tmp) / "large.jsonl"
        total = make_large(large, args.scale)
        print(
            f"{'corpus':28} {'papers':>8} {'icml-bot s':>11} {'baseline s':>11} {'icml-bot MB':>12} {'baseline MB':>12}"
        )
        for label, source, target in (
            ("icml2026.jsonl", SHARED_DATA / "icml2026.jsonl", 10.0),
            (f"shared lists x{args.scale}", large, 120.0),
        ):
            bot = measure("bot", source)
            base = measure("baseline", source)
            verdict = "ok" if bot["seconds"] < target else f"over the {target:.0f} s target"
            print(
                f"{label:28} {bot['papers']:>8} {bot['seconds']:>11.1f} {base['seconds']:>11.1f} "
                f"{bot['peak_mb']:>12.0f} {base['peak_mb']:>12.0f}   {verdict}"
            )
        print(f"(large input: {total} records)")


if __name__ == "__main__":
    main()
