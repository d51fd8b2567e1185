"""What users create, kept apart from the paper index: the State store (SQLite) and its schema."""

from bot.state.store import State, StateUnavailable, is_locked, path_problem

__all__ = ["State", "StateUnavailable", "is_locked", "path_problem"]
