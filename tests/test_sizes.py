"""Modules and functions in bot/ stay small enough to read at once: 400 lines a module, 60 lines or 30 branches a
function, and no code line made long by the comment after it."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator

from tests.support.paths import ROOT

MODULE_LINES = 400
FUNCTION_LINES = 60
FUNCTION_BRANCHES = 30
ASIDE_LINE = 100  # a code line with a comment after it stays within this; a longer aside goes on its own line above

# A branch is a point where the function's path splits: if/elif, a conditional expression, a loop, an except, a case.
BRANCHES = (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.match_case)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def branches(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The branches in a function's own body; a function defined inside it is counted on its own."""
    count = 0
    pending: list[ast.AST] = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, FUNCTIONS):
            continue
        count += isinstance(node, BRANCHES)
        pending.extend(ast.iter_child_nodes(node))
    return count


def oversized(where: str, source: str) -> Iterator[str]:
    """The module (`path`) and its functions (`path: name`) over the bounds, each with the figure that is over."""
    lines = len(source.splitlines())
    if lines > MODULE_LINES:
        yield where
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, FUNCTIONS):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > FUNCTION_LINES or branches(node) > FUNCTION_BRANCHES:
                yield f"{where}: {node.name}"


def test_no_module_or_function_in_bot_is_over_the_bounds() -> None:
    found = {
        name
        for path in sorted((ROOT / "bot").rglob("*.py"))
        for name in oversized(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
    }
    assert found == set(), f"split these (bounds: {MODULE_LINES}, {FUNCTION_LINES}, {FUNCTION_BRANCHES})"


def test_a_long_module_a_long_function_and_a_branchy_one_are_found() -> None:
    long_function = "def long():\n" + "    x = 1\n" * FUNCTION_LINES
    branchy = "def branchy(x):\n" + "    if x:\n        pass\n" * (FUNCTION_BRANCHES + 1)
    # 31 branches in all, 30 of them in inner: neither is over
    one = "y = 1 if x else 2\n"
    inner = f"def outer(x):\n    {one}    def inner(x):\n" + f"        {one}" * FUNCTION_BRANCHES
    padding = "\n" * (MODULE_LINES - FUNCTION_LINES)
    source = long_function + branchy + inner + padding
    assert list(oversized("m.py", source)) == ["m.py", "m.py: long", "m.py: branchy"]


def test_a_function_at_the_bounds_passes() -> None:
    at_length = "def at_length():\n" + "    x = 1\n" * (FUNCTION_LINES - 1)
    at_branches = "def at_branches(x):\n" + "    y = 1 if x else 2\n" * FUNCTION_BRANCHES
    assert list(oversized("m.py", at_length + at_branches)) == []


def long_asides(source: str) -> list[int]:
    """Lines of code over ASIDE_LINE characters that end in a comment (a type: or noqa pragma alone does not count)."""
    lines = source.splitlines()
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        row, column = token.start
        line = lines[row - 1] if token.type == tokenize.COMMENT else ""
        pragma = token.string.startswith(("# type:", "# noqa", "# fmt:")) and "  # " not in token.string
        if line[:column].strip() and len(line) > ASIDE_LINE and not pragma:
            found.append(row)
    return found


def test_no_code_line_in_bot_is_made_long_by_an_aside() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{row}"
        for path in sorted((ROOT / "bot").rglob("*.py"))
        for row in long_asides(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "move these comments onto their own line above the code"


def test_a_long_aside_is_found_and_a_comment_line_or_a_pragma_is_not() -> None:
    code = "x = 1"
    source = (
        f"{code}  # {'a' * ASIDE_LINE}\n"
        f"# {'b' * ASIDE_LINE}\n"
        f"{code}  # short\n"
        f"{code}  # type: ignore[misc]{' ' * ASIDE_LINE}\n"
        f"{code}  # type: ignore[misc]  # {'c' * ASIDE_LINE}\n"
    )
    assert long_asides(source) == [1, 5]
