"""The digest that learns, by simulation: the liked area's share of the next digests, beside no feedback.

After one More like this: how often the next three digests hold papers of the liked paper's ICML area, beside the
same channel without feedback and beside that area's share of the index.

Run: python -m bench digest_learning [--trials 60] [--seed 2026] [--index PATH] [--size 3]

Each trial is a fresh channel of the 5,863-paper list (../shared/data/icml2026.jsonl; the index is built first unless
--index names one). A random paper that has an `area` was shown in the channel's digest (recorded as shown, as a
posted digest records it), and the channel pressed More like this on it; then the next three digests are planned and
marked shown, one after another, by the production code (bot.digest.building.DigestBuilder.plan, dates passed in).
The baseline is the same channel without the vote, in the same run. The figure is the share of the 3 × size digest
papers whose `area` is exactly the liked paper's, beside that area's share of the index (the goal: at least twice it).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from bench.common import ICML2026
from bot.digest.channels import ChannelDigests
from bot.digest.model import Subscription
from bot.papers import index
from bot.search.reader import Papers
from bot.state import State
from bot.team import feedback

DIGESTS = 3
START = date(2026, 3, 9)


@dataclass(frozen=True)
class Trial:
    """One channel: the liked paper's area share of the index, and how many of the digest papers hold that area."""

    share: float
    learned: int
    baseline: int
    shown: int
    plan_ms: list[float]
    baseline_ms: list[float]


def build(path: Path) -> None:
    """The index of the 5,863-paper list, by the production loader."""
    db = index.connect(path)
    index.load(db, [ICML2026])
    db.conn.close()


def next_digests(desk: ChannelDigests, channel: str, size: int, timings: list[float]) -> list[str]:
    """Plan and mark shown the channel's next DIGESTS digests, as posting them would; the ids, in order."""
    picked: list[str] = []
    for n in range(DIGESTS):
        day = START + timedelta(days=n + 1)
        started = time.perf_counter()
        plan = desk.builder.plan(channel, day)
        timings.append((time.perf_counter() - started) * 1000)
        assert len(plan.paper_ids) == size, plan
        desk.state.digests.record_papers(channel, plan.round, plan.paper_ids, day.isoformat(), 1_773_000_000.0 + n)
        picked += plan.paper_ids
    return picked


def trial(desk: ChannelDigests, n: int, liked: str, area: dict[str, str | None], size: int, share: float) -> Trial:
    """One liked paper: a channel that voted and one that did not, each shown the liked paper first."""
    timings: list[float] = []
    baseline_timings: list[float] = []
    counts = []
    for vote in (True, False):
        channel = f"C0BENCH{n:05d}{'L' if vote else 'B'}"
        desk.state.digests.save_subscription(
            Subscription(channel, size=size, created_at=1.0, updated_at=1.0, schedule_from=1.0).to_row()
        )
        desk.state.digests.record_papers(channel, 1, [liked], START.isoformat(), 1_773_000_000.0)
        if vote:
            feedback.vote(desk.state, "T0BENCH", channel, "U0BENCH", liked, feedback.Vote.MORE, 1_773_000_001.0)
        picked = next_digests(desk, channel, size, timings if vote else baseline_timings)
        if liked in picked or len(set(picked)) != len(picked):
            raise SystemExit(f"a digest repeated a paper in {channel}: {picked}")
        counts.append(sum(area.get(p) == area[liked] for p in picked))
    return Trial(share, counts[0], counts[1], DIGESTS * size, timings, baseline_timings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=60, help="liked papers, one channel each (60)")
    parser.add_argument("--seed", type=int, default=2026, help="the sample's random seed (2026)")
    parser.add_argument("--size", type=int, default=3, help="papers per digest (3, the default digest)")
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
            build(path)
            print(f"built the index in {time.perf_counter() - started:.1f} s")
        papers = Papers(path)
        rows = list(papers.db.query("SELECT id, area FROM papers ORDER BY seq"))
        area = {r["id"]: (r["area"] or None) for r in rows}
        sizes = Counter(a for a in area.values() if a)
        with_area = [pid for pid, a in area.items() if a]
        sample = random.Random(args.seed).sample(with_area, min(args.trials, len(with_area)))
        state = State(Path(tmp) / "state.db")
        desk = ChannelDigests.of(state, papers)
        trials = []
        for n, liked in enumerate(sample):
            share = sizes[area[liked]] / len(rows)
            trials.append(trial(desk, n, liked, area, args.size, share))
        report(trials, len(rows), len(with_area), args)
        state.close()
    return 0


def report(trials: list[Trial], papers: int, with_area: int, args: argparse.Namespace) -> None:
    """The figures: same-area share of the next digests with and without the vote, and the areas' share."""
    slots = sum(t.shown for t in trials)
    learned = sum(t.learned for t in trials) / slots
    baseline = sum(t.baseline for t in trials) / slots
    share = statistics.fmean(t.share for t in trials)
    passed = sum(t.learned / t.shown >= 2 * t.share for t in trials)
    passed_base = sum(t.baseline / t.shown >= 2 * t.share for t in trials)
    timings = [ms for t in trials for ms in t.plan_ms]
    cuts = statistics.quantiles(timings, n=100)
    plain = [ms for t in trials for ms in t.baseline_ms]
    plain_cuts = statistics.quantiles(plain, n=100)
    print(
        f"{papers:,} papers, {with_area:,} with an area; {len(trials)} liked papers (seed {args.seed}); "
        f"next {DIGESTS} digests of {args.size} papers after one More like this"
    )
    print(f"{'':34} {'same area as liked':>18} {'x area share':>13} {'trials at 2x+':>14}")
    print(f"{'area share of the index (mean)':34} {share:>18.1%} {1:>13.2f} {'':>14}")
    print(f"{'bot: with More like this':34} {learned:>18.1%} {learned / share:>13.2f} {passed:>9}/{len(trials)}")
    print(f"{'baseline: no feedback':34} {baseline:>18.1%} {baseline / share:>13.2f} {passed_base:>9}/{len(trials)}")
    print(
        f"plan() with one vote: p50 {statistics.median(timings):.1f} ms, p99 {cuts[98]:.1f} ms; without: "
        f"p50 {statistics.median(plain):.1f} ms, p99 {plain_cuts[98]:.1f} ms"
    )


if __name__ == "__main__":
    raise SystemExit(main())
