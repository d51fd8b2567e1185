"""Hostile records from a list, through the served app: a record of megabytes answers `/icml paper` and *Abstract* with
what indexing kept, no control or bidi character reaches Slack, and a title written as a link never becomes the
face of a link to another host."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.slack import blocks
from tests.support.fake_slack import FakeSlack
from tests.support.robust import message_problems
from tests.support.slack_harness import SlackHttp, buttons, serving, texts
from tests.support.slack_requests import block_action_payload

ABSTRACT = "Zebra crossings teach pedestrians to wait; we model zebra crossing behaviour with transformers. "
CONTROLS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)
PAPERS: list[dict[str, Any]] = [
    {
        "id": "link1",
        "title": "https://openreview.net/forum?id=trusted",
        "abstract": ABSTRACT * 3,
        "url": "https://evil.example/phish",
        "authors": ["Eve Mallory"],
    },
    {
        "id": "link2",
        "title": "Zebra Crossings, see www.openreview.net",
        "abstract": "Zebra stripes in crossing datasets. " * 5,
        "url": "https://www.openreview.net/forum?id=link2",
    },
    {
        "id": "ctl1",
        "title": "Zebra\x1b[2J Crossing\x07 Models \u202eevil",
        "abstract": f"Zebra\x9b31m crossings \u2066isolated\u2069 and more. {ABSTRACT}",
        "authors": ["Ada\u202e Lovelace", "Alan\x1b]0;pwned\x07 Turing"],
        "session": "Poster\x1b[5m Session 1",
        "status": "Oral\x00",
    },
    {
        "id": "big1",
        "title": "A Zebra Crossing Study of Megabytes",
        # ~3 MB
        "abstract": " ".join(f"Zebra crossing sentence {n} keeps pedestrians waiting." for n in range(60_000)),
        "authors": [f"Author {n}" for n in range(3_000)],
    },
]


@pytest.fixture
def hostile_http(fake: FakeSlack, tmp_path: Path) -> Iterator[SlackHttp]:
    with serving(fake, tmp_path, PAPERS) as served:
        yield served


def links(message: dict[str, Any]) -> list[tuple[str, str]]:
    """Every `<url|label>` in a message, as (url, label)."""
    return re.findall(r"<(https?://[^|<>]+)\|([^<>]*)>", json.dumps(message, ensure_ascii=False))


def test_a_title_written_as_a_link_never_labels_a_link_to_another_host(hostile_http: SlackHttp) -> None:
    answer = hostile_http.command("zebra crossing").json()
    assert message_problems(answer) == []
    found = links(answer)
    assert ("https://evil.example/phish", "evil.example") in found  # the link says where it goes
    assert "*https://openreview.net/forum?id=trusted (<https://evil.example/phish|evil.example>)*" in texts(answer)
    for url, label in found:
        assert "openreview" not in label or "openreview.net" in url, (url, label)
    assert ("https://www.openreview.net/forum?id=link2", "Zebra Crossings, see www.openreview.net") in found


def test_no_control_or_bidi_character_reaches_slack(hostile_http: SlackHttp, fake: FakeSlack) -> None:
    listing = hostile_http.command("zebra crossing models").json()
    detail = hostile_http.command("paper ctl1").json()
    paper_id = next(b["value"] for b in buttons(detail) if b["action_id"] == blocks.ACTION_SIMILAR)
    hostile_http.action(block_action_payload(blocks.ACTION_ABSTRACT, paper_id, response_url=fake.response_url("a")))
    (call,) = fake.wait_for("response")
    for message in (listing, detail, call.params):
        assert CONTROLS.findall(json.dumps(message, ensure_ascii=False)) == []
        assert message_problems(message) == []
    assert detail["blocks"][0]["type"] == "header"
    assert detail["blocks"][0]["text"]["text"] == "Zebra[2J Crossing Models evil"
    assert "Ada Lovelace, Alan]0;pwned Turing" in texts(detail)
    assert "Zebra31m crossings isolated and more." in texts(call.params)


def test_a_record_of_megabytes_shows_what_indexing_kept(hostile_http: SlackHttp, fake: FakeSlack) -> None:
    detail = hostile_http.command("paper big1").json()
    assert message_problems(detail) == []
    paper_id = next(b["value"] for b in buttons(detail) if b["action_id"] == blocks.ACTION_SIMILAR)
    hostile_http.action(block_action_payload(blocks.ACTION_ABSTRACT, paper_id, response_url=fake.response_url("a")))
    (call,) = fake.wait_for("response")
    assert message_problems(call.params) == []
    # The abstract: every section after the title's (or the header's)
    for message in (detail, call.params):
        abstract = " ".join([b["text"]["text"] for b in message["blocks"] if b["type"] == "section"][1:])
        assert abstract.startswith("Zebra crossing sentence 0 keeps pedestrians waiting. Zebra crossing sentence 1")
        assert abstract.endswith("…")
        assert len(abstract) <= 20_000
    assert "Author 0, Author 1, Author 2" in texts(detail)
