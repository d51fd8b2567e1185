"""Putting a built index where running bots read it: copy, switch to a rollback journal, rename over the old file.

Readers (bot.search.reader.Papers) open the file now at the path on their next query, so replicas pick up a new
index without a restart and never see half a copy. The copy is in rollback-journal mode because SQLite pairs a
database with the `-wal` file *named* after it: a WAL-mode file renamed over a live one would be read through the
old file's WAL. So a file served this way is only ever replaced by publish(), never loaded in place.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from bot.papers.reading import read_only_uri


def publish(source: Path, target: Path) -> None:
    """Copy the index at `source` (even while it is written: SQLite's backup) and rename it over `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=".part")
    os.close(fd)
    try:
        src = sqlite3.connect(read_only_uri(source), uri=True)
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
            src.close()
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())  # the bytes are on disk before the name points at them
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
