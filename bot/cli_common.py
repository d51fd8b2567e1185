"""What every `icml-bot` command shares: the one-line user error, opening the index (built from the seeds when there
is none), and JSON as the shell prints it."""

from __future__ import annotations

import sys
from pathlib import Path

from bot.config import Config
from bot.papers import index
from bot.papers.lookup import paper_count
from bot.papers.reading import DatabaseError, Reader, ReadOnly, read_only
from bot.state.sqlite import path_problem


def seeds_dir() -> Path:
    """The sample abstracts that ship with the bot: inside an installed wheel, or in the source checkout."""
    packaged = Path(__file__).with_name("_seeds")
    return packaged if packaged.is_dir() else Path(__file__).resolve().parent.parent / "seeds"


class UserError(Exception):
    """Something the user can fix; printed as one line, exit status 2."""


def not_a_folder(path: Path) -> None:
    """UserError when the index path names a folder (SQLite would only say "disk I/O error")."""
    if path.is_dir():
        raise UserError(
            f"the index path {path} is a folder; set ICML_BOT_DB (or --db) to a file such as {path / 'papers.db'}"
        )


def open_index(config: Config) -> Reader:
    """The index to read, built from the bundled seeds first if there is none yet; one clear error if it is unusable.
    (Read without sqlite-utils, whose import, numpy with it, was much of an `icml-bot search`: docs/benchmarks.md.)"""
    path = config.db_path
    not_a_folder(path)
    try:
        if not path.exists():
            print(f"No index at {path} yet: building it from {seeds_dir()} …", file=sys.stderr)
            built = index.connect(path)
            index.load(built, [seeds_dir()])
            built.conn.close()
        db = ReadOnly(read_only(path))
        paper_count(db)  # reads a page: a damaged file fails here, not later
        if index.stores_markup(db):
            print(index.STORED_MARKUP.format(path=path), file=sys.stderr)
        return db
    except DatabaseError as exc:
        raise index.IndexUnavailable(
            f"the index at {path} cannot be used ({exc}); rebuild it with "
            f"`icml-bot index` (or point ICML_BOT_DB at another file)"
        ) from None
    except OSError as exc:
        raise UserError(
            f"cannot create the index at {path} ({path_problem(path, exc)}); set ICML_BOT_DB (or --db) "
            "to a path in a writable folder"
        ) from None


def json_out(value: object) -> str:
    """JSON as the shell prints it: control and bidi characters escaped, never obeyed by the terminal."""
    from bot import shell

    return shell.json_text(value)
