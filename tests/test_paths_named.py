"""Every repository path or bot module that a comment, a docstring or a doc page names exists: prose that points at a
moved or deleted file sends the reader nowhere."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import ROOT

# A path from the repository root (bot/search/rank.py, tests/, docs/search.md) or ../shared/...; ../ in front is a
# doc page's way to reach the root. Not inside a longer path or a URL (the character before is no word, dot or slash).
PATH = re.compile(r"(?<![\w./-])(?:\.\./)?((?:bot|tests|bench|docs|seeds)/[\w./*<>{}\[\]-]*|(?<=\.\./)shared/[\w./-]*)")
# A dotted name under bot or tests: a module, or a module and a name it defines (bot.search.reader.Papers).
MODULE = re.compile(r"(?<![\w./-])((?:bot|tests)(?:\.\w+)+)")
# Placeholders, not names: a glob or a <name> (bot/*.py, bench/<name>.py) or a word in capitals (bench/NAME.py,
# tests.support.X).
PLACEHOLDER = re.compile(r"[*<>{}\[\]]|\b[A-Z]+\b")


def prose(source: str) -> Iterator[tuple[int, str]]:
    """A Python file's comments and docstrings, line by line with their line numbers; code and its strings left out."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                for offset, line in enumerate(first.value.value.splitlines()):
                    yield first.lineno + offset, line


def named(text: str) -> Iterator[str]:
    """The paths and dotted module names a line of prose names, placeholders left out."""
    for match in PATH.finditer(text):
        path = match.group(1).rstrip(".")
        if not PLACEHOLDER.search(path):
            yield path
    for match in MODULE.finditer(text):
        name = match.group(1).rstrip(".")
        if not name.endswith((".py", ".md")) and not PLACEHOLDER.search(name):
            yield name


def _module_file(root: Path, parts: list[str]) -> Path | None:
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def exists(name: str, root: Path = ROOT) -> bool:
    """Whether a named path or module is there: a file or folder, a module, or a name that module defines or imports.

    A path without .py before a name (bot/serve/http_workers.waitress_server) means that name in the module, as the
    dotted form does. ../shared paths count as there when ../shared is absent (a clean clone has no data)."""
    if name.startswith("shared/"):
        shared = root.parent / "shared"
        return not shared.exists() or (root.parent / name).exists()
    if "/" in name:
        if (root / name).exists():
            return True
        module, _, attribute = name.rpartition(".")
        return bool(module) and _defines(root / f"{module}.py", attribute)
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        found = _module_file(root, parts[:cut])
        if found is not None:
            return cut == len(parts) or _defines(found, parts[cut])
    return False


def _defines(module: Path, attribute: str) -> bool:
    """Whether a module file defines `attribute` (a function, method or class anywhere in it) or binds it at its top
    level (an assignment or an import)."""
    if not module.is_file():
        return False
    tree = ast.parse(module.read_text(encoding="utf-8"))
    if any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == attribute
        for node in ast.walk(tree)
    ):
        return True
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(target, ast.Name) and target.id == attribute for target in targets):
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
            (alias.asname or alias.name).split(".")[0] == attribute for alias in node.names
        ):
            return True
    return False


def _sources(root: Path) -> Iterator[tuple[str, Iterator[tuple[int, str]]]]:
    for folder in ("bot", "tests", "bench"):
        for path in sorted((root / folder).rglob("*.py")):
            yield str(path.relative_to(root)), prose(path.read_text(encoding="utf-8"))
    for path in [*sorted((root / "docs").glob("*.md")), root / "README.md"]:
        yield str(path.relative_to(root)), enumerate(path.read_text(encoding="utf-8").splitlines(), 1)


def dead_names(root: Path = ROOT) -> list[str]:
    """Each named path or module that is not there, as `file:line: name`."""
    return [
        f"{where}:{number}: {name}"
        for where, lines in _sources(root)
        for number, line in lines
        for name in named(line)
        if not exists(name, root)
    ]


def test_every_path_and_module_named_in_prose_exists() -> None:
    assert dead_names() == []


def test_the_extractor_reads_comments_and_docstrings_only() -> None:
    source = (
        '"""Reads bot/papers/fts.py."""\n'
        "import os  # see tests/test_docs.py\n"
        'PATH = "bot/not_prose.py"\n'
        "def f() -> None:\n"
        '    """Named in bot.papers.fts."""\n'
    )
    assert sorted(prose(source)) == [
        (1, "Reads bot/papers/fts.py."),
        (2, "# see tests/test_docs.py"),
        (5, "Named in bot.papers.fts."),
    ]


def test_the_extractor_finds_paths_and_modules_and_skips_placeholders() -> None:
    line = (
        "See bot/x.py, ../docs/a.md: bench/<name>.py, bot/*.py, bench/NAME.py, https://h.io/bot/y and bot.search.rank."
    )
    assert list(named(line)) == ["bot/x.py", "docs/a.md", "bot.search.rank"]


def test_a_made_up_path_or_module_is_dead() -> None:
    for dead in (
        "tests/test_slack_manifest.py",
        "bot/slack/nowhere.py",
        "bot.papers.nowhere",
        "bot.papers.fts.nowhere",
    ):
        assert not exists(dead), dead
    for alive in ("tests/slack/test_manifest.py", "bot/slack/", "bot.papers.fts", "bot.search.reader.Papers"):
        assert exists(alive), alive
    assert exists("tests/support/sources.large_jsonl")  # a path and a name the module defines
    assert not exists("tests/support/sources.nowhere")


def test_a_dead_name_in_a_page_is_reported(tmp_path: Path) -> None:
    for folder in ("bot", "tests", "bench", "docs"):
        (tmp_path / folder).mkdir()
    (tmp_path / "bot" / "real.py").write_text('"""Kept beside bot/gone.py."""\n# see bot/real.py\n', encoding="utf-8")
    (tmp_path / "docs" / "page.md").write_text("Run `bench/gone.py`.\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("See [docs](docs/page.md) and ../shared/data.\n", encoding="utf-8")
    assert dead_names(tmp_path) == ["bot/real.py:1: bot/gone.py", "docs/page.md:1: bench/gone.py"]


def test_shared_paths_are_checked_only_when_shared_is_there(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert exists("shared/data/nothing.jsonl", repo)
    (tmp_path / "shared" / "data").mkdir(parents=True)
    assert not exists("shared/data/nothing.jsonl", repo)
    assert exists("shared/data", repo)
