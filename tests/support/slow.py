"""Which tests are `slow` (the served app, real processes, PostgreSQL, the 5,863-paper list), decided in one place so
a new test is marked by what it uses; tests/conftest.py applies it to each test and `-m "not slow"` leaves them out."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import SHARED_DATA_MISSING

# Fixtures that serve the app, start a PostgreSQL server (tests/conftest.py) or read the real ICML 2026 list.
SLOW_FIXTURES = frozenset(
    {"slack_http", "postgres_server", "postgres_url", "private_postgres", "full_index_path", "icml2026"}
)
# What serves the app (tests/support/slack_harness.py) or starts processes: `icml-bot` run by tests/support/robust.py,
# or any command run by subprocess. A test or a fixture of its module that calls one, directly or through a helper
# of its module, is slow.
SLOW_CALLS = frozenset({"SlackHttp", "socket_mode_app", "BotProcess", "serve_http", "slash_load", "subprocess"})
# Every collected test file and whether the test was slow, before `-m` deselects (tests/test_quick_loop.py reads it).
COLLECTED = pytest.StashKey[set[tuple[Path, bool]]]()


def _unwrapped(thing: object) -> types.FunctionType | None:
    """The function a decorator (Hypothesis, pytest.fixture, contextmanager) wrapped, or None for no function."""
    function = inspect.unwrap(thing) if callable(thing) else None
    return function if isinstance(function, types.FunctionType) else None


def _names(function: types.FunctionType) -> Iterator[str]:
    """The global names a function reads, in its nested functions and in the helpers of its own module it calls."""
    seen: set[types.CodeType] = set()
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        if code in seen:
            continue
        seen.add(code)
        yield from code.co_names
        codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
        for name in code.co_names:
            helper = _unwrapped(function.__globals__.get(name))  # (a @contextmanager's own code is contextlib's)
            if helper is not None and helper.__module__ == function.__module__:
                codes.append(helper.__code__)


def is_slow(item: pytest.Item) -> bool:
    """True for a test that serves the app, starts processes or a database server, or reads ../shared/data."""
    if item.get_closest_marker("slow") or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("state_target") == "postgresql":
        return True
    if any(mark.kwargs.get("reason") == SHARED_DATA_MISSING for mark in item.iter_markers("skipif")):
        return True
    module = getattr(item, "module", None)
    defined = vars(module) if module is not None else {}
    own_fixtures = [defined[name] for name in getattr(item, "fixturenames", ()) if name in defined]
    functions = [_unwrapped(f) for f in (getattr(item, "function", None), *own_fixtures)]
    return any(f is not None and not SLOW_CALLS.isdisjoint(_names(f)) for f in functions)
