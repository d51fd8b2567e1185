"""The Home tab through the real app (HTTP and Socket Mode): published on app_home_opened and after every save."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import DEFENSIVE_KV
from tests.support.slack_clicks import press, press_on_home, save_clicker
from tests.support.slack_harness import (
    ACK_DEADLINE,
    SlackHttp,
    buttons,
    slack_config,
    socket_mode_app,
    texts,
)
from tests.support.slack_requests import event_body, mention_event, slash_form


def home_opened(user: str = "U1", tab: str = "home") -> dict[str, Any]:
    """An app_home_opened event as Slack sends it."""
    return {"type": "app_home_opened", "user": user, "channel": "D" + user[1:], "tab": tab, "event_ts": "1700000000.5"}


def published(fake: FakeSlack, count: int = 1) -> dict[str, Any]:
    """The view of the `count`-th views.publish call."""
    view: dict[str, Any] = fake.wait_for("views.publish", count=count, ok=True)[count - 1].params["view"]
    return view


def test_home_shows_saves_digests_and_help(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.command("digest subscribe kv cache at 08:30 Asia/Seoul", channel_id="C0HOMEDIGEST")
    press(slack_http, fake, slack_http.command("kv cache").json(), "Save", DEFENSIVE_KV, name="s")
    fake.wait_for(lambda c: c.method == "response" and c.name == "s")
    published(fake, 1)  # the save's publish out first: still pending, it merged with the opening's into one
    assert slack_http.event(home_opened()).status == 200
    view = published(fake, 2)  # once after the save, once on opening
    assert view["type"] == "home"
    body = texts(view)
    assert "*Your saved papers* (1)" in body
    assert "DefensiveKV" in body
    assert "<#C0HOMEDIGEST>: Mon-Fri at 08:30 Asia/Seoul, 3 papers, topics *kv cache* · next " in body
    assert "`/icml saved [page]`" in body
    assert "`/icml export bibtex|csv|md`" in body
    assert [b["text"]["text"] for b in buttons(view)] == ["Unsave", "Similar"]
    assert problems({"text": "home", **view}) == []
    assert fake.wait_for("views.publish")[-1].params["user_id"] == "U1"


def test_home_lists_only_this_workspaces_digests(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.command("digest subscribe kv cache at 08:30 Asia/Seoul", channel_id="C0HOMEMINE")
    slack_http.command("digest subscribe diffusion at 09:00", channel_id="C0HOMEOTHER", team_id="T2")
    assert slack_http.event(home_opened()).status == 200
    body = texts(published(fake))
    assert "<#C0HOMEMINE>" in body
    assert "C0HOMEOTHER" not in body
    assert slack_http.event(home_opened(user="U9"), team_id="T2").status == 200
    other = texts(
        fake.wait_for(lambda c: c.method == "views.publish" and c.params["user_id"] == "U9", ok=True)[0].params["view"]
    )
    assert "<#C0HOMEOTHER>" in other
    assert "C0HOMEMINE" not in other


def test_the_messages_tab_and_other_users_get_nothing_of_it(slack_http: SlackHttp, fake: FakeSlack) -> None:
    press(slack_http, fake, slack_http.command("kv cache").json(), "Save", DEFENSIVE_KV, name="s")
    fake.wait_for("views.publish", ok=True)
    slack_http.event(home_opened(tab="messages"))
    slack_http.event(home_opened(user="U2"))
    view = fake.wait_for(lambda c: c.method == "views.publish" and c.params["user_id"] == "U2", ok=True)[0].params
    assert "Nothing saved yet" in texts(view["view"])
    slack_http.drain()
    assert len(fake.calls("views.publish")) == 2  # the save's, and U2's; none for the Messages tab


def test_unsave_and_similar_on_the_home_tab_publish_it_again(slack_http: SlackHttp, fake: FakeSlack) -> None:
    press(slack_http, fake, slack_http.command("kv cache").json(), "Save", DEFENSIVE_KV, name="s")
    view = published(fake)
    assert press_on_home(slack_http, view, "Similar", DEFENSIVE_KV).status == 200
    with_similar = published(fake, 2)
    assert "*Papers similar to* *" in texts(with_similar)
    save_buttons = [b for b in buttons(with_similar) if b["text"]["text"] == "Save"]
    assert save_buttons
    press_on_home(slack_http, with_similar, "Save", save_buttons[0]["value"])
    after_save = published(fake, 3)
    assert "*Your saved papers* (2)" in texts(after_save)
    assert "*Papers similar to*" in texts(after_save)  # the panel stays while you save from it
    press_on_home(slack_http, after_save, "Unsave", DEFENSIVE_KV)
    final = published(fake, 4)
    assert "*Your saved papers* (1)" in texts(final)
    assert "DefensiveKV" not in texts(final).split("*Your saved papers*")[1]


def test_home_refused_by_slack_does_not_break_a_save(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.fail_next("views.publish", error="not_enabled")
    press(slack_http, fake, slack_http.command("kv cache").json(), "Save", DEFENSIVE_KV, name="s")
    rebuilt = fake.wait_for(lambda c: c.method == "response" and c.name == "s", ok=True)[0].params
    assert any(b["text"]["text"] == "Saved" for b in buttons(rebuilt))


def test_home_over_socket_mode(fake: FakeSlack, slack_index_path: Path, tmp_path: Path) -> None:
    config = slack_config(fake, slack_index_path, tmp_path / "state.db", signing_secret="")
    with socket_mode_app(fake, config):
        fake.socket_ack(fake.socket_send("slash_commands", slash_form(f"list add {DEFENSIVE_KV}")))
        envelope = fake.socket_send("events_api", event_body(home_opened("U5")))
        assert fake.socket_ack(envelope) == {"envelope_id": envelope}
        view = fake.wait_for("views.publish", ok=True)[0].params
    assert view["user_id"] == "U5"
    assert "How to use /icml" in texts(view["view"])


# ---------------------------------------------------------------------- Slack answering views.publish with 429

FLOOD = 60  # Save clicks from one user while views.publish answers 429
CLICKERS = 10  # clicks in flight at once, as a user clicking fast in several windows sends them
MENTION_ANSWERED = 1.0  # seconds: another workspace's mention is answered within this meanwhile


def publishes(fake: FakeSlack, user: str, ok: bool | None = None) -> list[Any]:
    """The views.publish calls for `user` (only the accepted ones with ok=True)."""
    return [c for c in fake.calls("views.publish") if c.params.get("user_id") == user and ok in (None, c.ok)]


@pytest.mark.ack_deadline
def test_a_save_flood_under_rate_limits_stalls_no_one(slack_http: SlackHttp, fake: FakeSlack) -> None:
    results = [slack_http.command(q).json() for q in ("attention", "language models", "reinforcement learning")]
    saves = [(msg, b["value"]) for msg in results for b in buttons(msg) if b["text"]["text"] == "Save"]
    papers = {value.split('"')[3] for _, value in saves}  # {"p":"<id>",...}: the distinct papers clicked
    fake.fail_next("views.publish", "ratelimited", retry_after=2, times=10_000)  # until the test says stop
    click = save_clicker(slack_http, fake, results)

    with ThreadPoolExecutor(CLICKERS) as pool:
        clicks = pool.map(click, range(FLOOD))
        fake.wait_for("views.publish", ok=False)  # Slack is refusing the Home view now
        started = time.monotonic()
        assert slack_http.event(mention_event("kv cache", channel="C2", user="U7"), team_id="T2").status == 200
        fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params["channel"] == "C2", timeout=15)
        answered = time.monotonic() - started
        acks = list(clicks)
    assert answered < MENTION_ANSWERED, f"the other workspace's mention took {answered:.1f} s"
    assert [status for status, _ in acks] == [200] * FLOOD
    late = [round(took, 1) for _, took in acks if took >= ACK_DEADLINE]
    assert late == [], f"{len(late)} of {FLOOD} clicks acked after {ACK_DEADLINE} s"
    assert publishes(fake, "U1", ok=True) == []  # nothing got through while Slack said 429

    fake.faults.clear()  # Slack takes views again: the newest view goes out once its Retry-After has passed
    view = fake.wait_for(lambda c: c.method == "views.publish" and c.params["user_id"] == "U1", ok=True, timeout=15)
    slack_http.drain()
    assert len(publishes(fake, "U1", ok=True)) == 1  # one publish of the latest view, not one per click
    assert len(publishes(fake, "U1")) < 10  # a retry per Retry-After, not one per click
    assert f"*Your saved papers* ({len(papers)})" in texts(view[0].params["view"])


def test_a_rate_limited_workspace_does_not_hold_up_another_ones_home(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.fail_next("views.publish", "ratelimited", retry_after=5)
    assert slack_http.event(home_opened("U1")).status == 200
    fake.wait_for("views.publish", ok=False)  # T1 waits out Slack's 5 s
    assert slack_http.event(home_opened("U9"), team_id="T2").status == 200
    other = fake.wait_for("views.publish", ok=True, timeout=3)  # T2's goes out meanwhile
    assert other[0].params["user_id"] == "U9"
    assert publishes(fake, "U1", ok=True) == []
    mine = fake.wait_for(lambda c: c.method == "views.publish" and c.params["user_id"] == "U1", ok=True, timeout=15)
    assert "How to use /icml" in texts(mine[0].params["view"])
