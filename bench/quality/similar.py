"""The `Similar` answer beside a plain TF-IDF cosine baseline: how often the top 5 share the paper's ICML area.

Run: python -m bench similar [--papers 200] [--held-out 400] [--seed 2026] [--index PATH] [--scale 6]

For `--papers` random papers that have an `area` in ../shared/data/icml2026.jsonl (5,863 papers), both methods
pick five other papers, and the figure is the share of those 5 × N slots that hold a paper of exactly the same
`area` (a slot left empty counts as a miss). The same again for `--held-out` random papers of the held-out half:
bot.papers.related's settings were tuned only on papers whose id's SHA-1 starts with an even byte, so the papers
with an odd first byte never influenced them (no method here reads `area`; only the tuning looked at it).
"bot" is what `Similar` answers (bot.search.reader.Papers.similar);
the baseline is a TF-IDF cosine over title and abstract as scikit-learn's TfidfVectorizer does it by default
(lowercased words of two or more characters, raw counts, smoothed idf, L2-normalised vectors), in the same
process over the same index texts. Latencies are per paper, the bot's after five warm-up answers (the first answer
after a start loads the search cache), the baseline's after its vectors are built. The index
is built from the list first unless --index names one. With --scale N the neighbours step alone is also timed on the
first bot.papers.related.MOST_PAPERS papers (the largest index that stores neighbours) of the shared lists repeated
N times, as bench/speed/index.py builds them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.common import ICML2026, make_large
from bot.papers import about, index, related
from bot.papers import vectors as paper_vectors
from bot.search.reader import Papers
from bot.text import embedding

K = 5

# scikit-learn's default token pattern: words of two or more characters
_WORD = re.compile(r"\w\w+")


class TfidfCosine:
    """The baseline: title and abstract as TF-IDF vectors; neighbours by cosine, through an inverted index."""

    def __init__(self, texts: dict[str, str]) -> None:
        counts = {pid: Counter(_WORD.findall(text.lower())) for pid, text in texts.items()}
        df = Counter(w for c in counts.values() for w in c)
        n = len(counts)
        idf = {w: math.log((1 + n) / (1 + d)) + 1 for w, d in df.items()}
        self.vectors: dict[str, dict[str, float]] = {}
        self.postings: dict[str, list[tuple[str, float]]] = {}
        for pid, c in counts.items():
            vec = {w: tf * idf[w] for w, tf in c.items()}
            norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
            vec = {w: v / norm for w, v in vec.items()}
            self.vectors[pid] = vec
            for w, v in vec.items():
                self.postings.setdefault(w, []).append((pid, v))

    def similar(self, paper_id: str, k: int = K) -> list[str]:
        """The k papers of highest cosine with this one, itself excluded."""
        scores: dict[str, float] = {}
        for w, v in self.vectors[paper_id].items():
            for other, u in self.postings[w]:
                scores[other] = scores.get(other, 0.0) + v * u
        scores.pop(paper_id, None)
        return sorted(scores, key=lambda pid: (-scores[pid], pid))[:k]


def build(path: Path) -> float:
    """The index of the 5,863-paper list, by the production loader; returns the seconds its neighbours step takes."""
    db = index.connect(path)
    index.load(db, [ICML2026])
    started = time.perf_counter()
    with db.atomic():
        related.rebuild(db)  # again, to time the step alone
    seconds = time.perf_counter() - started
    db.conn.close()
    return seconds


def time_large(copies: int) -> None:
    """Wall and CPU seconds and peak memory of the neighbours step alone on the shared lists x `copies`."""
    with tempfile.TemporaryDirectory() as tmp:
        large = Path(tmp) / "large.jsonl"
        make_large(large, copies)
        with large.open(encoding="utf-8") as lines:
            texts = [(r["title"], r["abstract"] or "") for r in map(json.loads, lines)][: related.MOST_PAPERS]
    settings = related.DEFAULT
    wall, cpu = time.perf_counter(), time.process_time()
    vecs = related.vectors(texts, settings)
    split = time.perf_counter() - wall
    found = related.neighbours(vecs, settings)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"neighbours of {len(texts):,} papers: {wall:.1f} s ({cpu:.1f} s CPU; vectors {split:.1f} s), "
        f"peak memory of this process {peak:.0f} MB"
    )
    # The meaning step on top (bot.papers.about): the papers' own vectors are what the index stored already.
    model = embedding.model()
    stored = model.encode([paper_vectors.text_of(t, a) for t, a in texts])
    papers = paper_vectors.PaperVectors(np.arange(len(texts), dtype=np.int64), stored)
    wall, cpu = time.perf_counter(), time.process_time()
    space = about.space([(i, t, a) for i, (t, a) in enumerate(texts)], papers)
    assert space is not None
    related.blend(found, vecs, space, settings)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  + meaning (about vectors, nearest, blend): {wall:.1f} s ({cpu:.1f} s CPU), peak {peak:.0f} MB")


def held_out(paper_id: str) -> bool:
    """In the half of the papers that tuning bot.papers.related never looked at."""
    return hashlib.sha1(paper_id.encode()).digest()[0] % 2 == 1


def measure(
    name: str, find: Callable[[str], list[str]], sample: list[str], area: dict[str, str | None]
) -> tuple[str, float, float, float, int]:
    """(name, same-area share of the top-5 slots, p50 ms, p99 ms, papers with fewer than 5 answers)."""
    same = 0
    short = 0
    times = []
    for pid in sample:
        started = time.perf_counter()
        found = find(pid)[:K]
        times.append((time.perf_counter() - started) * 1000)
        short += len(found) < K
        same += sum(1 for other in found if area.get(other) == area[pid])
    cuts = statistics.quantiles(times, n=100)
    return name, same / (K * len(sample)), statistics.median(times), cuts[98], short


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=200, help="how many random papers with an area (200)")
    parser.add_argument("--held-out", type=int, default=400, help="how many random held-out papers (400)")
    parser.add_argument("--seed", type=int, default=2026, help="the sample's random seed (2026)")
    parser.add_argument("--scale", type=int, default=0, help="also time neighbours at the size cap, from lists x N")
    parser.add_argument("--index", type=Path, help="an index built from icml2026.jsonl (default: build one now)")
    args = parser.parse_args(argv)
    if args.index is None and not ICML2026.exists():
        print(f"{ICML2026} is not available", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        path = args.index
        if path is None:
            path = Path(tmp) / "papers.db"
            started = time.perf_counter()
            step = build(path)
            print(f"built the index in {time.perf_counter() - started - step:.1f} s, of which neighbours {step:.1f} s")
        papers = Papers(path)
        rows = list(papers.db.query("SELECT id, title, abstract, area FROM papers ORDER BY seq"))
        area = {r["id"]: (r["area"] or None) for r in rows}
        with_area = [r["id"] for r in rows if r["area"]]
        pick = random.Random(args.seed)
        samples = {
            "all papers": pick.sample(with_area, min(args.papers, len(with_area))),
            "held out": pick.sample(held := [p for p in with_area if held_out(p)], min(args.held_out, len(held))),
        }
        started = time.perf_counter()
        baseline = TfidfCosine({r["id"]: f"{r['title']} {r['abstract'] or ''}" for r in rows})
        built = time.perf_counter() - started
        print(
            f"{len(rows):,} papers, {len(with_area):,} with an area ({len(held):,} held out); seed {args.seed}; "
            f"baseline vectors built in {built:.1f} s"
        )
        print(f"{'':38} {'same area in top 5':>18} {'p50 ms':>8} {'p99 ms':>8} {'fewer than 5':>13}")
        for pid in with_area[:5]:
            papers.similar(pid, k=K)  # warm-up: the search cache loads on the first answer
        for label, sample in samples.items():
            results = [
                measure(
                    "bot: Papers.similar", lambda pid: [r.paper["id"] for r in papers.similar(pid, k=K)], sample, area
                ),
                measure("baseline: TF-IDF cosine", baseline.similar, sample, area),
            ]
            for name, share, p50, p99, short in results:
                print(f"{f'{label} ({len(sample)}), {name}':38} {share:>18.1%} {p50:>8.2f} {p99:>8.2f} {short:>13}")
    if args.scale:
        time_large(args.scale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
