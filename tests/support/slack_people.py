"""The fake's people and channel members: users.info (with each person's time zone) and conversations.members.

Tests say who is who with ``fake.people.set_user("U1", tz="Asia/Seoul")`` and ``fake.people.set_members("C1",
["U1", "U2"])``; a user nobody set answers `user_not_found`, as Slack does for an unknown id, and a channel nobody set
has no members.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["People"]

Answer = tuple[int, dict[str, Any], dict[str, str]]
MAX_MEMBERS_PAGE = 1000  # conversations.members' largest `limit`


class People:
    """Users and channel memberships of the fake workspace; answered under the fake's one condition."""

    METHODS = ("users.info", "conversations.members")

    def __init__(self, cond: threading.Condition) -> None:
        self._cond = cond
        self._users: dict[str, dict[str, Any]] = {}
        self._members: dict[str, list[str]] = {}

    def clear(self) -> None:
        """Forget every user and membership."""
        with self._cond:
            self._users.clear()
            self._members.clear()

    def set_user(self, user: str, tz: str | None = "America/Los_Angeles", team: str = "T1") -> None:
        """A person in the workspace `team`, with their Slack time zone (None: a profile without one)."""
        with self._cond:
            self._users[user] = {"id": user, "team_id": team, "name": user.lower(), "tz": tz}

    def set_members(self, channel: str, members: list[str]) -> None:
        """Who is in `channel` (Slack Connect: people of either workspace)."""
        with self._cond:
            self._members[channel] = list(members)

    def answer(self, method: str, params: dict[str, Any]) -> Answer:
        """Slack's answer to one of METHODS (the caller holds the condition)."""
        if method == "users.info":
            found = self._users.get(str(params.get("user") or ""))
            if found is None:
                return 200, {"ok": False, "error": "user_not_found"}, {}
            return 200, {"ok": True, "user": dict(found)}, {}
        channel = str(params.get("channel") or "")
        if not channel:
            return 200, {"ok": False, "error": "channel_not_found"}, {}
        limit = min(int(params.get("limit") or 100), MAX_MEMBERS_PAGE)
        start = int(params.get("cursor") or 0)
        everyone = self._members.get(channel, [])
        page = everyone[start : start + limit]
        after = start + limit if start + limit < len(everyone) else None
        return 200, {"ok": True, "members": page, "response_metadata": {"next_cursor": str(after or "")}}, {}
