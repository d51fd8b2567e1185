"""Papers a test knows are in the index: looked up so that a missing one fails the test, not a TypeError."""

from __future__ import annotations

import sqlite_utils

from bot.papers import index
from bot.papers.row import PaperRow


def known(db: sqlite_utils.Database, ref: str) -> PaperRow:
    """index.get_paper for a paper the test put there."""
    paper = index.get_paper(db, ref)
    assert paper is not None, f"no paper {ref!r} in the index"
    return paper


def source_id(paper: PaperRow) -> str:
    """The id a paper had in its source list, for the tests' lists (where every paper has one)."""
    assert paper["source_id"] is not None, f"paper {paper['id']} has no source id"
    return paper["source_id"]
