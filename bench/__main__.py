"""`python -m bench` lists every benchmark with its purpose; `python -m bench NAME [ARGS]` runs one.

NAME is a module's name (`graded`) or its kind and name (`quality.graded`); each module also runs on its own
(`python -m bench.quality.graded`). The list reads the modules' docstrings without importing them.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# As listed; tools are run the same way but measure nothing
KINDS = ("quality", "speed", "abuse", "tools")


def modules() -> dict[str, Path]:
    """Every runnable module by its `kind.name`, kind by kind, names in order."""
    return {f"{kind}.{path.stem}": path for kind in KINDS for path in sorted((HERE / kind).glob("[!_]*.py"))}


def purpose(path: Path) -> str:
    """The first line of a module's docstring."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.split("\n", 1)[0]


def listing() -> str:
    """The table `python -m bench` prints: each module's short name (what to run) and purpose, under its kind."""
    lines = ["python -m bench NAME [ARGS]   (NAME --help for a module's options)"]
    found = modules()
    width = max(len(key.split(".")[1]) for key in found)
    for kind in KINDS:
        lines.append(f"\n{kind}:")
        lines += [
            f"  {key.split('.')[1]:{width}}  {purpose(path)}"
            for key, path in found.items()
            if key.startswith(f"{kind}.")
        ]
    return "\n".join(lines)


def resolve(name: str) -> str | None:
    """The module `name` (short, or kind.name) stands for, or None when it names none."""
    found = modules()
    matches = [key for key in found if name in (key, key.split(".")[1])]
    return f"bench.{matches[0]}" if len(matches) == 1 else None


def main(argv: list[str]) -> int:
    """List the benchmarks, or run the one named (then this never returns)."""
    if not argv or argv[0] in ("-h", "--help"):
        print(listing())
        return 0
    module = resolve(argv[0])
    if module is None:
        print(f"no benchmark named {argv[0]!r}\n\n{listing()}", file=sys.stderr)
        return 2
    # This process becomes `python -m bench.KIND.NAME ARGS`: the very run of the module alone (its own __main__,
    # which the multiprocessing of some benches re-imports in their workers).
    os.execv(sys.executable, [sys.executable, "-m", module, *argv[1:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
