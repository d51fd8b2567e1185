"""Relevance of icml-bot search beside plain FTS5 bm25 baselines, on the labelled query sets in tests/relevance/.

Run: python bench/relevance.py [--verbose]   (the ICML 2026 sets need ../shared/data/icml2026.jsonl)

Prints MRR and precision@5 per query set for `bot.search.search` and, in the same run over the same index, for a
plain FTS5 bm25 query (each word quoted, OR-joined, as the bot's first version did; and AND-joined).
Topic queries are judged by a per-query title regex; look-ups by the one paper they name. tests/search/test_relevance.py
imports this module and asserts the targets.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import search  # noqa: E402
from bot.papers import fts, index  # noqa: E402

SETS = ROOT / "tests" / "relevance"
SEEDS = ROOT / "seeds"
ICML2026 = ROOT.parent / "shared" / "data" / "icml2026.jsonl"
WORD = re.compile(r"[^\W_]+")

Searcher = Callable[[Any, str], list[dict[str, Any]]]


def _rows(path: Path) -> list[list[str]]:
    lines = [line.rstrip("\n") for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    return rows[1:]  # the header


def topics() -> list[tuple[str, str, re.Pattern[str]]]:
    """(clean query, typo query, title regex) for the ICML 2026 topic set."""
    return [(q, t, re.compile(rx, re.IGNORECASE)) for q, t, rx in _rows(SETS / "icml2026_topics.tsv")]


def titles() -> list[tuple[str, str]]:
    """(query, OpenReview id) title look-ups with a typo."""
    return [(q, oid) for q, oid, _ in _rows(SETS / "icml2026_titles.tsv")]


def seeds() -> list[tuple[str, str]]:
    """(query, bot paper id) for the 19 seed abstracts."""
    return [(q, pid) for q, pid, _ in _rows(SETS / "seeds.tsv")]


def ours(db: Any, query: str) -> list[dict[str, Any]]:
    """The bot's search: top five papers."""
    return [r.paper for r in search.search(db, query, limit=5).results]


def _baseline(db: Any, query: str, joiner: str) -> list[dict[str, Any]]:
    words = WORD.findall(query)
    if not words:
        return []
    expr = joiner.join(fts.phrase((w,)) for w in words)
    cursor = db.execute(
        "SELECT papers.* FROM papers_fts JOIN papers ON papers.rowid = papers_fts.rowid "
        "WHERE papers_fts MATCH ? ORDER BY papers_fts.rank LIMIT 5",
        [expr],
    )
    cols = [c[0] for c in cursor.description]
    return [dict(zip(cols, row, strict=True)) for row in cursor.fetchall()]


def baseline_or(db: Any, query: str) -> list[dict[str, Any]]:
    """Plain FTS5 bm25 (the index's weights), every word quoted, OR-joined: the bot before this search."""
    return _baseline(db, query, " OR ")


def baseline_and(db: Any, query: str) -> list[dict[str, Any]]:
    """Plain FTS5 bm25, every word quoted, all required."""
    return _baseline(db, query, " ")


@dataclass
class Score:
    """Mean reciprocal rank and precision@5 (for look-ups: hit@1) over one query set."""

    mrr: float
    p5: float
    misses: list[str]


def judge_topics(db: Any, searcher: Searcher, queries: list[tuple[str, re.Pattern[str]]]) -> Score:
    """Topic queries: a result is relevant when its title matches the query's regex."""
    mrr = p5 = 0.0
    misses = []
    for query, about in queries:
        found = searcher(db, query)
        hits = [bool(about.search(p["title"])) for p in found[:5]]
        p5 += sum(hits) / 5
        mrr += next((1 / (i + 1) for i, h in enumerate(hits) if h), 0.0)
        misses += [f"{query!r}: {p['title'][:80]}" for p, h in zip(found, hits, strict=False) if not h]
    n = max(1, len(queries))
    return Score(mrr / n, p5 / n, misses)


def judge_lookups(db: Any, searcher: Searcher, queries: list[tuple[str, str]], key: str) -> Score:
    """Look-ups: the named paper (by `key`: `id` or `source_id`) should be first; p5 holds hit@1."""
    mrr = first = 0.0
    misses = []
    for query, target in queries:
        ids = [p.get(key) for p in searcher(db, query)[:5]]
        rank = ids.index(target) + 1 if target in ids else None
        mrr += 1 / rank if rank else 0.0
        first += rank == 1
        if rank != 1:
            misses.append(f"{query!r}: rank {rank}")
    n = max(1, len(queries))
    return Score(mrr / n, first / n, misses)


def build(path: Path, sources: list[Path]) -> Path:
    """An index of the seeds (and the given lists), built by the production code."""
    db = index.connect(path)
    index.load(db, [SEEDS])
    for source in sources:
        index.load(db, [source])
    db.conn.close()
    return path


def run(seed_db: Any, full_db: Any | None) -> list[tuple[str, int, Score, Score, Score]]:
    """(set name, queries, ours, baseline OR, baseline AND) for every set whose index is available."""
    out = []
    s = seeds()
    out.append(
        (
            "seeds (paper first)",
            len(s),
            *(judge_lookups(seed_db, f, s, "id") for f in (ours, baseline_or, baseline_and)),
        )
    )
    if full_db is not None:
        t = topics()
        clean = [(q, rx) for q, _, rx in t]
        typo = [(tq, rx) for _, tq, rx in t]
        out.append(
            ("ICML 2026 topics", len(t), *(judge_topics(full_db, f, clean) for f in (ours, baseline_or, baseline_and)))
        )
        out.append(
            (
                "ICML 2026 topics, typo",
                len(t),
                *(judge_topics(full_db, f, typo) for f in (ours, baseline_or, baseline_and)),
            )
        )
        ti = titles()
        out.append(
            (
                "ICML 2026 titles, typo",
                len(ti),
                *(judge_lookups(full_db, f, ti, "source_id") for f in (ours, baseline_or, baseline_and)),
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verbose", action="store_true", help="list the results judged not relevant")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        seed_db = index.connect(build(Path(tmp) / "seeds.db", []), readonly=True)
        full_db = index.connect(build(Path(tmp) / "full.db", [ICML2026]), readonly=True) if ICML2026.exists() else None
        if full_db is None:
            print(f"({ICML2026} not found: only the seed set)")
        rows = run(seed_db, full_db)
    print(f"{'query set':26} {'n':>3}  {'MRR':>6} {'P@5':>6}  {'bm25 OR':>7} {'P@5':>6}  {'bm25 AND':>8} {'P@5':>6}")
    for name, n, mine, base_or, base_and in rows:
        print(
            f"{name:26} {n:>3}  {mine.mrr:6.3f} {mine.p5:6.3f}  {base_or.mrr:7.3f} {base_or.p5:6.3f}  "
            f"{base_and.mrr:8.3f} {base_and.p5:6.3f}"
        )
    print("P@5 = share of the top five whose title is about the topic; for look-up sets it is hit@1 (paper first).")
    by = {name: mine for name, _, mine, _, _ in rows}
    if "ICML 2026 topics" in by:
        print(
            f"typo'd topic queries keep {by['ICML 2026 topics, typo'].p5 / max(by['ICML 2026 topics'].p5, 1e-9):.0%}"
            " of the clean queries' precision@5"
        )
    if args.verbose:
        for name, _, mine, _, _ in rows:
            for miss in mine.misses:
                print(f"  [{name}] {miss}")


if __name__ == "__main__":
    main()
