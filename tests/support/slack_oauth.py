"""The fake Slack's OAuth part: oauth.v2.access exchanges a one-time code for a workspace's bot token.

`fake.oauth.workspace("T2")` makes a workspace that "clicked Allow": it returns the code Slack would put on the
redirect URL, and its bot token becomes valid for the Web API, where auth.test answers with that workspace's team.
Revoking a workspace (`fake.oauth.revoke("T2")`) makes its token invalid_auth, as an uninstall does.
"""

from __future__ import annotations

import base64
import itertools
import threading
from dataclasses import dataclass
from typing import Any

CLIENT_ID = "1111.2222"
CLIENT_SECRET = "oauth-client-secret"


@dataclass
class Workspace:
    """One workspace that can install the app: its code (single use), bot token and the ids Slack sends."""

    team_id: str
    team_name: str
    code: str
    bot_token: str
    bot_user_id: str
    installer: str
    used: bool = False


class OAuth:
    """oauth.v2.access for the fake: checks the client credentials (HTTP Basic) and the code, then hands out a token."""

    def __init__(
        self,
        cond: threading.Condition,
        tokens: set[str],
        token_teams: dict[str, str],
        app_id: str,
        scopes: str,
        client_id: str = CLIENT_ID,
        client_secret: str = CLIENT_SECRET,
    ) -> None:
        self._cond = cond
        self._tokens = tokens
        self._token_teams = token_teams
        self._app_id = app_id
        self._scopes = scopes
        self.client_id = client_id
        self.client_secret = client_secret
        self._serial = itertools.count(1)
        self.workspaces: dict[str, Workspace] = {}

    def workspace(self, team_id: str, team_name: str | None = None, installer: str = "UINSTALLER") -> str:
        """A workspace ready to install the app; returns the code of its (next) "Allow" click."""
        with self._cond:
            n = next(self._serial)
            ws = Workspace(
                team_id,
                team_name or f"Workspace {team_id}",
                code=f"code-{team_id}-{n}",
                bot_token=f"xoxb-{team_id.lower()}-{n}",
                bot_user_id=f"UBOT{team_id}",
                installer=installer,
            )
            self.workspaces[ws.code] = ws
            return ws.code

    def installed(self, team_id: str) -> str:
        """Workspace `team_id` has the app without a click (many at once, for load tests): its bot token, now valid."""
        code = self.workspace(team_id)
        with self._cond:
            ws = self.workspaces[code]
            ws.used = True
            self._tokens.add(ws.bot_token)
            self._token_teams[ws.bot_token] = ws.team_id
        return ws.bot_token

    def token_of(self, team_id: str) -> str:
        """The bot token most recently handed to `team_id`."""
        with self._cond:
            found = [w for w in self.workspaces.values() if w.team_id == team_id and w.used]
        assert found, f"{team_id} never installed the app"
        return found[-1].bot_token

    def revoke(self, team_id: str) -> None:
        """Every token of the workspace stops working (what Slack does when the app is uninstalled there)."""
        with self._cond:
            for ws in self.workspaces.values():
                if ws.team_id == team_id:
                    self._tokens.discard(ws.bot_token)

    def access(self, params: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """Slack's answer to oauth.v2.access."""
        client_id, client_secret = _basic(headers.get("authorization", ""))
        client_id = client_id or str(params.get("client_id") or "")
        client_secret = client_secret or str(params.get("client_secret") or "")
        if client_id != self.client_id:
            return {"ok": False, "error": "invalid_client_id"}
        if client_secret != self.client_secret:
            return {"ok": False, "error": "bad_client_secret"}
        with self._cond:
            ws = self.workspaces.get(str(params.get("code") or ""))
            if ws is None or ws.used:
                return {"ok": False, "error": "invalid_code"}
            ws.used = True
            self._tokens.add(ws.bot_token)
            self._token_teams[ws.bot_token] = ws.team_id
        return {
            "ok": True,
            "access_token": ws.bot_token,
            "token_type": "bot",
            "scope": self._scopes,
            "bot_user_id": ws.bot_user_id,
            "app_id": self._app_id,
            "team": {"id": ws.team_id, "name": ws.team_name},
            "enterprise": None,
            "is_enterprise_install": False,
            "authed_user": {"id": ws.installer},
        }


def _basic(header: str) -> tuple[str, str]:
    """(client_id, client_secret) from an HTTP Basic Authorization header, or empty strings."""
    if not header.lower().startswith("basic "):
        return "", ""
    try:
        raw = base64.b64decode(header[6:].strip()).decode("utf-8")
    except ValueError:
        return "", ""
    user, _, password = raw.partition(":")
    return user, password
