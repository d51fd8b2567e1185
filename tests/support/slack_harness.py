"""Running the real Slack app against the fake Slack, and talking to it the way Slack does (signed HTTP)."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

from bot import wiring
from bot.config import Config
from bot.papers import index
from bot.serve.socket_mode import start_socket_mode
from bot.slack.app import build_app
from bot.slack.home_publisher import HomePublisher
from bot.state import State
from tests.support.fake_slack import FakeSlack
from tests.support.http_server import HttpServer
from tests.support.paths import SEEDS
from tests.support.slack_requests import event_body, form_body, interactive_body, sign, slash_form
from tests.support.slack_socket_mode import close_socket_mode

SECRET = "test-signing-secret-123"
# Slack shows the user an error when an app's answer to a command, button or event (HTTP reply or Socket Mode ack)
# takes longer than this. Tests that bound a reply's time use it and carry @pytest.mark.ack_deadline.
ACK_DEADLINE = 3.0
EVENTS = "/slack/events"
FORM = "application/x-www-form-urlencoded"
T = TypeVar("T")


# A paper whose every field tries to ping a channel or inject a link; loaded next to the seeds for the Slack tests.
EVIL_PAPER = {
    "id": "evil0001",
    "title": "<!channel> Attention & Friends <@U999>",
    "abstract": "We study <!here> pings in abstracts: a <https://evil.example|click me> link, an ampersand & and "
    "<@U123> mentions should all stay plain text. Zebrafish transformers outperform baselines on "
    "xylophone benchmarks. " * 3,
    "authors": ["Ada <!everyone> Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"],
    "url": "javascript:alert(1)",
    "code_url": "https://github.com/example/zebra>|x",
    "status": "Oral",
    "session": "Poster Session 9 <!here>",
}


def build_slack_index(folder: Path) -> Path:
    """The index the Slack tests serve: the 19 seed papers and EVIL_PAPER, built by the production loader."""
    evil = folder / "evil.jsonl"
    evil.write_text(json.dumps(EVIL_PAPER) + "\n", encoding="utf-8")
    path = folder / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS, evil])
    db.conn.close()
    return path


def slack_config(fake: FakeSlack, index_path: Path, state_path: Path | str, **overrides: Any) -> Config:
    """A Config whose Web API is the fake, as `icml-bot serve` builds it; `state_path` may be a postgresql:// URL."""
    where: dict[str, Any] = dict(state_path=state_path)
    if isinstance(state_path, str):
        where = dict(state_path=index_path.with_name("state.db"), state_url=state_path)
    values: dict[str, Any] = dict(
        db_path=index_path,
        **where,
        bot_token="xoxb-test",
        app_token="xapp-test",
        signing_secret=SECRET,
        api_url=fake.api_url,
    )
    values.update(overrides)
    return Config(**values)


@dataclass
class Reply:
    """An HTTP answer from the app."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


class SignedClient:
    """Speaks Slack's HTTP dialect to an app on 127.0.0.1:`port`: signed commands, events and button clicks."""

    def __init__(self, port: int, secret: str = SECRET) -> None:
        self.port = port
        self.secret = secret

    def request(self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> Reply:
        """One HTTP request, answered within a bounded time."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            return Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
        finally:
            conn.close()

    def post(
        self,
        body: bytes,
        content_type: str,
        secret: str | None = None,
        age: int = 0,
        extra: dict[str, str] | None = None,
    ) -> Reply:
        """POST /slack/events signed like Slack does (`age` seconds ago; another `secret` to forge it)."""
        headers = {
            "Content-Type": content_type,
            **sign(secret or self.secret, body, int(time.time()) - age),
            **(extra or {}),
        }
        return self.request("POST", EVENTS, body, headers)

    def command(self, text: str, **fields: Any) -> Reply:
        """A signed /icml slash command."""
        return self.post(form_body(slash_form(text, **fields)), FORM)

    def event(
        self, event: dict[str, Any], event_id: str | None = None, retry_num: int | None = None, team_id: str = "T1"
    ) -> Reply:
        """A signed event_callback from workspace `team_id` (Slack adds X-Slack-Retry-Num on redeliveries)."""
        extra = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"} if retry_num else None
        body = event_body({**event, "team": team_id}, event_id=event_id, team_id=team_id)
        return self.post(json.dumps(body).encode(), "application/json", extra=extra)

    def action(self, payload: dict[str, Any]) -> Reply:
        """A signed block_actions request (form field `payload=`)."""
        return self.post(interactive_body(payload), FORM)


class SlackHttp(SignedClient):
    """The production app served on 127.0.0.1 (a free port) by a worker's waitress server, with its production
    settings; `send_*` speak Slack's HTTP dialect."""

    def __init__(self, config: Config, client: WebClient | None = None) -> None:
        self.config = config
        parts = wiring.build(config, client)
        # Its digests' clock and its reminders, for tests that pass the time in
        self.parts = parts
        self.state = parts.state
        self.publisher = HomePublisher()
        self.app: App = build_app(config, parts.services, client=client, publisher=self.publisher)
        self.server = HttpServer(
            self.app, parts.papers, host="127.0.0.1", port=0, signing_secret=config.signing_secret, state=self.state
        ).start()
        super().__init__(self.server.port, config.signing_secret or SECRET)
        self._drained = False

    def drain(self) -> None:
        """Stop serving and wait until every request and every listener thread it started has ended.

        After this nothing more can reach the fake Slack (Home views due are published, those waiting out a 429
        dropped), so a test may assert what did *not* happen (no second reply, no apology) without sleeping. The
        state database stays open for checks.
        """
        if not self._drained:
            self._drained = True
            self.server.stop()
            stop_app(self.app)
            assert self.publisher.stop(), "the Home publisher thread did not end"

    def stop(self) -> None:
        """Drain, then close the state connection."""
        self.drain()
        self.state.close()


def timed(call: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    """(what `call` returned, seconds it took): for @pytest.mark.ack_deadline tests only."""
    started = time.perf_counter()
    result = call(*args, **kwargs)
    return result, time.perf_counter() - started


def stop_app(app: App) -> None:
    """Let the app's listener threads end (a test builds many apps), each listener already queued run first: on a
    loaded machine an event's listener can still be waiting for a thread when the test drains the app."""
    app.listener_runner.listener_executor.shutdown(wait=True)


@contextmanager
def socket_mode_app(fake: FakeSlack, config: Config) -> Iterator[tuple[App, SocketModeHandler, State]]:
    """The production app connected to the fake over Socket Mode, as `icml-bot serve` connects it."""
    parts = wiring.build(config)
    state = parts.state
    publisher = HomePublisher()
    app = build_app(config, parts.services, publisher=publisher)
    handler = start_socket_mode(app, config)
    try:
        assert fake.socket_connected(timeout=5)
        yield app, handler, state
    finally:
        close_socket_mode(handler, fake)
        stop_app(app)
        publisher.stop()
        state.close()


def texts(message: dict[str, Any]) -> str:
    """All mrkdwn/plain text of a message (fallback and blocks), for asserting what a user reads."""
    parts = [str(message.get("text", ""))]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") in ("mrkdwn", "plain_text"):
                parts.append(str(node.get("text", "")))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(message.get("blocks") or [])
    return "\n".join(parts)


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Every button of a message, in order (actions blocks and section accessories)."""
    found: list[dict[str, Any]] = []
    for block in message.get("blocks") or []:
        if block.get("type") == "actions":
            found.extend(e for e in block["elements"] if e.get("type") == "button")
        if block.get("accessory", {}).get("type") == "button":
            found.append(block["accessory"])
    return found


@contextmanager
def serving(fake: FakeSlack, tmp_path: Path, papers: list[dict[str, Any]]) -> Iterator[SlackHttp]:
    """serve_papers for the length of a `with` (or a fixture's yield): the app is stopped after, whatever happened."""
    app = serve_papers(fake, tmp_path, papers)
    try:
        yield app
    finally:
        app.stop()


def serve_papers(fake: FakeSlack, tmp_path: Path, papers: list[dict[str, Any]]) -> SlackHttp:
    """The app served over an index of these papers, built as `icml-bot index` builds one."""
    source = tmp_path / "papers2026.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    db = index.connect(tmp_path / "papers.db")
    index.load(db, [source])
    db.conn.close()
    return SlackHttp(slack_config(fake, tmp_path / "papers.db", tmp_path / "state.db"))
