"""The code's shape, checked: the import contracts in pyproject.toml hold, only bot/wiring.py builds the parts, and
only bot/papers writes SQL against the paper index."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

# What bot/wiring.py alone creates: the paper reader, the state, the digests and their Slack poster.
PARTS = {"Papers", "State", "ChannelDigests", "DigestService", "SlackPoster"}

# The paper index's tables (bot.papers.schema, search_tables, related, vectors), named in SQL.
INDEX_TABLES = "papers|paper_keys|aliases|vocab|sources|meta|people|acronyms|name_keys|neighbours|paper_vectors"
INDEX_SQL = re.compile(  # (keywords in capitals, as the code writes SQL: "papers from people" is prose)
    rf"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:{INDEX_TABLES})\b|\b(?:papers_fts|titles_fts)\b"
)


def test_the_layer_and_no_cycle_contracts_hold() -> None:
    lint = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "pyproject.toml"]
    done = subprocess.run(lint, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout[done.stdout.find("Broken contracts") :] or done.stderr


def test_only_wiring_builds_the_reader_the_state_the_digests_and_the_poster() -> None:
    builders: dict[str, set[str]] = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PARTS:
                builders.setdefault(node.func.id, set()).add(str(Path(path).relative_to(ROOT)))
    assert builders == {name: {"bot/wiring.py"} for name in PARTS}


def _strings(tree: ast.Module) -> list[str]:
    """A module's string literals, f-strings' literal parts included, docstrings left out (they may name tables)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_only_bot_papers_writes_sql_against_the_paper_index() -> None:
    """bot/papers owns every query of the index (as bot/state owns the state's): nothing else names its tables."""
    naming: set[str] = set()
    for path in sorted((ROOT / "bot").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        if where.startswith(("bot/papers/", "bot/state/")):
            continue
        if any(INDEX_SQL.search(text) for text in _strings(ast.parse(path.read_text(encoding="utf-8")))):
            naming.add(where)
    assert naming == set()


def test_the_index_sql_check_sees_a_statement() -> None:
    """The check above is no check if it misses a plain statement, an f-string's part or a join."""
    tree = ast.parse(
        'x = "SELECT id FROM papers WHERE rowid = ?"\n'
        'y = f"SELECT 1 FROM {t} JOIN people ON 1"\n'
        'def f():\n    """Reads papers_fts."""\n'
    )
    found = [text for text in _strings(tree) if INDEX_SQL.search(text)]
    assert found == ["SELECT id FROM papers WHERE rowid = ?", " JOIN people ON 1"]
