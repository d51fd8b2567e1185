"""The code's shape, checked: the import contracts in pyproject.toml hold, and only bot/wiring.py builds the parts."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

# What bot/wiring.py alone creates: the paper reader, the state, the digests and their Slack poster.
PARTS = {"Papers", "State", "ChannelDigests", "DigestService", "SlackPoster"}


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
