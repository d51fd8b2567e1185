"""The count behind "N papers" may run on a worker thread's connection while ranking runs: the answer is the same."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.search import counting
from bot.search.cache import IndexVersion
from tests.support.fake_slack import FakeSlack
from tests.support.marks import starred_notes
from tests.support.slack_harness import SlackHttp, slack_config

FILLER = "We report experiments on standard benchmarks."
# Papers told apart by words, not numbers (the index takes "Paper 1" and "Paper 2" for one paper).
FIRST = ("red", "blue", "green", "amber", "violet", "silver", "golden", "copper", "ivory", "coral", "jade", "olive",
         "azure", "scarlet", "cobalt", "teal", "ochre")  # fmt: skip
SECOND = ("falcon", "otter", "heron", "badger", "lynx", "marten", "osprey", "bison", "ibex", "tapir", "okapi",
          "quokka", "dingo", "gecko", "koala", "lemur")  # fmt: skip


def _papers(n: int, start: int = 0) -> list[dict[str, object]]:
    """n papers that all hold "cache" and "memory", every third "compression", every seventh "eviction"."""
    out: list[dict[str, object]] = []
    for i in range(start, start + n):
        words = ["cache", "memory"] + ["compression"] * (i % 3 == 0) + ["eviction"] * (i % 7 == 0)
        out.append(
            {
                "id": f"P{i}",
                "title": f"{FIRST[i % 17].capitalize()} {SECOND[i // 17 % 16]} {SECOND[i // 272]} {words[-1]}",
                "abstract": f"{FIRST[i % 17]} {SECOND[i // 17 % 16]} {SECOND[i // 272]} studies {' and '.join(words)} "
                f"for language models. {FILLER}",
                "authors": [f"Author {i}"],
            }
        )
    return out


def _load(db: sqlite_utils.Database, folder: Path, papers: list[dict[str, object]]) -> None:
    source = folder / "many2026.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    index.load(db, [source])


@pytest.fixture
def many(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    db = index.connect(tmp_path / "many.db")
    _load(db, tmp_path, _papers(400))
    yield db
    db.conn.close()


QUERIES = ["cache memory", "cache compression", "memory eviction cache", "compression -eviction", "cache"]


def _answer(db: sqlite_utils.Database, query: str, offset: int = 0) -> tuple[object, ...]:
    r = search.search(db, query, limit=5, offset=offset)
    return r.total, r.total_exact, [x.paper["source_id"] for x in r.results], starred_notes(r)


def _threads_that_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    count = counting.count_matches

    def spy(conn: sqlite3.Connection, expression: str, cap: int) -> int:
        names.append(threading.current_thread().name)
        return count(conn, expression, cap)

    monkeypatch.setattr(counting, "count_matches", spy)
    return names


def test_a_count_run_beside_gives_the_answer_counted_at_once(
    many: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(counting, "BESIDE_FROM", 10**9)
    at_once = {(q, o): _answer(many, q, o) for q in QUERIES for o in (0, 125)}
    # More than a candidate query reads: counted
    assert at_once[("cache memory", 0)][:2] == (400, True)
    assert at_once[("cache compression", 0)][:2] == (134, True)
    monkeypatch.setattr(counting, "BESIDE_FROM", 0)
    counted_on = _threads_that_counted(monkeypatch)
    beside = {(q, o): _answer(many, q, o) for q in QUERIES for o in (0, 125)}
    assert beside == at_once
    assert counted_on
    assert all(name.startswith("icml-bot-count") for name in counted_on)


def test_a_count_beside_sees_the_index_as_rebuilt(
    many: sqlite_utils.Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(counting, "BESIDE_FROM", 0)
    assert _answer(many, "cache compression")[:2] == (134, True)
    _load(many, tmp_path, _papers(460))
    assert _answer(many, "cache compression")[:2] == (154, True)


def test_an_index_in_memory_is_counted_at_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(counting, "BESIDE_FROM", 0)
    counted_on = _threads_that_counted(monkeypatch)
    db = sqlite_utils.Database(memory=True)
    _load(db, tmp_path, _papers(300))
    assert _answer(db, "cache memory")[:2] == (300, True)
    assert counted_on == [threading.current_thread().name]


def test_a_worker_that_cannot_open_the_file_leaves_the_count_to_the_caller(many: sqlite_utils.Database) -> None:
    expression = '"cache" AND "compression"'
    later = counting.beside(many.conn, IndexVersion("/nonexistent/dir/index.db", None, 1), expression, 1000)
    assert later() == counting.count_matches(many.conn, expression, 1000) == 134


def test_a_count_beside_reaches_the_footer_of_the_app_as_served(
    many: sqlite_utils.Database, fake: FakeSlack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(counting, "BESIDE_FROM", 0)
    counted_on = _threads_that_counted(monkeypatch)
    path = Path(many.execute("PRAGMA database_list").fetchone()[2])
    served = SlackHttp(slack_config(fake, path, tmp_path / "state.db"))
    try:
        body = served.command("cache compression").json()
    finally:
        served.stop()
    assert body["blocks"][-1]["text"]["text"] == "1-5 of 134 for *cache compression*"
    assert counted_on
    assert all(name.startswith("icml-bot-count") for name in counted_on)
