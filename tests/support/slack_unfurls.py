"""Link unfurls in tests: papers with OpenReview and conference-site links, the index the unfurl tests serve, the
`link_shared` event Slack sends, and waiting for what the app unfurled and recorded."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from bot.papers import index
from bot.state import State
from bot.state.history import Event
from tests.support.fake_slack import FakeSlack
from tests.support.paths import SEEDS
from tests.support.slack_harness import EVIL_PAPER, SignedClient
from tests.support.slack_requests import block_action_payload, event_body

ORAL_ID, POSTER_ID = "Lnk0Oral01", "Lnk0Post02"  # OpenReview ids
ORAL_FORUM = f"https://openreview.net/forum?id={ORAL_ID}"
ORAL_PDF = f"https://openreview.net/pdf?id={ORAL_ID}"
POSTER_PAGE = "https://icml.cc/virtual/2026/poster/70002"
UNKNOWN = "https://openreview.net/forum?id=NotInTheIdx"
ABSTRACT = (
    "Speculative decoding drafts tokens cheaply and verifies them with the full model. We show that the attention "
    "scores computed during verification pick the cache entries a draft needs, so drafting reads a small sparse "
    "cache. Across long-context benchmarks this doubles decoding throughput without changing any output."
)
LINKED_PAPERS: list[dict[str, Any]] = [
    {
        "id": ORAL_ID,
        "conference": "ICML",
        "year": 2026,
        "title": "Sparse Verification Drafts for Long-Context Speculative Decoding",
        "abstract": ABSTRACT,
        "authors": ["Mina Park", "Jonas Weber", "Ada Okafor", "Li Wei"],
        "url": ORAL_FORUM,
        "pdf_url": ORAL_PDF,
        "site_url": "https://icml.cc/virtual/2026/poster/70001",
        "status": "Oral",
        "session": "Poster Session 2; Oral 3A Efficient Inference",
        "schedule": [
            {
                "name": "Poster Session 2",
                "kind": "Poster",
                "start": "2026-07-14T10:30:00+09:00",
                "end": "2026-07-14T12:00:00+09:00",
                "room": "Exhibit Hall C,D,E",
            },
            {
                "name": "Oral 3A Efficient Inference",
                "kind": "Oral",
                "start": "2026-07-15T15:30:00+09:00",
                "end": "2026-07-15T15:45:00+09:00",
                "room": "Hall A",
            },
        ],
    },
    {
        "id": POSTER_ID,
        "conference": "ICML",
        "year": 2026,
        "title": "Grokking as Phase Separation in Modular Arithmetic Networks",
        "abstract": "Networks trained on modular arithmetic generalise long after they fit the training set. We model "
        "this delay as a phase separation between a memorising and a generalising circuit and predict its length.",
        "authors": ["Sam Rivera", "Noor Haddad"],
        "url": f"https://openreview.net/forum?id={POSTER_ID}",
        "site_url": POSTER_PAGE,
        "status": "Poster",
        "session": "Poster Session 4",
    },
]


def build_linked_index(folder: Path) -> Path:
    """The seeds, EVIL_PAPER and LINKED_PAPERS, built by the production loader."""
    source = folder / "linked2026.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in [EVIL_PAPER, *LINKED_PAPERS]), encoding="utf-8")
    path = folder / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS, source])
    db.conn.close()
    return path


def link_shared(
    links: list[str],
    channel: str = "C1",
    user: str = "U1",
    ts: str = "1773014400.000100",
    source: str = "conversations_history",
) -> dict[str, Any]:
    """A `link_shared` event as Slack sends it (domains taken from the links)."""
    return {
        "type": "link_shared",
        "channel": channel,
        "is_bot_user_member": True,
        "user": user,
        "message_ts": ts,
        "unfurl_id": f"{channel}.{ts}.{abs(hash(tuple(links))):x}",
        "source": source,
        "links": [{"domain": url.split("/")[2], "url": url} for url in links],
        "event_ts": ts,
    }


def send_links(served: SignedClient, event: dict[str, Any], team: str = "T1", ext_shared: bool | None = False) -> None:
    """POST the event from workspace `team`; `ext_shared` None leaves `is_ext_shared_channel` out of the envelope."""
    body = event_body({**event, "team": team}, team_id=team)
    if ext_shared is None:
        body.pop("is_ext_shared_channel")
    else:
        body["is_ext_shared_channel"] = ext_shared
    assert served.post(json.dumps(body).encode(), "application/json").status == 200


def unfurled(fake: FakeSlack, count: int = 1) -> dict[str, Any]:
    """The params of the `count`-th chat.unfurl call."""
    return fake.wait_for("chat.unfurl", count=count, ok=True)[count - 1].params


def card_of(params: dict[str, Any], url: str) -> dict[str, Any]:
    """One link's card as a message (fallback text added), for the text and validity checks."""
    return {"text": "unfurl", "blocks": params["unfurls"][url]["blocks"]}


def wait_history(state: State, team: str, paper_id: str, count: int, timeout: float = 10.0) -> list[Event]:
    """The paper's events in the workspace, once there are `count` (the app records them after chat.unfurl)."""
    deadline = time.monotonic() + timeout
    while True:
        found = state.history.of_papers(team, [paper_id])
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def press_on_card(
    served: SignedClient,
    fake: FakeSlack,
    card: dict[str, Any],
    label: str,
    *,
    user: str,
    team: str,
    channel: str,
    name: str,
    user_team: str = "",
) -> None:
    """Press a button of an unfurl card, as Slack sends the click (an attachment of the user's message); `team` is the
    workspace whose installation unfurled it, `user_team` the clicker's when it is another (Slack Connect)."""
    button = next(b for block in card["blocks"] if block["type"] == "actions" for b in block["elements"]
                  if b["text"]["text"] == label)  # fmt: skip
    payload = block_action_payload(
        button["action_id"], button["value"], user_id=user, channel_id=channel, team_id=team, user_team=user_team,
        response_url=fake.response_url(name),
    )  # fmt: skip
    payload["message"] = {
        "type": "message",
        "user": user,
        "ts": "1773014400.000100",
        "text": "have a look",
        "attachments": [{"id": 1, "is_app_unfurl": True, "blocks": card["blocks"]}],
    }
    payload["container"] = {
        "type": "message_attachment",
        "message_ts": "1773014400.000100",
        "attachment_id": 1,
        "channel_id": channel,
        "is_ephemeral": False,
        "is_app_unfurl": True,
    }
    assert served.action(payload).status == 200
