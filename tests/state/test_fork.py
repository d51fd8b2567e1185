"""A State opened before fork() (a pre-fork server's master) works in the child on connections of its own."""

from __future__ import annotations

import os
from pathlib import Path

from bot.state import State
from tests.support.state_sql import state_sql


def test_a_forked_child_opens_its_own_connection_and_the_parent_keeps_its(state_target: Path | str) -> None:
    state = State(state_target)
    assert state.events.first_time("EvParentBefore") is True
    parent_db = state_sql(state)
    pid = os.fork()
    if pid == 0:  # the child: must not touch the parent's connection
        code = 1
        try:
            child_db = state_sql(state)
            seen = state.events.first_time
            ok = child_db is not parent_db and seen("EvChild") and not seen("EvParentBefore")
            code = 0 if ok else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert state_sql(state) is parent_db
    # The child's write is in the shared database
    assert state.events.first_time("EvChild") is False
    assert state.events.first_time("EvParentAfter") is True
