"""Related papers from pasted text: hit@1 and MRR of related() (bot.search.pasted) beside the same text in search.

Run: python -m bench related [--papers 100] [--seed 2026] [--index PATH] [--large PATH | --scale 6]

For `--papers` random ICML 2026 main-track papers of ../shared/data/icml2026.jsonl with at least three sentences in
their abstract, each kind of paste below is answered by related() (what the "Find related papers" shortcut calls,
through Papers.related) and by search() (what pasting the same text into `/icml` gives), in the same process over
the same index. hit@1: the paper itself is first; MRR: 1/place within the top 10 (0 when absent). The target of
issue 38 is the first row: the first three sentences put their paper first in at least 95 of 100.
  first 3 sentences    the target
  last 3 sentences     the results and claims, not the motivation
  greeting + first 3   "Hi all, could someone suggest related work …" before them
  first 3, 30% dropped every word kept with probability 0.7 (a paraphrase's loss of words, crudely)
  second sentence      one sentence alone
  40,000 characters    the whole abstract, then filler words up to Slack's message size
Then its neighbours: of places 2-5 that are other papers, the share with the pasted paper's ICML area (papers without
an area are skipped), beside the paper's own Similar answer (bot.search.similar: its neighbours computed from its
whole title and abstract). Times are per paste after warm-up, p50 and p99 in ms. The index is the seeds and the list,
as the tests' full index (built first unless --index names one).

With --scale N (or --large PATH, an index built so before) the first kind of paste is also answered on the shared lists
repeated N times (~110,000 papers at 6, as bench/speed/index.py builds them): there each paper has N copies (titles
and abstracts marked "copy k"), and a hit is the paper or one of its copies first; the times are the point.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import ICML2026, ROOT, make_large
from bot.papers import index
from bot.search.reader import Papers
from bot.text.sentences import split_sentences

SEEDS = ROOT / "seeds"
DEPTH = 10
GREETING = "Hi all, could someone suggest related work for our draft before Friday? Thanks a lot!\n\n"
SLACK_MESSAGE_CHARS = 40_000

Paste = Callable[[list[str], random.Random], str]
PASTES: dict[str, Paste] = {
    "first 3 sentences": lambda s, _: " ".join(s[:3]),
    "last 3 sentences": lambda s, _: " ".join(s[-3:]),
    "greeting + first 3": lambda s, _: GREETING + " ".join(s[:3]),
    "first 3, 30% dropped": lambda s, rng: " ".join(w for w in " ".join(s[:3]).split() if rng.random() >= 0.3),
    "second sentence": lambda s, _: s[1],
    "40,000 characters": lambda s, _: (" ".join(s) + " filler" * SLACK_MESSAGE_CHARS)[:SLACK_MESSAGE_CHARS],
}


def build(path: Path) -> None:
    """The seeds and the 5,863-paper list, by the production loader (as tests/conftest.py's full index)."""
    db = index.connect(path)
    index.load(db, [SEEDS])
    index.load(db, [ICML2026])
    db.conn.close()


class Scores:
    """hit@1, reciprocal ranks and times of one method on one kind of paste."""

    def __init__(self) -> None:
        self.hits, self.ranks, self.ms = 0, [], []  # type: tuple[int, list[float], list[float]]

    def add(self, paper_id: str, found: list[str], ms: float) -> None:
        """One paste's answer."""
        self.hits += bool(found) and found[0] == paper_id
        self.ranks.append(1 / (found.index(paper_id) + 1) if paper_id in found else 0.0)
        self.ms.append(ms)

    def row(self) -> str:
        """hit@1, MRR, p50 and p99 ms."""
        cuts = statistics.quantiles(self.ms, n=100) if len(self.ms) > 1 else self.ms * 99
        mrr = statistics.fmean(self.ranks)
        return f"{self.hits:>5}/{len(self.ranks):<4} {mrr:>6.3f} {cuts[49]:>8.1f} {cuts[98]:>8.1f}"


def timed(find: Callable[[str], list[str]], text: str) -> tuple[list[str], float]:
    """What `find` answers and the milliseconds it took."""
    started = time.perf_counter()
    found = find(text)
    return found, (time.perf_counter() - started) * 1000


def same_area(found: list[str], paper_id: str, area: dict[str, str | None]) -> tuple[int, int]:
    """(slots, slots of the paper's area) among places 2-5 that are other papers."""
    others = [f for f in found if f != paper_id][:4]
    return len(others), sum(area.get(f) == area[paper_id] for f in others)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100, help="how many random ICML 2026 main papers (100)")
    parser.add_argument("--seed", type=int, default=2026, help="the sample's random seed (2026)")
    parser.add_argument("--index", type=Path, help="an index of the seeds and icml2026.jsonl (default: build one now)")
    parser.add_argument("--scale", type=int, default=0, help="also time an index of the shared lists x N (6: ~110,000)")
    parser.add_argument("--large", type=Path, help="an index built so before (instead of --scale)")
    args = parser.parse_args(argv)
    if args.index is None and not ICML2026.exists():
        print(f"{ICML2026} is not available", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        path = args.index
        if path is None:
            path = Path(tmp) / "papers.db"
            started = time.perf_counter()
            build(path)
            print(f"built the index in {time.perf_counter() - started:.1f} s")
        sample = run(Papers(path), args.papers, args.seed)
        large = args.large
        if large is None and args.scale:
            large = Path(tmp) / "large.db"
            started = time.perf_counter()
            count = build_large(large, args.scale)
            print(f"built an index of {count:,} papers in {time.perf_counter() - started:.0f} s")
        if large is not None:
            run_large(Papers(large), sample)
    return 0


def build_large(path: Path, copies: int) -> int:
    """The shared lists x `copies` (bench.common.make_large, as bench/speed/index.py builds them), by the production
    loader."""
    source = path.with_suffix(".jsonl")
    count = make_large(source, copies)
    db = index.connect(path)
    index.load(db, [source])
    db.conn.close()
    source.unlink()
    return count


def run_large(papers: Papers, sample: list[tuple[str, list[str]]]) -> None:
    """The first three sentences of the same papers on a large index: hits (a copy counts) and times."""
    methods: dict[str, Callable[[str], list[str]]] = {
        "related()": lambda text: [str(r.paper["id"]) for r in papers.related(text, DEPTH).results],
        "search() (baseline)": lambda text: [str(r.paper["id"]) for r in papers.search(text, limit=DEPTH).results],
    }
    for find in methods.values():  # warm-up: each whole-index look-up loads once
        find("kv cache eviction for long context")
        find(" ".join(sample[0][1]))
    print(f"{papers.count():,} papers (the shared lists repeated), first 3 sentences of the same papers:")
    for name, find in methods.items():
        score = Scores()
        for paper_id, sentences in sample:
            found, ms = timed(find, " ".join(sentences[:3]))
            # a copy is the paper
            same = [paper_id if f.split("-c")[0] == paper_id else f for f in found]
            score.add(paper_id, list(dict.fromkeys(same)), ms)
        print(f"{'first 3 sentences':22} {name:20} {score.row()}")


def run(papers: Papers, count: int, seed: int) -> list[tuple[str, list[str]]]:
    """Every paste kind through both methods, then the neighbours' areas; returns the sample (id, sentences)."""
    rows = papers.db.execute(
        "SELECT id, abstract, area FROM papers WHERE venue = 'icml2026' AND coalesce(track, 'main') = 'main' "
        "AND abstract != '' ORDER BY id"
    ).fetchall()
    area = {pid: a or None for pid, _, a in rows}
    usable = [(pid, list(split_sentences(abstract))) for pid, abstract, _ in rows]
    usable = [(pid, s) for pid, s in usable if len(s) >= 3]
    sample = random.Random(seed).sample(usable, min(count, len(usable)))
    methods: dict[str, Callable[[str], list[str]]] = {
        "related()": lambda text: [str(r.paper["id"]) for r in papers.related(text, DEPTH).results],
        "search() (baseline)": lambda text: [str(r.paper["id"]) for r in papers.search(text, limit=DEPTH).results],
    }
    for text in ("kv cache eviction for long context", " ".join(sample[0][1])):
        # warm-up: the search cache, the model and the vectors load once
        for find in methods.values():
            find(text)
            find(text)
    print(f"{papers.count():,} papers; {len(sample)} sampled of {len(usable):,} ICML 2026 main papers, seed {seed}")
    print(f"{'paste':22} {'method':20} {'hit@1':>10} {'MRR':>6} {'p50 ms':>8} {'p99 ms':>8}")
    areas = {name: [0, 0] for name in [*methods, "Similar of the paper"]}
    for kind, paste in PASTES.items():
        rng = random.Random(seed)
        scores = {name: Scores() for name in methods}
        for paper_id, sentences in sample:
            text = paste(sentences, rng)
            for name, find in methods.items():
                found, ms = timed(find, text)
                scores[name].add(paper_id, found, ms)
                if kind == "first 3 sentences" and area[paper_id]:
                    slots, same = same_area(found, paper_id, area)
                    areas[name][0] += slots
                    areas[name][1] += same
        for name, score in scores.items():
            print(f"{kind:22} {name:20} {score.row()}")
    for paper_id, _ in sample:
        if area[paper_id]:
            slots, same = same_area([str(r.paper["id"]) for r in papers.similar(paper_id, 4)], paper_id, area)
            areas["Similar of the paper"][0] += slots
            areas["Similar of the paper"][1] += same
    print("then its neighbours (first 3 sentences): share of places 2-5 in the pasted paper's area")
    for name, (slots, same) in areas.items():
        print(f"  {name:22} {same / max(slots, 1):>6.1%} of {slots} places")
    return sample


if __name__ == "__main__":
    raise SystemExit(main())
