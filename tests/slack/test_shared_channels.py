"""Workspaces kept apart in a Slack Connect channel (one channel id in both workspaces): each workspace's `/icml
digest` commands, buttons and Home tab act only on its own digest there, and each digest posts with its own
workspace's token. Also: digests made without a workspace are adopted only by `/icml digest adopt`, and Enterprise
Grid org-wide installs post.
Run through the served app with two workspaces installed by OAuth, on SQLite and on PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from slack_sdk.oauth.installation_store import Installation

from bot import wiring
from bot.digest.subscriptions import Settings
from bot.slack import oauth
from bot.team import feedback, reading_list, saves
from tests.slack.test_home import home_opened
from tests.slack.test_oauth import command, many  # noqa: F401  (many: the fixture)
from tests.slack.test_team_saves import answer
from tests.support.fake_slack import FakeSlack
from tests.support.slack_clicks import press
from tests.support.slack_harness import FORM, Reply, SlackHttp, texts
from tests.support.slack_install import install
from tests.support.slack_requests import form_body, slash_form
from tests.support.state_sql import state_sql

SHARED = "C0SHAREDXX1"  # one id in both workspaces, as Slack Connect gives it


def digest_posts(fake: FakeSlack) -> list[Any]:
    return [c for c in fake.calls("chat.postMessage") if c.params.get("channel") == SHARED and c.ok]


def home_of(served: SlackHttp, fake: FakeSlack, team: str, user: str) -> str:
    """The Home tab a user of workspace `team` sees when opening it, as text."""
    before = len([c for c in fake.calls("views.publish") if c.params.get("user_id") == user])
    assert served.event(home_opened(user), team_id=team).status == 200
    views = fake.wait_for(lambda c: c.method == "views.publish" and c.params["user_id"] == user, count=before + 1)
    return str(views[-1].params["view"])


def test_a_shared_channel_has_one_digest_per_workspace_each_acted_on_only_by_its_own(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
) -> None:
    t2, t3 = install(many, fake, "T2"), install(many, fake, "T3")
    assert "Subscribed this channel" in texts(command(many, "digest subscribe kv cache at 07:30", "T2", SHARED))

    status = texts(command(many, "digest status", "T3", SHARED))
    assert "no daily digest" in status  # A's topics and time are A's
    assert "kv cache" not in status
    assert "07:30" not in status
    assert "has no daily digest" in texts(command(many, "digest unsubscribe", "T3", SHARED))
    kept = many.state.digests.subscription(SHARED, "T2")
    assert kept is not None
    assert kept.active == 1  # B's unsubscribe left A's alone

    assert "Subscribed this channel" in texts(command(many, "digest subscribe grokking", "T3", SHARED))
    rows = {r.team: r.topics for r in many.state.digests.subscriptions(SHARED)}
    # B's subscribe made B's own, A's row kept its team
    assert rows == {"T2": "kv cache", "T3": "grokking"}

    assert "Posted the digest" in texts(command(many, "digest now", "T2", SHARED))
    first = digest_posts(fake)
    assert [c.token for c in first] == [t2]
    # B's user clicks on A's digest, as Slack sends it: team.id = A (who posted), user.team_id = B (who clicked)
    press(
        many,
        fake,
        first[0].params,
        "Less like this",
        channel=SHARED,
        team="T2",
        user_team="T3",
        user="U3",
        ephemeral=False,
        name="less",
    )
    assert "push papers close to it to the back" in texts(answer(fake, "less"))
    # B's click is not A's vote
    assert feedback.votes_in_channel(many.state, SHARED, "T2").disliked == ()
    assert len(feedback.votes_in_channel(many.state, SHARED, "T3").disliked) == 1

    # A's today is not B's
    assert "Posted the digest" in texts(command(many, "digest now", "T3", SHARED))
    assert [c.token for c in digest_posts(fake)] == [t2, t3]  # each with its own workspace's token
    # Still once a day
    assert "already in this channel" in texts(command(many, "digest now", "T2", SHARED))


def test_a_digest_without_a_workspace_is_adopted_only_by_digest_adopt(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
) -> None:
    install(many, fake, "T2"), install(many, fake, "T3")
    assert "Subscribed this channel" in texts(command(many, "digest subscribe kv cache at 07:30", "T2", SHARED))
    # As made before many workspaces
    state_sql(many.state).execute("UPDATE digest_subscriptions SET team = ''")
    for team, user in (("T2", "U2"), ("T3", "U3")):
        assert SHARED not in home_of(many, fake, team, user)

    status = texts(command(many, "digest status", "T3", SHARED))  # any command used to hand it over
    assert "no daily digest" in status
    # The hint, with its schedule only
    assert "`/icml digest adopt` makes it this workspace's" in status
    assert "07:30" in status
    assert "kv cache" not in status
    for words in ("digest preview", "digest now", "digest unsubscribe", "digest subscribe"):
        command(many, words, "T2", SHARED)
    unowned = many.state.digests.subscription(SHARED)
    assert unowned is not None
    # No other command took it or changed it
    assert (unowned.topics, unowned.active) == ("kv cache", True)
    rows = [(r.team, r.topics) for r in many.state.digests.subscriptions(SHARED)]
    # T2's own subscribe made T2 a digest of its own
    assert rows == [("", "kv cache"), ("T2", "")]

    adopted = texts(command(many, "digest adopt", "T3", SHARED))
    assert "is now this workspace's, with its rounds and votes" in adopted
    assert [(r.team, r.topics) for r in many.state.digests.subscriptions(SHARED)] == [("T2", ""), ("T3", "kv cache")]
    assert "kv cache" in texts(command(many, "digest status", "T3", SHARED))
    assert SHARED in home_of(many, fake, "T3", "U3")
    # adopted once, by one
    assert "nothing to adopt" in texts(command(many, "digest adopt", "T2", SHARED))
    # No hint once it is taken
    assert "adopt" not in texts(command(many, "digest status", "T2", SHARED))


def test_digest_adopt_leaves_a_workspaces_own_digest_and_the_unowned_one_alone(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
) -> None:
    install(many, fake, "T2")
    assert "Subscribed this channel" in texts(command(many, "digest subscribe grokking", "T2", SHARED))
    state_sql(many.state).execute(
        "INSERT INTO digest_subscriptions (team, channel, enterprise, topics, at, tz, days, size, source, active, "
        "created_by, created_at, updated_at, schedule_from) SELECT '', channel, '', 'kv cache', at, tz, days, size, "
        "source, active, created_by, created_at, updated_at, schedule_from FROM digest_subscriptions"
    )
    assert "already has its own digest" in texts(command(many, "digest adopt", "T2", SHARED))
    rows = [(r.team, r.topics) for r in many.state.digests.subscriptions(SHARED)]
    assert rows == [("", "kv cache"), ("T2", "grokking")]


def test_an_org_wide_grid_install_posts_the_digests_of_its_workspaces(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    installations = oauth.open_installations(many.config)
    installations.store.save(
        Installation(
            app_id="A1",
            enterprise_id="E1",
            team_id=None,
            is_enterprise_install=True,
            bot_token="xoxb-org-e1",
            bot_id="BORG",
            bot_user_id="UBORG",
            user_id="UADMIN",
            installed_at=datetime(2026, 3, 1, tzinfo=UTC).timestamp(),
        )
    )
    assert installations.bot_token("T4", "E1") == "xoxb-org-e1"
    assert installations.bot_token("T4") is None  # (the lookup before: no enterprise, no bot)
    fake.tokens.add("xoxb-org-e1")
    # A workspace with an installation of its own, beside the org-wide one
    t2 = install(many, fake, "T2")
    # The state database asked for a workspace's org (it used to be, for every post)
    asked: list[str] = []
    enterprise_of = many.state.digests.enterprise_of

    def counted(team: str) -> str:
        asked.append(team)
        return enterprise_of(team)

    monkeypatch.setattr(many.state.digests, "enterprise_of", counted)
    service = wiring.digests(many.config, wiring.papers(many.config), many.state)
    try:
        start = datetime(2026, 3, 9, 8, 0, tzinfo=UTC)
        service.subscriptions.subscribe(SHARED, start, Settings(topics="kv cache", enterprise="E1"), team="T4")
        service.subscriptions.subscribe(SHARED, start, Settings(topics="grokking"), team="T2")
        outcomes = [
            service.digests.post_digest(SHARED, day.date(), day, manual=True, team=team)
            for day in (start + timedelta(days=n) for n in range(3))
            for team in ("T4", "T2")
        ]
    finally:
        service.stop()
    assert [o.status for o in outcomes] == ["posted"] * 6, [o.describe() for o in outcomes]
    assert [c.token for c in digest_posts(fake)] == ["xoxb-org-e1", t2] * 3
    # Once, for the org-wide install's workspace; never for one installed itself
    assert asked == ["T4"]


def test_an_adopted_icml_digest_channel_stays_one_digest_across_a_restart(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
) -> None:
    config = replace(many.config, digest_channel=SHARED)

    def start() -> None:  # what `serve` does with ICML_DIGEST_CHANNEL as its scheduler starts
        service = wiring.digests(config, wiring.papers(config), many.state)
        try:
            service.subscriptions.ensure_config_subscription(datetime.now(UTC))
        finally:
            service.stop()

    install(many, fake, "T2")
    start()
    # No workspace's yet
    assert [r.team for r in many.state.digests.subscriptions(SHARED, active=False)] == [""]
    # not T2's until it asks
    assert "no daily digest" in texts(command(many, "digest status", "T2", SHARED))
    assert "is now this workspace's" in texts(command(many, "digest adopt", "T2", SHARED))
    # adopted: T2's now
    assert "no daily digest" not in texts(command(many, "digest status", "T2", SHARED))
    start()  # a restart
    rows = many.state.digests.subscriptions(SHARED, active=False)
    # not a second digest with no workspace
    assert [(r.team, r.source) for r in rows] == [("T2", "config")]


def test_a_click_from_the_other_workspace_of_a_shared_channel_is_booked_to_the_clickers_workspace(
    many: SlackHttp,  # noqa: F811
    fake: FakeSlack,
) -> None:
    """On workspace A's digest in a Slack Connect channel, B's user clicks: Slack sends team.id = A (the installation
    that posted) and user.team_id = B. B's Save, vote and list entry are B's, and A's Home is not shown to B's user."""
    t2, _ = install(many, fake, "T2"), install(many, fake, "T3")
    assert "Subscribed this channel" in texts(command(many, "digest subscribe kv cache", "T2", SHARED))
    assert "Posted the digest" in texts(command(many, "digest now", "T2", SHARED))
    digest = digest_posts(fake)[0].params

    def by_b(label: str, name: str) -> Reply:
        return press(
            many, fake, digest, label, channel=SHARED, team="T2", user_team="T3", user="U3", ephemeral=False, name=name
        )

    assert by_b("Save", "b-save").status == 200
    assert "Saved" in texts(answer(fake, "b-save"))
    saved_by_b = saves.saved_ids(many.state, "T3", "U3")
    assert len(saved_by_b) == 1
    # not in a bucket of A's that B never sees
    assert saves.saved_ids(many.state, "T2", "U3") == frozenset()
    paper = wiring.papers(many.config).get(next(iter(saved_by_b)))
    assert paper is not None
    mine = many.post(form_body(slash_form("saved", team_id="T3", user_id="U3", channel_id=SHARED)), FORM).json()
    assert str(paper["title"])[:30] in texts(mine)  # B's /icml saved shows it
    # A digest Save is B's More
    assert len(feedback.votes_in_channel(many.state, SHARED, "T3").liked) == 1
    assert feedback.votes_in_channel(many.state, SHARED, "T2").liked == ()  # not A's digest vote

    by_b("Add to channel list", "b-list")
    answer(fake, "b-list")
    assert reading_list.listed_among(many.state, "T3", SHARED, saved_by_b) == set(saved_by_b)
    # A's list is A's
    assert reading_list.listed_among(many.state, "T2", SHARED, saved_by_b) == set()

    # A's own user saves too: A's Home goes out for A's user; B's user never got A's Home with A's token.
    press(many, fake, digest, "Save", name="a-save", channel=SHARED, team="T2", user="U2", ephemeral=False)
    answer(fake, "a-save")
    fake.wait_for(lambda c: c.method == "views.publish" and c.params.get("user_id") == "U2")
    to_b = [c for c in fake.calls("views.publish") if c.params.get("user_id") == "U3"]
    assert to_b == [], [c.token == t2 for c in to_b]
