"""The tables of docs/ made from the code (settings, `icml-bot` and `/icml` commands), so they cannot drift from it.

`python -m bot.docs` rewrites each table between its marker comments; tests/test_docs.py fails when one is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from bot.cli_parser import build_parser
from bot.config import SETTINGS
from bot.slack import commands, digest_commands

DOCS = Path(__file__).resolve().parent.parent / "docs"
REFRESH = "python -m bot.docs"


def _cell(text: str) -> str:
    """Table cell text: one line, pipes escaped (GitHub tables split on `|` even inside backticks)."""
    return " ".join(text.split()).replace("|", "\\|")


def _table(header: tuple[str, str] | tuple[str, str, str], rows: Iterable[Iterable[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def settings_table() -> str:
    """Every environment variable of config.SETTINGS with its default and help."""
    rows = ((f"`{s.env}`", f"`{s.default}`" if s.default else "", s.help) for s in SETTINGS)
    return "\n".join(_table(("variable", "default", "meaning"), rows))


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help, parser) of each subcommand, in the parser's order."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    return [(name, helps[name], p) for name, p in sub.choices.items()]


def _own_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """A subcommand's arguments, without --help and the --db every command takes."""
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction) and a.dest != "db"]


def _synopsis(action: argparse.Action) -> str:
    """How an argument is written: `QUERY ...`, `--limit LIMIT`, `--json`."""
    name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    if not action.option_strings:
        return f"{name} ..." if action.nargs in ("*", "+") else name
    flag = max(action.option_strings, key=len)
    return flag if action.nargs == 0 else f"{flag} {name}"


def _usage(action: argparse.Action) -> str:
    """An argument in a command's usage line: in brackets unless it must be given."""
    optional = action.option_strings or action.nargs in ("*", "?")
    return f"[{_synopsis(action)}]" if optional else _synopsis(action)


def cli_table() -> str:
    """`icml-bot`'s commands from its argument parser: one summary table, then each command's arguments."""
    parser = build_parser()
    db = next(a for a in parser._actions if a.dest == "db")
    subs = _subcommands(parser)
    summary = ((f"`icml-bot {' '.join([name, *map(_usage, _own_actions(p))])}`", help_) for name, help_, p in subs)
    lines = _table(("command", "what it does"), summary)
    lines += ["", f"Every command takes `{_synopsis(db)}`: {db.help}."]
    for name, help_, p in subs:
        lines += ["", f"### icml-bot {name}", "", _cell(p.description or help_[:1].upper() + help_[1:] + ".")]
        own = _own_actions(p)
        if own:
            lines += ["", *_table(("argument", "meaning"), ((f"`{_synopsis(a)}`", a.help or "") for a in own))]
    return "\n".join(lines)


def slash_table() -> str:
    """`/icml`'s subcommands from the table that dispatches them and writes `/icml help`, and `/icml digest`'s."""
    top = [commands.SEARCH_HELP, *((" ".join(filter(None, (s.name, s.usage))), s.help) for s in commands.SUBCOMMANDS)]
    digest = digest_commands.USAGE
    lines = _table(("command", "what it does"), ((f"`/icml {usage}`", help_) for usage, help_ in top))
    lines += ["", "### /icml digest", ""]
    lines += _table(("command", "what it does"), ((f"`/icml digest {u}`", h) for u, h in digest))
    return "\n".join(lines)


# Each page of docs/ with generated tables, and its tables by marker name.
GENERATED: dict[str, dict[str, Callable[[], str]]] = {
    "configuration.md": {"settings": settings_table},
    "commands.md": {"cli": cli_table, "slash": slash_table},
}


def _block(name: str) -> re.Pattern[str]:
    """The text between a table's two marker comments."""
    return re.compile(rf"(<!-- generated:{name} .*?-->\n).*?(<!-- end generated:{name} -->)", re.DOTALL)


def refreshed(text: str, tables: dict[str, Callable[[], str]]) -> str:
    """A page's text with each generated table made anew; ValueError when a marker is missing."""
    for name, render in tables.items():
        found = list(_block(name).finditer(text))
        if len(found) != 1:
            raise ValueError(f"no <!-- generated:{name} --> ... <!-- end generated:{name} --> markers")
        text = f"{text[: found[0].end(1)]}\n{render()}\n\n{text[found[0].start(2) :]}"
    return text


def stale(docs: Path = DOCS) -> list[str]:
    """The pages whose generated tables differ from what the code says now."""
    return [page for page, tables in GENERATED.items() if _differs(docs / page, tables)]


def _differs(path: Path, tables: dict[str, Callable[[], str]]) -> bool:
    """Whether a page's generated tables are not what the code makes now."""
    text = path.read_text(encoding="utf-8")
    return refreshed(text, tables) != text


def write(docs: Path = DOCS) -> list[str]:
    """Rewrite the stale pages; returns their names."""
    changed = stale(docs)
    for page in changed:
        path = docs / page
        path.write_text(refreshed(path.read_text(encoding="utf-8"), GENERATED[page]), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None, folder: Path = DOCS) -> int:
    """`python -m bot.docs`: refresh the generated tables and say which pages changed; `--check`: change nothing, and
    exit 1 naming the stale pages."""
    parser = argparse.ArgumentParser(prog=REFRESH, description=__doc__)
    parser.add_argument("--check", action="store_true", help="only say which pages are stale (exit 1 if any)")
    args = parser.parse_args(argv)
    if args.check:
        stale_pages = stale(folder)
        print(
            "\n".join(f"stale: docs/{page} (run `{REFRESH}`)" for page in stale_pages) or "docs/ tables are up to date"
        )
        return 1 if stale_pages else 0
    changed = write(folder)
    print("\n".join(f"updated docs/{page}" for page in changed) or "docs/ tables are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
