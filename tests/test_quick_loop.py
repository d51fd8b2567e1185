"""The quick loop (`python -m pytest -m "not slow"`) still reaches every module in bot/: each is imported, directly or
through others, by a test file with at least one test that is not slow. Imports under TYPE_CHECKING count: they
name what a package's lazy __getattr__ loads (bot.state, bot.text), and a package counts once any module in it does."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

from tests.support.paths import ROOT
from tests.support.slow import COLLECTED

NEVER_IMPORTED = {"bot.__main__"}  # run by `python -m bot` (tests/test_cli.py does, in a subprocess)


def module_name(path: Path) -> str:
    """`tests.search.test_typos` for ROOT/tests/search/test_typos.py."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_every_bot_module_is_imported_by_a_test_file_the_quick_loop_runs(request: pytest.FixtureRequest) -> None:
    collected = request.config.stash.get(COLLECTED, set())
    files = {path for path, _ in collected}
    if files != set((ROOT / "tests").rglob("test_*.py")):
        pytest.skip("only a whole run's collection says which test files the quick loop keeps")
    quick = {module_name(path) for path, slow in collected if not slow}
    graph = grimp.build_graph("bot", "tests", cache_dir=None)
    imported = set().union(*(graph.find_upstream_modules(module) for module in quick))
    packages = {module.rsplit(".", depth)[0] for module in imported for depth in range(1, module.count(".") + 1)}
    every = {module for module in graph.modules if module.partition(".")[0] == "bot"}
    assert sorted(every - imported - packages - NEVER_IMPORTED) == []
