"""similar(): a paper's neighbours as the index stored them, or found by words on an index built before."""

from __future__ import annotations

import re
from pathlib import Path

import sqlite_utils

from bot import search
from bot.papers import index, related
from tests.support.marks import starred
from tests.support.papers import known
from tests.support.paths import needs_shared_data
from tests.support.seed_ids import (
    CALIBRATION,
    CAUSCIBENCH,
    DEFENSIVE_KV,
    HIDE,
    LOGIC_VERIFICATION,
    MULTI_ANSWER,
    RACO,
    SOFTMOE,
    VEGAS,
)


def test_similar_excludes_the_paper_and_finds_its_neighbours(seed_db: sqlite_utils.Database) -> None:
    found = search.similar(seed_db, DEFENSIVE_KV, k=3)
    # Vegas: the other KV cache paper
    assert [r.paper["id"] for r in found] == [VEGAS, LOGIC_VERIFICATION, HIDE]
    assert found[0].matched == [
        "shared:cache",
        "shared:entries",
        "shared:critical",
        "shared:algorithm",
        "shared:attention",
    ]
    assert "*cache entries*" in starred(found[0].snippet)
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)
    assert search.similar(seed_db, "nosuchpaper") == []
    assert [r.paper["id"] for r in search.similar(seed_db, "TokSuite", k=2)] == [MULTI_ANSWER, CALIBRATION]


def test_similar_reads_the_neighbours_the_index_stored(seed_db: sqlite_utils.Database) -> None:
    me = seed_db.execute("SELECT rowid FROM papers WHERE id = ?", [DEFENSIVE_KV]).fetchone()[0]
    rowids = {pid: rowid for rowid, pid in seed_db.execute("SELECT rowid, id FROM papers")}
    seed_db.execute(
        "UPDATE neighbours SET related = ? WHERE paper = ?",
        [related.pack([(rowids[SOFTMOE], 0.9), (rowids[RACO], 0.5)]), me],
    )
    found = search.similar(seed_db, DEFENSIVE_KV, k=5)
    assert [(r.paper["id"], r.score) for r in found] == [(SOFTMOE, 0.9), (RACO, 0.5)]


def test_similar_on_an_index_built_before_neighbours_were_stored(seed_db: sqlite_utils.Database) -> None:
    # What an older release built: the words find the papers at query time
    seed_db.execute("DROP TABLE neighbours")
    found = search.similar(seed_db, DEFENSIVE_KV, k=3)
    assert [r.paper["id"] for r in found] == [VEGAS, LOGIC_VERIFICATION, RACO]
    assert found[0].matched == [
        "shared:cache",
        "shared:entries",
        "shared:critical",
        "shared:algorithm",
        "shared:attention",
    ]
    assert [r.paper["id"] for r in search.similar(seed_db, "TokSuite", k=2)] == [CAUSCIBENCH, MULTI_ANSWER]


@needs_shared_data()
def test_similar_on_the_real_list(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    toksuite = known(db, "TokSuite")
    found = search.similar(db, toksuite["id"], k=5)
    assert len(found) == 5
    assert toksuite["id"] not in [r.paper["id"] for r in found]
    assert sum(bool(re.search(r"tokeni[sz]", r.paper["title"], re.I)) for r in found) >= 2


@needs_shared_data()
def test_similar_answers_the_forty_the_learning_digest_moves(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    toksuite = known(db, "TokSuite")
    found = search.similar(db, toksuite["id"], k=40)
    assert len(found) == 40  # bot.digest.select.NEIGHBOURS
    assert len({r.paper["id"] for r in found}) == 40
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)
