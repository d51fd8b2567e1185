"""What users create, kept apart from the paper index: the State store (SQLite or PostgreSQL) and its schema."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.state.store import ERRORS, State, StateUnavailable, is_locked, is_unreachable, path_problem

__all__ = ["ERRORS", "State", "StateUnavailable", "is_locked", "is_unreachable", "path_problem"]


def __getattr__(name: str) -> Any:
    """The store's names, imported on first use: `bot.state.postgres` (config, logs) must not load the store, whose
    drivers and schema (psycopg, SQLAlchemy) are slow to import for a command line (docs/benchmarks.md)."""
    if name in __all__:
        return getattr(importlib.import_module("bot.state.store"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
