"""bot/slack/inline_ack.py: a listener that answers in its ack runs in the request's thread (no 10 ms polling for the
ack); the others stay in Bolt's thread pool, so their work after the ack never holds the ack back."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_bolt import Ack, App, BoltRequest

from bot.slack import errors, inline_ack
from tests.support.fake_slack import FakeSlack
from tests.support.slack_requests import form_body, slash_form


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
