"""Which processes a command left behind: everything in the session it was started in."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path


def session_members(sid: int) -> list[int]:
    """Live pids whose session id is `sid` (start the command with start_new_session=True, so sid is its pid)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited while we looked
        fields = stat[stat.rindex(")") + 2 :].split()  # the name may hold spaces and parentheses
        state, session = fields[0], int(fields[3])
        if session == sid and state != "Z":
            members.append(int(entry.name))
    return members


def children(pid: int) -> list[int]:
    """Live pids whose parent is `pid` (gunicorn's workers under its master)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def wait_session_empty(sid: int, timeout: float = 10.0) -> list[int]:
    """Poll until nothing of the session is alive; the pids still alive when `timeout` ran out."""
    deadline = time.monotonic() + timeout
    while (left := session_members(sid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def kill_session(sid: int) -> None:
    """Clean up after a failed check: SIGKILL whatever is left of the session."""
    for pid in session_members(sid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
