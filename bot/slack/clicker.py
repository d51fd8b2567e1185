"""Whose click it is: the clicker's own workspace, which in a Slack Connect channel is not the one Bolt authorized.

On a message that workspace A's installation posted in a channel shared with workspace B, a click by B's user
carries `team.id` = A (the installation Bolt picks the token of) and `user.team_id` = B (slackapi/java-slack-sdk#1041,
Slack's block_actions reference). Saves, votes and list entries are the clicker's, so they belong to B.
"""

from __future__ import annotations

from typing import Any


def clicker_team(body: dict[str, Any]) -> str:
    """The workspace of the user who clicked: `user.team_id`, else (older or org-wide payloads) `team.id`."""
    user, team = body.get("user"), body.get("team")
    own = user.get("team_id") if isinstance(user, dict) else None
    return str(own or (team.get("id") if isinstance(team, dict) else None) or "")


def installed_team(body: dict[str, Any]) -> str:
    """The workspace whose installation posted the clicked message (its token is the one Bolt's client holds)."""
    team = body.get("team") or {}
    view = body.get("view") or {}
    installed = view.get("app_installed_team_id") if isinstance(view, dict) else None
    return str(installed or (team.get("id") if isinstance(team, dict) else "") or clicker_team(body))


def from_another_workspace(body: dict[str, Any]) -> bool:
    """Whether the clicker belongs to another workspace than the installation that answers (a Slack Connect click)."""
    return clicker_team(body) != installed_team(body)
