"""bench/ as a package: `python -m bench` lists every benchmark and runs one by name, and no module edits sys.path."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

BENCH = ROOT / "bench"
KINDS = ("quality", "speed", "abuse")
PATH_EDIT = re.compile(r"sys\.path\s*(?:\.\s*(?:insert|append|extend)\b|\[[^]]*\]\s*=|\+=|=(?!=))")


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m bench ARGS` from the checkout, as the docs say to run it."""
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )


def benchmarks() -> list[Path]:
    """Every benchmark module on disk (what the list must name), kind by kind."""
    return sorted(path for kind in KINDS for path in (BENCH / kind).glob("*.py") if not path.name.startswith("_"))


def test_every_kind_holds_benchmarks() -> None:
    assert {path.parent.name for path in benchmarks()} == set(KINDS)


def test_the_list_names_every_benchmark_with_its_purpose_under_its_kind() -> None:
    done = bench()
    assert done.returncode == 0, done.stderr
    sections = dict(re.findall(r"^(\w+):\n((?:  .*\n?)*)", done.stdout, re.MULTILINE))
    for path in benchmarks():
        listed = dict(re.findall(r"^  (\w+)\s+(.+)$", sections[path.parent.name], re.MULTILINE))
        assert path.stem in listed, (path, done.stdout)
        assert len(listed[path.stem]) > 20, listed[path.stem]  # its docstring's first line, not an empty one


def test_each_name_runs_one_module_and_an_unknown_one_lists_them() -> None:
    names = [path.stem for path in benchmarks()]
    assert len(names) == len(set(names)), names  # `python -m bench NAME` needs one module per name
    done = bench("relevance", "--help")
    assert done.returncode == 0, done.stderr
    assert "--sets" in done.stdout  # bench/quality/relevance.py's own options
    wrong = bench("no_such_bench")
    assert wrong.returncode == 2
    assert "relevance" in wrong.stderr


@pytest.mark.parametrize("path", sorted(BENCH.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_bench_module_edits_sys_path_or_imports_late(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not PATH_EDIT.search(text), "bench/ is a package: import bench.X, bot and tests.support as they are"
    assert "noqa: E402" not in text


def test_the_path_check_catches_the_edits_it_forbids() -> None:
    for edit in ("sys.path.insert(0, ROOT)", "sys.path.append(x)", "sys.path[:0] = [x]", "sys.path += [x]"):
        assert PATH_EDIT.search(edit), edit
    assert not PATH_EDIT.search("`python -c` puts the working directory first on sys.path, so")
