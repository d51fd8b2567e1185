"""Stress check for `icml-bot index`: many parallel loads, some beside a busy core; counts hangs and leftover processes.

Run: python -m bench index_stress [--runs 50] [--timeout 120]
Indexes ../shared/data/icml2026.jsonl (5,863 papers; a generated 4,000-paper list when ../shared is absent) into a
fresh index `--runs` times, every other run with a busy-looping process beside it. A run that has not finished after
`--timeout` seconds counts as a hang (and is killed). After each run, any process left in the run's session counts as
a leftover. The baseline is the same load with `--workers 1` (no worker processes), timed in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ICML2026, ROOT
from tests.support.processes import kill_session, wait_session_empty
from tests.support.sources import large_jsonl


def index_once(source: Path, db: Path, timeout: float, workers: int | None) -> tuple[str, float, list[int]]:
    """One `icml-bot index` run: ("ok" | "hang" | "failed: …", seconds, pids left in its session)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ICML_BOT_DB": str(db)}
    command = [sys.executable, "-m", "bot", "index", str(source)] + (["--workers", str(workers)] if workers else [])
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        _, err = proc.communicate(timeout=timeout)
        outcome = "ok" if proc.returncode == 0 else f"failed ({proc.returncode}): {err.strip()[-200:]}"
    except subprocess.TimeoutExpired:
        outcome = "hang"
        proc.kill()
        proc.communicate()
    seconds = time.perf_counter() - started
    left = wait_session_empty(proc.pid, timeout=5)
    kill_session(proc.pid)
    return outcome, seconds, left


def busy_core() -> subprocess.Popen[bytes]:
    """A process that keeps one core busy until it is killed."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds after which a run counts as hung")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = ICML2026 if ICML2026.exists() else large_jsonl(Path(tmp) / "generated.jsonl")
        print(f"source: {source.name}; {args.runs} runs, every other one beside a busy core")
        hangs, failures, leftovers = 0, [], 0
        times: dict[bool, list[float]] = {False: [], True: []}
        baseline: dict[bool, list[float]] = {False: [], True: []}
        for run in range(args.runs):
            busy = busy_core() if run % 2 else None
            try:
                outcome, seconds, left = index_once(source, Path(tmp) / f"run{run}.db", args.timeout, None)
                if run % 10 in (0, 1):  # the baseline, quiet and busy, every ten runs
                    _, base_seconds, base_left = index_once(source, Path(tmp) / f"base{run}.db", args.timeout, 1)
                    baseline[busy is not None].append(base_seconds)
                    leftovers += len(base_left)
            finally:
                if busy:
                    busy.kill()
                    busy.wait()
            hangs += outcome == "hang"
            leftovers += len(left)
            if outcome not in ("ok", "hang"):
                failures.append(outcome)
            times[busy is not None].append(seconds)
            print(
                f"  run {run + 1:3d}{' (busy core)' if busy else '            '}: {outcome:6} {seconds:6.1f} s"
                f"{f'  LEFT BEHIND: {left}' if left else ''}",
                flush=True,
            )
            for f in (Path(tmp) / f"run{run}.db", Path(tmp) / f"base{run}.db"):
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{f}{suffix}").unlink(missing_ok=True)
    print()
    print(f"{'':20} {'runs':>5} {'median s':>9} {'max s':>7} {'baseline --workers 1, median s':>31}")
    for loaded in (False, True):
        t, b = times[loaded], baseline[loaded]
        print(
            f"{'beside a busy core' if loaded else 'quiet':20} {len(t):5d} {statistics.median(t) if t else 0:9.1f} "
            f"{max(t) if t else 0:7.1f} {statistics.median(b) if b else 0:31.1f}"
        )
    print(f"hangs: {hangs}   failed runs: {len(failures)}   processes left behind: {leftovers}")
    for failure in failures[:5]:
        print(f"  {failure}")
    return 1 if hangs or failures or leftovers else 0


if __name__ == "__main__":
    sys.exit(main())
