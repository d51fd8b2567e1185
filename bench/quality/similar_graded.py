"""`Similar` judged by people's grades, not by a proxy: nDCG@10 and P@5 per system on 40 ICML 2026 papers.

Run: python -m bench similar_graded [--index PATH] [--verbose]   (needs ../shared/data/icml2026.jsonl)
     python -m bench similar_graded --collect DIR                (first store the judges' DIR/judgments_*.tsv)
     python -m bench similar_graded --set meaning=3 --set floor=0.3
                                                                 (a sweep: bot.papers.related settings beside the
                                                                 defaults; choose on the tune half only)
     python -m bench similar_graded --pool DIR [--index PATH]    (choose the sources, pool the systems' top 10s,
                                                                 write blind judging files and the pool list)

bench/quality/similar.py counts how many of the top 5 share the paper's ICML area: a proxy that rewards any paper of a
broad area ("Large Language Models") however far from the paper's idea. Here 40 source papers of the ICML 2026 list
(one per area, areas drawn with a fixed seed, TokSuite first) each have the top 10s of four systems pooled:
icml-bot's `Similar` before it weighed meaning, `Similar` now, a TF-IDF cosine over title and abstract
(bench/quality/similar.py's baseline, as scikit-learn's TfidfVectorizer does it) and the shipped static model alone
(cosine of title and abstract vectors). Helper agents graded each pooled paper 0/1/2 against its source from titles
and abstracts, blind to the systems, in shuffled order (tests/relevance/similar_judgments.tsv; the rubric is in its
header). Every other source is held out of tuning: the tune half is sources 1, 3, 5 … of the pool list. An unjudged
paper counts as 0; the "judged" column says how much of a system's top 10 was judged.

"before" is computed, not stored: the index's neighbours rebuilt with bot.papers.related's meaning weight at 0 (the
pool list keeps the top 10s it pooled, tests/relevance/similar_pool.tsv, as a record).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench import common, sets
from bench.quality.graded import ndcg, precision
from bench.quality.similar import TfidfCosine
from bot import search
from bot.papers import index, related
from bot.papers import vectors as paper_vectors

POOL = sets.SETS / "similar_pool.tsv"
JUDGMENTS = sets.SETS / "similar_judgments.tsv"
DEPTH = 10
SOURCES = 40
SEED = 2026
# The paper whose Similar was reported wrong (image and protein tokenizers for an LM paper)
FIRST = "TokSuite"
ABSTRACT_SHOWN = 700  # characters of an abstract a judge reads
SHORTEST_ABSTRACT = 400  # characters: a source must say enough for a judge to know its idea

System = Callable[[str], list[str]]  # source paper id -> paper ids, best first


def choose_sources(rows: list[dict[str, Any]]) -> list[str]:
    """TokSuite, then one paper from each of 39 areas drawn with a fixed seed (sorted areas, sorted ids)."""
    first = next(r["id"] for r in rows if r["title"].startswith(FIRST))
    by_area: dict[str, list[str]] = {}
    for r in rows:
        if r["area"] and len(r["abstract"] or "") >= SHORTEST_ABSTRACT and r["id"] != first:
            by_area.setdefault(r["area"], []).append(r["id"])
    pick = random.Random(SEED)
    areas = pick.sample(sorted(by_area), SOURCES - 1)
    return [first] + [pick.choice(sorted(by_area[a])) for a in areas]


def half_of(position: int) -> str:
    """Sources alternate: the 1st, 3rd, … tune; the 2nd, 4th, … are held out."""
    return sets.HALVES[position % 2]


def systems(db: Any, before: Any, swept: Any = None) -> dict[str, System]:
    """Each system's top 10 for a source paper, over the same index."""
    rows = list(db.query("SELECT rowid, id, title, abstract FROM papers ORDER BY rowid"))
    tfidf = TfidfCosine({r["id"]: f"{r['title']} {r['abstract'] or ''}" for r in rows})
    vecs = paper_vectors.read(db)
    assert vecs is not None, "the index has no paper vectors from the shipped model"
    ids = {r["rowid"]: r["id"] for r in rows}
    row_of = {r["id"]: vecs.row_of[r["rowid"]] for r in rows}

    def static_alone(pid: str) -> list[str]:
        order = np.argsort(-vecs.cosines(vecs.matrix[row_of[pid]]), kind="stable")
        return [ids[int(vecs.rowids[i])] for i in order[: DEPTH + 1] if ids[int(vecs.rowids[i])] != pid][:DEPTH]

    return {
        "icml-bot before": lambda pid: [r.paper["id"] for r in search.similar(before, pid, k=DEPTH)],
        "icml-bot": lambda pid: [r.paper["id"] for r in search.similar(db, pid, k=DEPTH)],
        "TF-IDF cosine": lambda pid: tfidf.similar(pid, DEPTH),
        "static model alone": static_alone,
    } | ({"icml-bot --set": lambda pid: [r.paper["id"] for r in search.similar(swept, pid, k=DEPTH)]} if swept else {})


def rebuilt(built: Path, out: Path, settings: related.Settings) -> Path:
    """A copy of the index whose neighbours were rebuilt with these settings (meaning=0: `Similar` as it was)."""
    out.write_bytes(built.read_bytes())
    db = index.connect(out)
    with db.atomic():
        related.rebuild(db, settings)
    db.conn.close()
    return out


def collect(folder: Path) -> int:
    """The judges' files (judgments_<judge>.tsv) into JUDGMENTS: a pair two judges graded gets their rounded mean;
    prints exact agreement on such pairs."""
    grades: dict[tuple[str, str], list[int]] = {}
    judges = sorted(folder.glob("judgments_*.tsv"))
    for path in judges:
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.strip().split("\t")
            if len(parts) == 3 and parts[2].strip() in ("0", "1", "2"):
                grades.setdefault((parts[0].strip(), parts[1].strip()), []).append(int(parts[2]))
    twice = [g for g in grades.values() if len(g) > 1]
    if twice:
        agree = np.mean([len(set(g)) == 1 for g in twice])
        print(f"{len(twice)} pairs judged more than once, exact agreement {agree:.2f}")
    lines = [
        "# Graded 0/1/2 blind by helper agents from title and abstract (python -m bench similar_graded --pool;",
        "# rubric: 2 = same main problem or method as the source, 1 = related aspect (a shared sub-problem,",
        "# technique or setting), 0 = shares words only or a different topic); shuffled candidates, no system named;",
        f"# {len(judges)} judges' files, a pair judged twice gets the rounded mean",
        "source\tpaper\tgrade",
    ]
    lines += [f"{s}\t{p}\t{int(np.mean(g) + 0.5)}" for (s, p), g in sorted(grades.items())]
    JUDGMENTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(grades)


def pool_list() -> list[tuple[str, str, dict[str, list[str]]]]:
    """(source id, half, the top 10 each system had when pooled), in pool order."""
    out: dict[str, tuple[str, str, dict[str, list[str]]]] = {}
    if not POOL.exists():
        return []
    for source, half, system, top in sets.rows(POOL):
        out.setdefault(source, (source, half, {}))[2][system] = top.split(",") if top else []
    return list(out.values())


def judgments() -> dict[str, dict[str, int]]:
    """Grades by source paper, then by candidate paper."""
    out: dict[str, dict[str, int]] = {}
    if JUDGMENTS.exists():
        for source, paper, grade in sets.rows(JUDGMENTS):
            out.setdefault(source, {})[paper] = int(grade)
    return out


def write_pool(runs: dict[str, dict[str, list[str]]], sources: list[str], rows: dict[str, Any], out: Path) -> int:
    """One blind judging file per source (candidates shuffled, no system named), the key, the pool list."""
    out.mkdir(parents=True, exist_ok=True)
    key: dict[str, Any] = {}
    lines = ["source\thalf\tsystem\ttop10"]
    total = 0
    for n, source in enumerate(sources, 1):
        pooled = list(dict.fromkeys(p for run in runs.values() for p in run[source]))
        random.Random(f"{SEED}:{source}").shuffle(pooled)
        total += len(pooled)
        parts = [f"# Source {n:02d}: {source}\n", _paper(rows[source], full=True), "\n## Candidates\n"]
        parts += [f"### {pid}\n{_paper(rows[pid])}" for pid in pooled]
        (out / f"{n:02d}.md").write_text("\n".join(parts), encoding="utf-8")
        key[f"{n:02d}"] = {"source": source, "half": half_of(n - 1), "systems": {s: r[source] for s, r in runs.items()}}
        lines += [f"{source}\t{half_of(n - 1)}\t{s}\t{','.join(r[source])}" for s, r in runs.items()]
    (out / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    POOL.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return total


def _paper(row: dict[str, Any], full: bool = False) -> str:
    """A paper as a judge reads it: title, then the abstract (trimmed unless it is the source)."""
    abstract = " ".join((row["abstract"] or "").split())
    if not full and len(abstract) > ABSTRACT_SHOWN:
        abstract = abstract[:ABSTRACT_SHOWN].rsplit(" ", 1)[0] + " …"
    return f"TITLE: {row['title']}\nABSTRACT: {abstract}\n"


def table(runs: dict[str, dict[str, list[str]]], halves: dict[str, str], grades: dict[str, dict[str, int]]) -> str:
    """nDCG@10 and P@5 per system and half, and the share of its top 10s judged."""
    lines = [f"{'system':22} {'half':9} {'nDCG@10':>8} {'P@5':>6} {'judged':>7}"]
    for name, by_source in runs.items():
        for half in (*sets.HALVES, "both"):
            chosen = [s for s in by_source if half in ("both", halves[s])]
            nd = np.mean([ndcg(by_source[s], grades.get(s, {})) for s in chosen])
            p5 = np.mean([precision(by_source[s], grades.get(s, {})) for s in chosen])
            top = [(s, p) for s in chosen for p in by_source[s][:DEPTH]]
            judged = sum(p in grades.get(s, {}) for s, p in top) / max(1, len(top))
            lines.append(f"{name:22} {half:9} {nd:8.3f} {p5:6.3f} {judged:7.0%}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pool", type=Path, help="choose the sources and write blind judging files into this folder")
    parser.add_argument("--index", type=Path, help="an index of icml2026.jsonl built before (else built here)")
    parser.add_argument("--verbose", action="store_true", help="per source figures")
    parser.add_argument("--collect", type=Path, help="gather the judges' judgments_*.tsv from this folder first")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="related.Settings to sweep")
    args = parser.parse_args()
    if args.collect:
        print(f"{collect(args.collect)} judgments stored in {JUDGMENTS}")
    changed = {name: float(value) for name, value in (item.split("=", 1) for item in args.set)}
    if not common.ICML2026.exists():
        sys.exit(f"needs {common.ICML2026}")
    with tempfile.TemporaryDirectory() as tmp:
        built = args.index
        if built is None:
            built = Path(tmp) / "full.db"
            db = index.connect(built)
            index.load(db, [common.ICML2026])
            db.conn.close()
        before_path = rebuilt(built, Path(tmp) / "before.db", dataclasses.replace(related.DEFAULT, meaning=0.0))
        before = index.connect(before_path, readonly=True)
        swept = None
        if changed:
            settings = dataclasses.replace(related.DEFAULT, **changed)  # type: ignore[arg-type]
            swept = index.connect(rebuilt(built, Path(tmp) / "swept.db", settings), readonly=True)
        db = index.connect(built, readonly=True)
        rows = {r["id"]: r for r in db.query("SELECT id, source_id, title, abstract, area FROM papers ORDER BY seq")}
        # judgments name papers by OpenReview id
        key = {pid: r["source_id"] or pid for pid, r in rows.items()}
        pid = {k: p for p, k in key.items()}
        listed = pool_list()
        sources = choose_sources(list(rows.values())) if args.pool else [pid[s] for s, _, _ in listed]
        runs = {
            name: {key[s]: [key[p] for p in system(s)] for s in sources}
            for name, system in systems(db, before, swept).items()
        }
        rows = {key[p]: r for p, r in rows.items()}
        sources = [key[s] for s in sources]
    if args.pool:
        print(f"{write_pool(runs, sources, rows, args.pool)} candidates for {len(sources)} sources, in {args.pool}")
        return
    grades = judgments()
    print(table(runs, {s: half for s, half, _ in listed}, grades))
    if args.verbose:
        for s, half, _ in listed:
            print(
                f"  [{half}] " + " ".join(f"{ndcg(r[s], grades.get(s, {})):.2f}" for r in runs.values()),
                rows[s]["title"],
            )


if __name__ == "__main__":
    main()
