"""Identity across tracks and conferences: a workshop paper and a main-track paper of the same title stay two papers;
a load that fails on a fresh index path leaves no file behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import text
from bot.cli import main
from bot.papers import corpus, index
from tests.support.paths import SEED_FILE, SEEDS
from tests.support.venue_index import write_jsonl

TITLE = "Sparse Attention Sketches for Long Contexts"
ABSTRACT = (
    "We propose sparse attention sketches, which keep a small summary of past keys and values so that long-context "
    "language model inference reads a fraction of the cache while matching full attention on standard benchmarks."
)


def record(track: str, conference: str = "ICML", **extra: str) -> dict[str, object]:
    return {"conference": conference, "year": 2026, "track": track, "title": TITLE, "abstract": ABSTRACT, **extra}


def rows(path: Path) -> list[tuple[str, str | None, str | None]]:
    db = index.connect(path, readonly=True)
    try:
        return sorted(db.execute("SELECT id, venue, track FROM papers").fetchall())
    finally:
        db.conn.close()


def test_same_title_in_main_workshop_and_another_conference_stays_apart(tmp_path: Path) -> None:
    source = write_jsonl(
        tmp_path / "lists.jsonl", [record("main"), record("workshop"), record("main", conference="NeurIPS")]
    )
    path = tmp_path / "papers.db"
    db = index.connect(path)
    report = index.load(db, [source])
    assert (report.added, report.merged) == (3, 0)
    before = rows(path)
    assert sorted((v, t) for _, v, t in before) == sorted(
        [("icml2026", "main"), ("icml2026", "workshop"), ("neurips2026", "main")]
    )
    again = index.load(db, [source])  # loaded again: the same three rows, the same ids
    db.conn.close()
    assert (again.added, again.unchanged) == (0, 3)
    assert rows(path) == before


def test_icml_main_track_keys_are_those_of_earlier_versions() -> None:
    # Ids come from the first key: unchanged keys keep the ids (and the digests' logs) of indexes built before.
    main_paper = corpus.Paper(title=TITLE, abstract=ABSTRACT, year=2026, conference="ICML", track="main")
    seedlike = corpus.Paper(title=TITLE, abstract=ABSTRACT, year=2026)
    assert corpus.identity_keys(main_paper)[0] == f"title:2026:{text.normalize_title(TITLE)}"
    assert corpus.identity_keys(main_paper) == corpus.identity_keys(seedlike)
    workshop = corpus.Paper(title=TITLE, abstract=ABSTRACT, year=2026, conference="ICML", track="Workshop")
    assert corpus.identity_keys(workshop)[0].startswith("title:2026:workshop:")


def test_a_seed_merges_with_its_main_track_twin_not_a_workshop_one(tmp_path: Path) -> None:
    seed = SEED_FILE.read_text(encoding="utf-8").split("\n\n")[1].strip()
    assert seed.startswith("Long-context large language model (LLM) inference")
    path = tmp_path / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS])
    workshop = {"conference": "ICML", "year": 2026, "track": "workshop", "title": "Vegas at the workshop"}
    index.load(db, [write_jsonl(tmp_path / "ws.jsonl", [{**workshop, "abstract": seed}])])
    assert db["papers"].count == 20  # the workshop version is another paper
    main_track = {"conference": "ICML", "year": 2026, "track": "main", "title": "Vegas: Verification-Guided Drafts"}
    report = index.load(db, [write_jsonl(tmp_path / "main.jsonl", [{**main_track, "abstract": seed}])])
    assert report.merged == 1
    assert db["papers"].count == 20
    db.conn.close()


def test_a_broken_source_on_a_fresh_path_leaves_no_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": broken\n', encoding="utf-8")
    path = tmp_path / "new" / "papers.db"
    assert main(["index", str(bad), "--db", str(path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert sorted(p.name for p in path.parent.iterdir()) == []
