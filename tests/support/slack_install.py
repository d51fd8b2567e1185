""" "Add to Slack" as a browser clicks it: the install page, Allow in the fake Slack, back to the redirect URL."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from urllib.parse import parse_qs, quote, urlsplit

import sqlalchemy
from slack_sdk.oauth.installation_store import Installation

from bot.config import Config
from bot.slack import oauth
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import Reply, SignedClient
from tests.support.slack_oauth import CLIENT_ID

COOKIE = "slack-app-oauth-state"


def install_page(served: SignedClient) -> str:
    """GET the install page (unsigned, as a browser); returns the state its link and its cookie carry."""
    page = served.request("GET", oauth.INSTALL_PATH)
    assert page.status == 200
    state = re.search(rf"{COOKIE}=([^;]+)", page.headers["set-cookie"])
    assert state is not None
    link = re.search(r'href="(https://slack\.com/oauth/v2/authorize\?[^"]+)"', page.body.decode())
    assert link is not None
    query = parse_qs(urlsplit(link.group(1).replace("&amp;", "&")).query)
    assert query["client_id"] == [CLIENT_ID]
    assert query["scope"] == [",".join(oauth.BOT_SCOPES)]
    assert query["state"] == [state.group(1)]
    return state.group(1)


def come_back(served: SignedClient, code: str, state: str, cookie: bool = True) -> Reply:
    """The browser's way back to the redirect URL: Slack's code, the state and (as browsers send it) its cookie."""
    headers = {"Cookie": f"{COOKIE}={state}"} if cookie else {}
    return served.request("GET", f"{oauth.REDIRECT_PATH}?code={code}&state={quote(state, safe='')}", headers=headers)


def install(served: SignedClient, fake: FakeSlack, team: str, back_to: SignedClient | None = None) -> str:
    """Click "Add to Slack", allow in workspace `team`, come back (to `back_to`, another replica, if given).

    Returns the bot token the workspace got."""
    state = install_page(served)
    back = come_back(back_to or served, fake.oauth.workspace(team), state)
    assert back.status == 200, back.body
    assert "Thank you!" in back.body.decode()
    return fake.oauth.token_of(team)


def state_rows(config: Config) -> dict[str, int]:
    """How many rows each table of the state database holds (SQLite file or PostgreSQL)."""
    engine = sqlalchemy.create_engine(oauth.engine_url(config))
    try:
        with engine.connect() as conn:
            tables = sqlalchemy.inspect(conn).get_table_names()
            count = sqlalchemy.select(sqlalchemy.func.count())
            return {t: int(conn.execute(count.select_from(sqlalchemy.table(t))).scalar_one()) for t in tables}
    finally:
        engine.dispose()


def write_installations(config: Config, tokens: Mapping[str, str]) -> None:
    """Workspace → bot token, written into the installation store as a finished "Add to Slack" leaves it (a thousand
    workspaces need not click); give the fake the same tokens with `fake.oauth.installed(team)`."""
    installations = oauth.open_installations(config)
    try:
        for team, token in tokens.items():
            installations.store.save(
                Installation(
                    app_id="A1",
                    enterprise_id=None,
                    team_id=team,
                    bot_token=token,
                    bot_id=f"B{team}",
                    bot_user_id=f"UBOT{team}",
                    bot_scopes=list(oauth.BOT_SCOPES),
                    user_id="UINSTALLER",
                    installed_at=time.time(),
                )
            )
    finally:
        installations.engine.dispose()
