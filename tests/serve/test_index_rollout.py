"""A new paper index reaches running replicas and their workers the documented way: build it anywhere, copy it next
to each replica's index and rename it over the old file (bot.papers.publish); they answer all along, never from half
a file, and every worker answers from the new index afterwards, without a restart."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot.papers import index
from bot.papers.publish import publish
from tests.support.fake_slack import FakeSlack
from tests.support.paths import SEEDS
from tests.support.robust import LoadResult, serve_http, slash_load
from tests.support.slack_harness import SECRET, SignedClient, texts

NEW_PAPER: dict[str, object] = {
    "id": "quokka01",
    "title": "Quokka Attention: Smiling Through Long Contexts",
    "abstract": "We introduce quokka attention, a marsupial-inspired sparse attention for long contexts. " * 3,
    "authors": ["Ada Lovelace"],
}


def build(folder: Path, extra: list[dict[str, object]]) -> Path:
    """An index of the seeds (and `extra` papers), built where the replicas do not read."""
    folder.mkdir(parents=True)
    sources = [SEEDS]
    if extra:
        (folder / "extra.jsonl").write_text("".join(json.dumps(p) + "\n" for p in extra), encoding="utf-8")
        sources.append(folder / "extra.jsonl")
    db = index.connect(folder / "papers.db")
    index.load(db, sources)
    db.conn.close()
    return folder / "papers.db"


def test_a_new_index_renamed_in_reaches_every_replica_and_worker_while_they_answer(
    fake: FakeSlack, tmp_path: Path
) -> None:
    old, new = build(tmp_path / "old", []), build(tmp_path / "new", [NEW_PAPER])
    served = [tmp_path / "replica-a" / "papers.db", tmp_path / "replica-b" / "papers.db"]
    for path in served:  # each replica reads its own copy on its own disk
        publish(old, path)
    state = tmp_path / "state.db"
    a, port_a = serve_http(fake.api_url, served[0], state, SECRET, args=["--workers", "2"])
    b, port_b = serve_http(fake.api_url, served[1], state, SECRET)
    loads: list[LoadResult] = []
    try:
        a.wait_for(r"worker \d+ ready")
        assert "Quokka" not in texts(SignedClient(port_a).command("quokka attention").json())
        load_threads = [
            threading.Thread(target=lambda p=port: loads.append(slash_load(p, SECRET, seconds=3, clients=4)))
            for port in (port_a, port_b)
        ]
        for thread in load_threads:
            thread.start()
        for path in served:  # while both answer
            publish(new, path)
        for thread in load_threads:
            thread.join(timeout=60)
        assert [len(load.errors) for load in loads] == [0, 0], [load.errors[:3] for load in loads]
        # Several at once, so that both of a's workers answer some
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda p: SignedClient(p).command("quokka attention"), [port_a] * 8 + [port_b] * 4))
        assert all("Quokka Attention" in texts(r.json()) for r in replies)
        assert SignedClient(port_b).request("GET", "/healthz").json()["papers"] == 20
        assert [a.terminate(timeout=60), b.terminate(timeout=60)] == [0, 0]
    finally:
        a.kill()
        b.kill()
    assert "Traceback" not in a.log() + b.log()
