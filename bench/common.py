"""What the benchmarks of every kind share: where the code and data are, the indexes they build, the FTS5 baselines.

Kept small on purpose: a helper used by one kind of benchmark stays in that kind's package. Nothing of bot/ is
imported until a function needs it: bench/speed/index.py measures a bare sqlite-utils process's memory beside the bot's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]  # the checkout: bot/, bench/, seeds/, tests/
SEEDS = ROOT / "seeds"
# The full lists of papers, beside the checkout (not committed)
SHARED_DATA = ROOT.parent / "shared" / "data"
ICML2026 = SHARED_DATA / "icml2026.jsonl"
WORD = re.compile(r"[^\W_]+")


def build(path: Path, sources: list[Path]) -> Path:
    """An index of the seeds (and the given lists), built by the production code."""
    from bot.papers import index

    db = index.connect(path)
    index.load(db, [SEEDS])
    for source in sources:
        index.load(db, [source])
    db.conn.close()
    return path


def build_index(folder: Path, seeds_only: bool) -> tuple[Path, int]:
    """The seeds (and the ICML 2026 list unless `seeds_only`) in a fresh index; its path and paper count."""
    from bot.papers import index

    path = folder / "papers.db"
    db = index.connect(path)
    report = index.load(db, [SEEDS])
    if not seeds_only:
        report = index.load(db, [ICML2026])
    db.conn.close()
    return path, report.papers


def make_large(out: Path, copies: int) -> int:
    """The shared lists repeated `copies` times, each copy with its own ids, titles and abstracts (nothing merges)."""
    n = 0
    with out.open("w", encoding="utf-8") as fh:
        for copy in range(copies):
            for src in sorted(SHARED_DATA.glob("*.jsonl")):
                with src.open(encoding="utf-8") as lines:
                    for line in lines:
                        rec = json.loads(line)
                        if copy:
                            rec["id"] = f"{rec['id']}-c{copy}"
                            rec["title"] = f"{rec['title']} (copy {copy})"
                            rec["abstract"] = f"(Copy {copy}.) {rec['abstract']}"
                        fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                        n += 1
    return n


def _baseline(db: Any, query: str, joiner: str, order: str = "papers_fts.rank") -> list[dict[str, Any]]:
    from bot.papers import fts

    words = WORD.findall(query)
    if not words:
        return []
    expr = joiner.join(fts.phrase((w,)) for w in words)
    cursor = db.execute(
        "SELECT papers.* FROM papers_fts JOIN papers ON papers.rowid = papers_fts.rowid "
        f"WHERE papers_fts MATCH ? ORDER BY {order} LIMIT 5",
        [expr],
    )
    cols = [c[0] for c in cursor.description]
    return [dict(zip(cols, row, strict=True)) for row in cursor.fetchall()]


def baseline_or(db: Any, query: str) -> list[dict[str, Any]]:
    """FTS5 bm25 with the index's title weight, every word quoted, OR-joined: the bot before this search."""
    return _baseline(db, query, " OR ")


def baseline_plain(db: Any, query: str) -> list[dict[str, Any]]:
    """Plain FTS5 bm25 (every column alike), every word quoted, OR-joined."""
    return _baseline(db, query, " OR ", order="bm25(papers_fts)")


def baseline_and(db: Any, query: str) -> list[dict[str, Any]]:
    """Plain FTS5 bm25, every word quoted, all required."""
    return _baseline(db, query, " ")
