"""bot/slack/inline_ack.py: a listener that answers in its ack runs in the request's thread (no 10 ms polling for the
ack); a button is acked before its listener goes to Bolt's thread pool (no polling either); the others stay in the
pool, so their work after the ack never holds the ack back."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
from slack_bolt import Ack, App, BoltRequest
from slack_bolt.listener import thread_runner

from bot.slack import blocks, errors, inline_ack
from bot.slack.blocks.team_buttons import ACTION_SAVE, ACTION_UNSAVE
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import VEGAS
from tests.support.slack_harness import SlackHttp, texts
from tests.support.slack_requests import block_action_payload, form_body, interactive_body, slash_form


def app_with(fake: FakeSlack, listeners: dict[str, Any]) -> App:
    """A Bolt app on the fake Slack (no signature check) with one command listener per name."""
    app = App(
        client=fake.web_client(),
        signing_secret="unused-secret",
        request_verification_enabled=False,
        listener_executor=ThreadPoolExecutor(max_workers=2, thread_name_prefix="listener"),
    )
    for command, listener in listeners.items():
        app.command(command)(listener)
    app.error(errors.on_error)
    inline_ack.install(app)
    return app


class PollWatch:
    """Bolt's ack polling, watched: every time.sleep of its thread runner is recorded, and lets `released` go (so a
    listener held until Bolt polls cannot hang a test of the old behaviour)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sleeps: list[float] = []
        self.released = threading.Event()
        monkeypatch.setattr(thread_runner, "time", SimpleNamespace(time=time.time, sleep=self.sleep))

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.released.set()
        time.sleep(seconds)


def dispatch(app: App, command: str) -> Any:
    """One /command request through Bolt, as the HTTP adapter hands it over; the response."""
    body = form_body(slash_form("kv cache", command=command)).decode()
    return app.dispatch(BoltRequest(body=body, headers={"content-type": ["application/x-www-form-urlencoded"]}))


def test_a_marked_listener_answers_in_the_request_thread_and_the_others_in_the_pool(fake: FakeSlack) -> None:
    ran: dict[str, str] = {}
    done = threading.Event()

    @inline_ack.answers_in_ack
    def answers(ack: Ack) -> None:
        ran["answers"] = threading.current_thread().name
        ack("found 5 papers")

    def works_on(ack: Ack) -> None:
        ack()
        ran["works_on"] = threading.current_thread().name
        done.set()

    app = app_with(fake, {"/answers": answers, "/works": works_on})
    try:
        reply = dispatch(app, "/answers")
        assert (reply.status, reply.body) == (200, "found 5 papers")
        assert ran["answers"] == threading.current_thread().name
        assert dispatch(app, "/works").status == 200
        assert done.wait(5)
        assert ran["works_on"].startswith("listener")
    finally:
        app.listener_runner.listener_executor.shutdown(wait=True)


def test_a_marked_listener_that_fails_acks_with_the_apology(fake: FakeSlack) -> None:
    @inline_ack.answers_in_ack
    def broken(ack: Ack) -> None:
        raise RuntimeError("index went away")

    app = app_with(fake, {"/broken": broken})
    try:
        reply = dispatch(app, "/broken")
    finally:
        app.listener_runner.listener_executor.shutdown(wait=True)
    assert reply.status == 200
    assert errors.APOLOGY in reply.body


def test_a_button_is_acked_before_its_listener_runs_and_bolt_never_polls(
    fake: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    polls = PollWatch(monkeypatch)
    ran: dict[str, str] = {}
    done = threading.Event()

    @inline_ack.acks_at_once
    def click(ack: Ack) -> None:
        # Its work (posting the answer) starts after the request has returned, or Bolt polled
        polls.released.wait(5)
        ack()
        ran["click"] = threading.current_thread().name
        done.set()

    app = App(
        client=fake.web_client(),
        signing_secret="unused-secret",
        request_verification_enabled=False,
        listener_executor=ThreadPoolExecutor(max_workers=2, thread_name_prefix="listener"),
    )
    app.action("click")(click)
    inline_ack.install(app)
    body = interactive_body(block_action_payload("click", "v")).decode()
    try:
        reply = app.dispatch(BoltRequest(body=body, headers={"content-type": ["application/x-www-form-urlencoded"]}))
        assert (reply.status, reply.body) == (200, "")
        assert polls.sleeps == []  # (was [0.01]: the request thread waited for the listener's ack)
        assert "click" not in ran  # acknowledged while the listener had not even acked
        polls.released.set()
        assert done.wait(5)
        assert ran["click"].startswith("listener")
    finally:
        app.listener_runner.listener_executor.shutdown(wait=True)


def test_the_apps_buttons_are_acked_without_bolt_polling_and_still_answer(
    slack_http: SlackHttp, fake: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    polls = PollWatch(monkeypatch)
    clicks = {
        "share": (blocks.ACTION_SHARE, "Shared by <@U042> with `/icml`"),
        "abstract": (blocks.ACTION_ABSTRACT, "Vegas achieves a 1.25×–2.81× speedup in decoding throughput"),
        "similar": (blocks.ACTION_SIMILAR, "Papers similar to *Vegas"),
        "save": (ACTION_SAVE, "Saved"),
        "unsave": (ACTION_UNSAVE, "Vegas"),
    }
    # One at a time: the unsave after its save
    for n, (name, (action_id, _)) in enumerate(clicks.items(), 1):
        payload = block_action_payload(action_id, VEGAS, user_id="U042", response_url=fake.response_url(name))
        assert slack_http.action(payload).status == 200
        fake.wait_for("response", count=n)
    for name, (_, said) in clicks.items():
        assert said in texts(fake.responses(name)[0]), name
    assert polls.sleeps == []  # (most clicks slept 10 ms for their listener's ack before)
