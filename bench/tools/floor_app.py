"""The floor for bench/speed/serve.py: a minimal Bolt app answering /icml from a plain FTS5 query, served by gunicorn.

Run by the benchmark as `gunicorn bench.tools.floor_app:api` with FLOOR_INDEX (the paper index), SLACK_SIGNING_SECRET
and SLACK_API_URL (a fake Slack for auth.test) set. Bolt checks the signature; the answer is five titles with
links, in section blocks. No typos, acronyms, snippets or buttons: what any Slack search bot does at least.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from typing import Any

from slack_bolt import Ack, App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient

WORD = re.compile(r"\w+")
_local = threading.local()


def db() -> sqlite3.Connection:
    """This thread's read-only connection to the index."""
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = sqlite3.connect(f"file:{os.environ['FLOOR_INDEX']}?mode=ro", uri=True)
    return conn


def search(query: str) -> list[tuple[str, str]]:
    """Plain FTS5 bm25: every word quoted, OR-joined, the five best (title, url)."""
    words = WORD.findall(query)
    if not words:
        return []
    expr = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    rows = db().execute(
        "SELECT papers.title, papers.url FROM papers_fts JOIN papers ON papers.rowid = papers_fts.rowid "
        "WHERE papers_fts MATCH ? ORDER BY papers_fts.rank LIMIT 5",
        [expr],
    )
    return [(str(title), str(url or "")) for title, url in rows.fetchall()]


app = App(
    client=WebClient(token=os.environ["SLACK_BOT_TOKEN"], base_url=os.environ["SLACK_API_URL"]),
    signing_secret=os.environ["SLACK_SIGNING_SECRET"],
    process_before_response=os.environ.get("FLOOR_INLINE") == "1",
)


@app.command("/icml")
def icml(ack: Ack, command: dict[str, Any]) -> None:
    """Ack with the results."""
    found = search(command.get("text") or "")
    escaped = [(t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), u) for t, u in found]
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": f"<{u}|{t}>" if u else t}} for t, u in escaped]
    ack(text=f"{len(found)} papers", blocks=blocks or [{"type": "section", "text": {"type": "mrkdwn", "text": "none"}}])


api = SlackRequestHandler(app)
