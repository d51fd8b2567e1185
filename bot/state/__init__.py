"""What users create, kept apart from the paper index: the State store (SQLite or PostgreSQL) and its schema."""

from bot.state.store import ERRORS, State, StateUnavailable, is_locked, is_unreachable, path_problem

__all__ = ["ERRORS", "State", "StateUnavailable", "is_locked", "is_unreachable", "path_problem"]
