"""The acronym pairs the index learned from abstracts (bot.text.acronyms), as query time reads them: all at once, or
one acronym or long form at a time. An index built before acronyms were learned has none."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from bot.papers.reading import Reader
from bot.text.acronyms import AcronymPair

_SQL = "SELECT key, form, long, papers FROM acronyms"


def _learned(db: Reader, sql: str, parameters: Sequence[str] | None = None) -> list[AcronymPair]:
    """Pairs as a statement reads them ([]: an index without the table)."""
    try:
        return [AcronymPair(*row) for row in db.execute(sql, parameters)]
    except sqlite3.OperationalError:
        return []


def learned_pairs(db: Reader) -> list[AcronymPair]:
    """Every pair the index learned, in table order."""
    return _learned(db, _SQL)


def learned_for_acronym(db: Reader, key: str) -> list[AcronymPair]:
    """The pairs of one acronym (by its key), in table order."""
    return _learned(db, _SQL + " WHERE key = ? ORDER BY rowid", [key])


def learned_for_long(db: Reader, long: str) -> list[AcronymPair]:
    """The pairs of one long form (by its key), in table order."""
    return _learned(db, _SQL + " WHERE long = ? ORDER BY rowid", [long])


def long_forms_holding(db: Reader, word: str) -> list[str]:
    """The learned long forms holding `word` anywhere (the caller splits them into words)."""
    try:
        return [long for (long,) in db.execute("SELECT long FROM acronyms WHERE instr(long, ?)", [word])]
    except sqlite3.OperationalError:
        return []
