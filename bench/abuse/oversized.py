"""One oversized record, capped beside uncapped: index time and memory, /icml paper, Abstract, Similar and searches.

Run: python -m bench oversized [--mb 40] [--papers 2000] [--repeat 5]
Writes a list of `--papers` generated papers (tests/support/sources.large_jsonl) and one record whose abstract is
`--mb` MB of the bundled abstracts' sentences, and indexes the seeds and both files twice, each in a fresh process:

- before: with the caps lifted (bot.papers.limits.UNCAPPED), as every version before the caps indexed it;
- after: as `icml-bot index` does now (the record's fields cut to bot/papers/limits.py, and a note saying so).

Then, in this process, it answers on each index: `/icml paper` (the message blocks.paper_message builds), the
*Abstract* button (blocks.abstract_message), *Similar* on the big paper (Papers.similar), a search for words only the
big abstract has, and searches for words many papers have. The before column also lifts the snippet bound
(bot.search.snippets.SCANNED_CHARS) and splits the abstract as split_text did before it was linear (cutting the
rest off the text each time): what the bot did on such an index. Index figures are one run each (a fresh process);
answer times are the median of `--repeat` runs after, one run before (they take minutes at 40 MB). Peak memory is
the larger of the indexing process and its text-cleaning workers (ru_maxrss).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

from bench.common import ROOT
from bot.search import snippets
from bot.search.reader import Papers
from bot.slack import blocks
from bot.slack.blocks import papers as paper_blocks
from tests.support.paths import SEEDS
from tests.support.sources import large_jsonl, seed_abstracts

BIG_ID = "oversized-1"
ONLY_BIG = "quokka migration"  # words only the big abstract holds
EVERYWHERE = ("kv cache", "speculative decoding", "tokenizer benchmark")

# Indexes in a fresh process (in the checkout: `python -c` imports bot from its working directory), the caps lifted
# or not; prints seconds and peak memory as JSON.
INDEX_CHILD = """
import json, resource, sys, time
from bot.papers import index, limits
if sys.argv[1] == "before":
    limits.CAPS = limits.UNCAPPED
db = index.connect(sys.argv[2])
started = time.perf_counter()
report = index.load(db, sys.argv[3:])
seconds = time.perf_counter() - started
db.conn.close()
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({"seconds": seconds, "peak_mb": peak / 1024, "notes": sorted(n.reason for n in report.notices)}))
"""


def big_record(megabytes: float) -> dict[str, Any]:
    """A titled record whose abstract is `megabytes` MB of the bundled abstracts, ONLY_BIG's words among them."""
    sentences, size, n = [], 0, 0
    abstracts = seed_abstracts()
    while size < megabytes * 2**20:
        part = f"{abstracts[n % len(abstracts)]} Section {n} follows the {ONLY_BIG}."
        sentences.append(part)
        size += len(part) + 1
        n += 1
    return {"id": BIG_ID, "title": "One Oversized Record", "abstract": " ".join(sentences), "year": 2026}


def build(kind: str, db: Path, sources: list[Path]) -> dict[str, Any]:
    """One index built in a fresh process (`kind`: before or after): seconds, peak MB, notes."""
    done = subprocess.run(
        [sys.executable, "-c", INDEX_CHILD, kind, str(db), *map(str, sources)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"indexing ({kind}) failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def split_by_slicing(text: str, limit: int = blocks.MAX_SECTION_TEXT, most: int | None = None) -> list[str]:
    """split_text as it was: the rest cut off the text after each piece (quadratic), every piece made."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        cut = rest.rfind(" ", 0, limit)
        if cut <= limit // 2:
            cut = limit
            amp = rest.rfind("&", cut - 5, cut)
            if amp != -1 and ";" not in rest[amp:cut]:
                cut = amp
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces if most is None else pieces[:most]


@contextlib.contextmanager
def as_before() -> Iterator[None]:
    """The answering code as it was: quadratic splitting, snippets from the whole abstract."""
    module = cast(Any, paper_blocks)  # (split_text as the message builders call it)
    saved = module.split_text, snippets.SCANNED_CHARS
    module.split_text, snippets.SCANNED_CHARS = split_by_slicing, 1 << 62
    try:
        yield
    finally:
        module.split_text, snippets.SCANNED_CHARS = saved


def timed(work: Callable[[], object], runs: int) -> float:
    """Median seconds of `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def answers(db: Path) -> tuple[dict[str, Callable[[], object]], int]:
    """The answers to time on one index, and the big abstract's length there (the reader warmed by one search first,
    as a serving bot's is)."""
    papers = Papers(db)
    papers.search("warm up")
    big = papers.get(BIG_ID)
    assert big is not None
    work: dict[str, Callable[[], object]] = {
        "/icml paper": functools.partial(blocks.paper_message, big),
        "Abstract button": functools.partial(blocks.abstract_message, big),
        "Similar": functools.partial(papers.similar, str(big["id"])),
        **{f"search {query!r}": functools.partial(papers.search, query) for query in (ONLY_BIG, *EVERYWHERE)},
    }
    return work, len(big["abstract"])


def show(name: str, was: float, now: float, width: int = 34) -> None:
    """One row of the table, printed at once (the uncapped answers take minutes at 40 MB)."""
    ratio = f"{was / now:,.1f}x" if now else "-"
    print(f"{name:{width}}  {was:18,.1f}  {now:15,.1f}  {ratio:>9}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=40.0, help="size of the oversized abstract in MB")
    parser.add_argument("--papers", type=int, default=2000, help="generated papers beside it")
    parser.add_argument("--repeat", type=int, default=5, help="runs per answer after the caps (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        listed = large_jsonl(folder / "list2026.jsonl", args.papers)
        big = folder / "big2026.jsonl"
        big.write_text(json.dumps(big_record(args.mb)) + "\n", encoding="utf-8")
        sources = [SEEDS, listed, big]
        print(f"{args.papers:,} generated papers, the 19 seeds and one abstract of {big.stat().st_size / 2**20:.1f} MB")
        built = {kind: build(kind, folder / f"{kind}.db", sources) for kind in ("before", "after")}
        print(f"after: {'; '.join(built['after']['notes'])}")
        print(f"{'':34}  {'before (uncapped)':>18}  {'after (capped)':>15}  {'ratio':>9}")
        show("index (s)", built["before"]["seconds"], built["after"]["seconds"])
        show("index peak memory (MB)", built["before"]["peak_mb"], built["after"]["peak_mb"])
        after, after_chars = answers(folder / "after.db")
        before, before_chars = answers(folder / "before.db")
        show("abstract stored (characters)", before_chars, after_chars)
        for name, call in after.items():
            now = 1000 * timed(call, args.repeat)
            with as_before():
                was = 1000 * timed(before[name], 1)
            show(f"{name} (ms)", was, now)
    return 0


if __name__ == "__main__":
    sys.exit(main())
