"""Processes opening one new SQLite state file at once all come up (replicas started together, issue 32's CI flake)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from bot.state import State

# How long the other process keeps its write lock on the file before the WAL switch
HELD_SECONDS = 0.3


def test_opening_while_another_process_writes_the_file_in_its_old_mode_waits_for_it(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE other_process (x)")
    # A rollback-journal writer: SQLite refuses our WAL switch at once, unwaited
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO other_process VALUES (1)")
    release = threading.Timer(HELD_SECONDS, lambda: other.execute("COMMIT"))
    release.start()
    try:
        state = State(path)
    finally:
        release.join()
        other.close()
    assert state.events.first_time("EvAfterTheRace") is True
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
