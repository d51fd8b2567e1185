"""Many workspaces: "Add to Slack" through Bolt's OAuth flow against the fake Slack, each workspace's data and token
apart, an uninstall that deletes the workspace's token at once, and an install page that writes nothing. Run on SQLite
and on PostgreSQL."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot import wiring
from bot.config import Config, ConfigError
from bot.serve.tokens import check_tokens
from bot.slack import oauth
from bot.slack.digest_post import NOT_INSTALLED
from bot.slack.oauth_state import SignedStates
from tests.support.fake_slack import FakeSlack
from tests.support.paths import ROOT
from tests.support.slack_harness import FORM, SlackHttp, slack_config, texts
from tests.support.slack_install import come_back, install, install_page, state_rows
from tests.support.slack_oauth import CLIENT_ID, CLIENT_SECRET
from tests.support.slack_requests import event_body, form_body, mention_event, slash_form

C_T2 = "C0T2AAAAAAA"
C_T3 = "C0T3BBBBBBB"
FLOOD = 500  # unsigned install-page visits (issue 32: each wrote a row that was never deleted)
EXPIRY = oauth.STATE_EXPIRY_SECONDS


@pytest.fixture
def many(fake: FakeSlack, slack_index_path: Path, state_target: Path | str) -> Iterator[SlackHttp]:
    """The app in HTTP mode with SLACK_CLIENT_ID and SLACK_CLIENT_SECRET set and no bot token: many workspaces."""
    config = slack_config(
        fake, slack_index_path, state_target, bot_token="", client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )
    served = SlackHttp(config)
    yield served
    served.stop()


def command(served: SlackHttp, text: str, team: str, channel: str) -> dict[str, Any]:
    reply = served.post(form_body(slash_form(text, team_id=team, channel_id=channel)), FORM)
    assert reply.status == 200
    return reply.json() if reply.headers.get("content-type", "").startswith("application/json") else {"text": ""}


def test_two_workspaces_install_and_each_is_answered_with_its_own_token(many: SlackHttp, fake: FakeSlack) -> None:
    t2, t3 = install(many, fake, "T2"), install(many, fake, "T3")
    assert t2 != t3
    assert many.event(mention_event("kv cache", channel=C_T2), team_id="T2").status == 200
    assert many.event(mention_event("kv cache", channel=C_T3), team_id="T3").status == 200
    fake.wait_for("chat.postMessage", count=2)
    many.drain()
    tokens = {c.params["channel"]: c.token for c in fake.calls("chat.postMessage")}
    assert tokens == {C_T2: t2, C_T3: t3}


def test_each_workspace_digest_posts_with_its_token_and_its_settings_stay_apart(
    many: SlackHttp, fake: FakeSlack
) -> None:
    t2, t3 = install(many, fake, "T2"), install(many, fake, "T3")
    assert "Subscribed this channel" in texts(command(many, "digest subscribe kv cache", "T2", C_T2))
    assert "no daily digest" in texts(command(many, "digest status", "T3", C_T3))
    assert "Subscribed this channel" in texts(command(many, "digest subscribe", "T3", C_T3))
    command(many, "digest now", "T2", C_T2)
    command(many, "digest now", "T3", C_T3)
    fake.wait_for("chat.postMessage", count=2)
    many.drain()
    posts = {c.params["channel"]: c.token for c in fake.calls("chat.postMessage")}
    assert posts == {C_T2: t2, C_T3: t3}
    rows = {r.channel: r.team for r in many.state.digests.subscriptions()}
    assert rows == {C_T2: "T2", C_T3: "T3"}


def test_an_uninstall_deletes_that_workspace_token_at_once_and_only_its_own(many: SlackHttp, fake: FakeSlack) -> None:
    install(many, fake, "T2")
    t3 = install(many, fake, "T3")
    assert "Subscribed this channel" in texts(command(many, "digest subscribe", "T2", C_T2))
    fake.oauth.revoke("T2")  # Slack revokes the tokens, then tells the app
    uninstalled = {"type": "app_uninstalled", "event_ts": "1773014400.000100"}
    assert many.post(json.dumps(event_body(uninstalled, team_id="T2")).encode(), "application/json").status == 200
    installations = oauth.open_installations(many.config)
    # The listener runs right after the ack, in Bolt's listener thread
    deadline = time.monotonic() + 10
    while installations.teams() != ["T3"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert installations.teams() == ["T3"]
    assert installations.bot_token("T2") is None
    assert installations.bot_token("T3") == t3
    url = fake.response_url("after-uninstall")
    assert (
        many.post(form_body(slash_form("kv cache", team_id="T2", channel_id=C_T2, response_url=url)), FORM).status
        == 200
    )
    (told,) = fake.wait_for("response")  # Bolt's own answer for a workspace without an installation
    assert "Please reinstall this app into your workspace" in told.params["text"]
    desk = wiring.digests(many.config, wiring.papers(many.config), many.state)
    now = datetime(2026, 3, 9, 9, 0, tzinfo=UTC)
    outcome = desk.digests.post_digest(C_T2, now.date(), now, manual=True, team="T2")
    assert (outcome.status, outcome.error) == ("failed", NOT_INSTALLED)  # said once, nothing posted
    # Its settings are kept for a reinstall
    assert many.state.digests.subscription(C_T2, "T2") is not None
    many.drain()
    assert fake.calls("chat.postMessage") == []


def test_tokens_revoked_deletes_the_listed_bot_token(many: SlackHttp, fake: FakeSlack) -> None:
    install(many, fake, "T2")
    revoked = {"type": "tokens_revoked", "tokens": {"bot": ["UBOTT2"]}, "event_ts": "1773014400.000200"}
    assert many.post(json.dumps(event_body(revoked, team_id="T2")).encode(), "application/json").status == 200
    many.drain()
    assert oauth.open_installations(many.config).bot_token("T2") is None


def test_a_forged_or_stale_oauth_state_installs_nothing(many: SlackHttp, fake: FakeSlack) -> None:
    code = fake.oauth.workspace("T9")
    back = many.request("GET", f"{oauth.REDIRECT_PATH}?code={code}&state=forged")
    assert back.status == 400
    assert fake.calls("oauth.v2.access") == []
    assert oauth.open_installations(many.config).teams() == []


def test_unsigned_visits_to_the_install_page_add_no_rows_and_each_page_still_installs(
    many: SlackHttp, fake: FakeSlack
) -> None:
    before = state_rows(many.config)
    states = [install_page(many) for _ in range(FLOOD)]
    after = state_rows(many.config)
    assert {t: n - before.get(t, 0) for t, n in after.items() if n != before.get(t, 0)} == {}
    assert len(set(states)) == FLOOD
    # The first page of the flood, still valid
    back = come_back(many, fake.oauth.workspace("T2"), states[0])
    assert back.status == 200, back.body
    assert oauth.open_installations(many.config).teams() == ["T2"]


def _tampered(state: str) -> str:
    issued, nonce, signature = state.split(".")
    return f"{int(issued) + 3600}.{nonce}.{signature}"  # a later time under the old signature


HOSTILE_STATES: dict[str, Callable[[], str]] = {
    "expired": lambda: SignedStates(CLIENT_SECRET, EXPIRY, clock=lambda: time.time() - EXPIRY - 5).issue(),
    "another app's": lambda: SignedStates("another-client-secret", EXPIRY).issue(),
    "its time changed": lambda: _tampered(SignedStates(CLIENT_SECRET, EXPIRY).issue()),
    "one word": lambda: "forged",
    "dotted digits": lambda: "1.2.3",
    "huge": lambda: "1" * 6000,
    "not ascii": lambda: "1773014400.\u00e9t\u00e9." + "A" * 43,
}


@pytest.mark.parametrize("kind", HOSTILE_STATES)
def test_a_state_this_app_did_not_issue_in_the_last_ten_minutes_installs_nothing(
    many: SlackHttp, fake: FakeSlack, kind: str
) -> None:
    # with its cookie: the state decides
    back = come_back(many, fake.oauth.workspace("T9"), HOSTILE_STATES[kind]())
    assert back.status == 401
    assert "Something Went Wrong" in back.body.decode()  # Bolt's failure page, never a traceback
    assert fake.calls("oauth.v2.access") == []
    assert oauth.open_installations(many.config).teams() == []


def test_a_state_comes_back_only_to_the_browser_it_was_given_to_and_a_used_code_installs_no_more(
    many: SlackHttp, fake: FakeSlack
) -> None:
    # A valid state is accepted again within its ten minutes (nothing is stored to remember it was used); what makes
    # that harmless: Bolt wants the install page's cookie beside it, and Slack's code works once.
    state, code = install_page(many), fake.oauth.workspace("T2")
    # Another browser, without the cookie
    assert come_back(many, code, state, cookie=False).status == 400
    assert fake.calls("oauth.v2.access") == []
    assert come_back(many, code, state).status == 200
    again = come_back(many, code, state)
    assert again.status == 401  # invalid_code: Slack refused the used code
    assert len(fake.calls("oauth.v2.access")) == 2
    assert oauth.open_installations(many.config).teams() == ["T2"]


def test_the_manifest_asks_for_the_scopes_the_install_link_asks_for() -> None:
    manifest = yaml.safe_load((ROOT / "manifest.yml").read_text(encoding="utf-8"))
    assert tuple(manifest["oauth_config"]["scopes"]["bot"]) == oauth.BOT_SCOPES
    assert {"app_uninstalled", "tokens_revoked"} <= set(manifest["settings"]["event_subscriptions"]["bot_events"])
    assert "/slack/oauth_redirect" in (ROOT / "manifest.yml").read_text(encoding="utf-8")


def test_many_workspaces_need_http_mode_and_no_bot_token(tmp_path: Path) -> None:
    many = Config(db_path=tmp_path / "p.db", state_path=tmp_path / "s.db", client_id=CLIENT_ID, client_secret="x")
    with pytest.raises(ConfigError, match=r"^SLACK_CLIENT_ID and SLACK_CLIENT_SECRET .* needs HTTP mode"):
        check_tokens(many, http=False)
    with pytest.raises(ConfigError, match=r"^SLACK_SIGNING_SECRET is not set"):
        check_tokens(many, http=True)
    check_tokens(replace(many, signing_secret="s" * 32), http=True)  # no SLACK_BOT_TOKEN needed
    assert "a-client-secret-value" not in repr(replace(many, client_secret="a-client-secret-value"))
