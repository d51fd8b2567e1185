"""The index: the real seed papers, stable ids, idempotent loads, merging with the real list, atomic rebuilds."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path

import pytest
import sqlite_utils

from bot.papers import index
from bot.papers.corpus import SourceError
from bot.papers.row import PaperRow
from bot.slack import blocks
from tests.support.papers import known
from tests.support.paths import ICML2026, SEEDS, needs_shared_data

# The names the 19 bundled abstracts introduce (None: the abstract names nothing), in file order.
SEED_NAMES = [
    "Vegas",
    "SCM-GRPO",
    None,
    None,
    "ViewMask-1-to-3",
    "RACO",
    "DefensiveKV",
    "TokSuite",
    "SoftMoE",
    "ExSQF",
    None,
    "GPS",
    "μA",
    "CauSciBench",
    "Knapsack RL",
    "HiDe",
    None,
    "TokenSwap",
    None,
]
RESIDUE = re.compile(r"\$|\\times|\*\*|\\textit|\\emph|\\url|\\[a-zA-Z]+")


def papers(db: sqlite_utils.Database) -> list[PaperRow]:
    return [index.decode(r) for r in db.query("SELECT * FROM papers ORDER BY seq")]


def test_seed_index_has_19_named_titled_clean_papers(seed_db: sqlite_utils.Database) -> None:
    rows = papers(seed_db)
    assert [r["name"] for r in rows] == SEED_NAMES
    for row in rows:
        assert row["title"].strip()
        assert row["title_derived"]
        assert len(row["title"]) <= 90
        assert row["headline"].strip()
        for field in ("title", "abstract", "headline"):
            assert not RESIDUE.search(row[field]), (row["id"], field, RESIDUE.search(row[field]))
        assert re.fullmatch(r"[a-z][0-9a-z]{5}", row["id"])
    by_name = {r["name"]: r for r in rows}
    assert "1.25×–2.81×" in by_name["Vegas"]["abstract"]
    assert by_name["Vegas"]["code_url"] == "https://github.com/platformxlab/vegas"
    assert by_name["DefensiveKV"]["code_url"] == "https://github.com/FFY0/DefensiveKV"
    # Its abstract stresses _half_: stored as plain text, the emphasis apart
    defensive = by_name["DefensiveKV"]
    assert "_half_" not in defensive["abstract"]
    assert [(defensive["abstract"][s:e], kind) for s, e, kind in defensive["abstract_emphasis"] or []] == [
        ("half", "i")
    ]
    shown = " ".join(b["text"]["text"] for b in blocks.abstract_message(defensive)["blocks"] if b["type"] == "section")
    assert "_half_" in shown  # (Slack still shows it in italics)
    assert by_name["Vegas"]["title"].startswith("Vegas: ")
    assert {(r["conference"], r["year"]) for r in rows} == {("ICML", 2026)}


def test_ids_are_deterministic_across_rebuilds(tmp_path: Path, seed_db: sqlite_utils.Database) -> None:
    other = index.connect(tmp_path / "again.db")
    index.load(other, [SEEDS])
    assert [r["id"] for r in papers(other)] == [r["id"] for r in papers(seed_db)]


def test_reloading_the_same_sources_changes_nothing(seed_db: sqlite_utils.Database) -> None:
    before = papers(seed_db)
    report = index.load(seed_db, [SEEDS])
    assert (report.added, report.merged, report.updated, report.unchanged) == (0, 0, 0, 19)
    assert papers(seed_db) == before


def test_lookup_by_id_name_and_case(seed_db: sqlite_utils.Database) -> None:
    toksuite = index.get_paper(seed_db, "TokSuite")
    assert toksuite is not None
    assert toksuite["name"] == "TokSuite"
    assert known(seed_db, toksuite["id"].upper())["id"] == toksuite["id"]
    assert known(seed_db, "toksuite")["id"] == toksuite["id"]
    assert index.get_paper(seed_db, "no-such-paper") is None
    assert index.get_paper(seed_db, "") is None


def test_a_broken_source_leaves_the_index_untouched(seed_db: sqlite_utils.Database, tmp_path: Path) -> None:
    before = papers(seed_db)
    good = {"title": "A Real Paper", "abstract": "We study something important about transformers " * 3}
    bad = tmp_path / "list.jsonl"
    bad.write_text(json.dumps(good) + "\n" + json.dumps({**good, "title": "Another"}) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"list\.jsonl:3:"):
        index.load(seed_db, [bad])
    assert papers(seed_db) == before


@pytest.mark.slow  # loads 3,000 papers under a reader polling in a loop: 20 s on a busy machine
def test_readers_see_the_old_or_the_new_index_never_half(seed_index_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "papers.db"
    path.write_bytes(seed_index_path.read_bytes())
    source = tmp_path / "many.jsonl"
    with source.open("w", encoding="utf-8") as fh:
        for n in range(3000):
            abstract = f"We study topic {n % 17} with method {n} and report results. " * 4
            fh.write(json.dumps({"id": f"p{n}", "title": f"Paper {n} on topic {n % 17}", "abstract": abstract}) + "\n")
    seen: set[int] = set()
    saw_old, saw_new, stop = threading.Event(), threading.Event(), threading.Event()

    def read() -> None:
        reader = sqlite3.connect(path)
        while not stop.is_set():
            papers = reader.execute("SELECT count(*) FROM papers").fetchone()[0]
            seen.update((papers, reader.execute("SELECT count(*) FROM papers_fts").fetchone()[0]))
            if papers == 19:
                saw_old.set()
            elif papers == 3019:
                saw_new.set()
        reader.close()

    thread = threading.Thread(target=read)
    thread.start()
    assert saw_old.wait(timeout=10)  # the reader is reading before the load starts...
    writer = index.connect(path)
    index.load(writer, [source])
    assert saw_new.wait(timeout=10)  # ...and goes on until it has seen the new index
    stop.set()
    thread.join()
    assert seen == {19, 3019}  # nothing in between, in either table


def test_stats(seed_db: sqlite_utils.Database) -> None:
    stats = index.stats(seed_db)
    assert stats["papers"] == 19
    assert [s["name"] for s in stats["sources"]] == ["icml2026_abstracts.txt"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stats["last_indexed"])
    # ISO times: when the source was, or after
    assert stats["last_indexed"] >= stats["sources"][0]["indexed_at"]
    assert stats["vocabulary"] > 1000


def test_vocabulary_keeps_raw_words_not_stems(seed_db: sqlite_utils.Database) -> None:
    words = {r["word"] for r in seed_db.query("SELECT word FROM vocab")}
    assert {"speculative", "decoding", "tokenization", "knapsack", "toksuite"} <= words
    assert "decod" not in words


@needs_shared_data()
def test_merging_seeds_with_the_real_list(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    rows = papers(db)
    assert len(rows) == 5863 + 4  # 15 of the 19 seed abstracts are papers of the list
    seeds = [r for r in rows if "icml2026_abstracts.txt" in r["sources"]]
    assert len(seeds) == 19
    merged = [r for r in seeds if len(r["sources"]) == 2]
    assert len(merged) == 15
    assert all(not r["title_derived"] and r["authors"] and r["url"] for r in merged)
    toksuite = known(db, "TokSuite")
    assert toksuite["title"].startswith("TokSuite")
    assert toksuite["authors"]
    # The seed ids stay valid after the merge.
    assert all(r["id"] in {p["id"] for p in seeds} for r in merged)


@needs_shared_data()
def test_the_full_text_index_is_one_segment(full_index_path: Path) -> None:
    """A rebuild of 5,863 papers leaves several FTS5 segments (7); loading merges them, so each term is one read."""
    db = index.connect(full_index_path, readonly=True)
    assert db.execute("SELECT count(DISTINCT segid) FROM papers_fts_idx").fetchone()[0] == 1
    assert db.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH 'cache'").fetchone()[0] > 0


@needs_shared_data()
# It indexes the full list four times: a couple of minutes on a loaded 2-core machine.
@pytest.mark.timeout(600)
def test_merge_is_idempotent_and_order_independent_in_content(full_index_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "papers.db"
    path.write_bytes(full_index_path.read_bytes())
    db = index.connect(path)
    before = papers(db)
    report = index.load(db, [SEEDS, ICML2026])
    assert (report.added, report.merged, report.updated) == (0, 0, 0)
    assert papers(db) == before
    other = index.connect(tmp_path / "other.db")
    # The list first, then the seeds: the same papers, titles and authors
    index.load(other, [ICML2026, SEEDS])
    assert sorted((r["title"], tuple(r["authors"])) for r in papers(other)) == sorted(
        (r["title"], tuple(r["authors"])) for r in before
    )


def test_accented_author_names_are_searchable_words(tmp_path: Path) -> None:
    # Lists were stored with \u escapes, so FTS5 read "Sch", "u00f6lkopf" and no surname query found Schölkopf.
    from bot import search

    record = {"id": "BS1", "title": "Causal Representation Learning", "abstract": "We learn causal variables.",
              "authors": ["Bernhard Schölkopf", "Zhijing Jin"], "keywords": ["causalité"]}  # fmt: skip
    first = tmp_path / "a2026.jsonl"
    first.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    db = index.connect(tmp_path / "names.db")
    index.load(db, [first])
    assert "Schölkopf" in db.execute("SELECT authors FROM papers").fetchone()[0]
    for query in ("Schölkopf", "Scholkopf", "author:Scholkopf", "author:Schölkopf"):
        assert [r.paper["source_id"] for r in search.search(db, query).results] == ["BS1"], query
    assert papers(db)[0]["authors"] == ["Bernhard Schölkopf", "Zhijing Jin"]
    # An index written before: escaped lists are rewritten by the next load, whose full-text index then finds them.
    db.execute("UPDATE papers SET authors = ?", [json.dumps(record["authors"])])
    db.table("papers").rebuild_fts()
    assert search.search(db, "author:Scholkopf").results == []
    second = tmp_path / "b2026.jsonl"
    second.write_text(json.dumps({"id": "X1", "title": "Other", "abstract": "Other words."}) + "\n", encoding="utf-8")
    index.load(db, [first, second])
    assert [r.paper["source_id"] for r in search.search(db, "author:Scholkopf").results] == ["BS1"]
    db.conn.close()
