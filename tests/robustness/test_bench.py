"""The robustness and load benchmarks in their short CI versions: the commands of docs/benchmarks.md, smaller."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT


def bench(*args: str, timeout: float = 100) -> str:
    """Run `python -m bench NAME ...` like a person would and return its output (exit status 0 required).

    The timeout ends a hung bench (with its output so far) before pytest-timeout (120 s) ends the test.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ICML_")) and "proxy" not in k.lower()}
    proc = subprocess.run(
        [sys.executable, "-m", "bench", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def figure(output: str, name: str) -> int:
    """The number printed after `name` (e.g. "errors      0")."""
    match = re.search(rf"^{name}\s+([\d,]+)", output, re.MULTILINE)
    assert match, output
    return int(match.group(1).replace(",", ""))


def test_robustness_bench_short_finds_no_errors_and_loses_nothing() -> None:
    out = bench("robustness", "--short")
    assert figure(out, "errors") == 0, out
    assert figure(out, "data lost") == 0, out
    assert figure(out, "inputs tried") >= 200
    assert figure(out, "faults injected") >= 40
    assert figure(out, "requests served") > 50


@pytest.mark.ack_deadline
def test_load_bench_short_answers_every_command_within_3_seconds() -> None:
    out = bench("load", "--seconds", "3", "--clients", "50", "--seeds-only")
    assert re.search(r"errors\s+0\n", out), out
    assert re.search(r"acks over 3 s\s+0\n", out), out
    assert "peak memory" in out
    assert "exit status 0 after SIGTERM" in out


def test_digest_learning_bench_runs_and_the_vote_moves_the_area(full_index_path: Path) -> None:
    out = bench("digest_learning", "--index", str(full_index_path), "--trials", "8", timeout=110)
    learned = re.search(r"^bot: with More like this\s+([\d.]+)%", out, re.MULTILINE)
    baseline = re.search(r"^baseline: no feedback\s+([\d.]+)%", out, re.MULTILINE)
    assert learned, out
    assert baseline, out
    assert float(learned.group(1)) > float(baseline.group(1)), out


@pytest.mark.ack_deadline
def test_replica_bench_short_answers_everything_once_on_two_replicas() -> None:
    out = bench("replica", "--seconds", "3", "--clients", "20", "--seeds-only", "--sqlite")
    rows = re.findall(r"^(\d) replicas?\s+\d+\s+\d+\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert [row[0] for row in rows] == ["1", "2"], out
    for _, errors, slow, mentions, not_once, digests in rows:
        assert (errors, slow, not_once, digests) == ("0", "0", "0", "1"), out
        assert int(mentions) > 0, out
    assert "target: no errors, no ack over 3 s, every mention answered once, one digest: met" in out


def test_oversized_bench_short_stores_the_capped_abstract_beside_the_whole_one() -> None:
    out = bench("oversized", "--mb", "1", "--papers", "100", "--repeat", "1", timeout=110)
    stored = re.search(r"^abstract stored \(characters\)\s+([\d,.]+)\s+([\d,.]+)", out, re.MULTILINE)
    assert stored, out
    before, after = (float(n.replace(",", "")) for n in stored.groups())
    assert before > 1_000_000
    assert after <= 20_000
    assert "after: `abstract` longer than 20,000 characters: cut there" in out
