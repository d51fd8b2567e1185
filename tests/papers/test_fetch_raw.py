"""The offline way in: `icml-bot index` reads the files an admin downloaded by hand (the site's orals-posters pages
and abstracts file, OpenReview notes dumps) exactly as `icml-bot fetch` merges them; and an index built before the
new columns keeps working."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.papers import index
from tests.support import recorded
from tests.support.conference_fakes import SITE_MARK, Conference, FakeSite, make_conference, serve
from tests.support.paths import SEEDS

DATA = "/static/virtual/data/icml-2026-"


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ICML_BOT_DB", str(tmp_path / "papers.db"))
    monkeypatch.delenv("ICML_BOT_STATE", raising=False)
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def conference() -> Conference:
    return make_conference()


def download(conference: Conference, folder: Path) -> list[Path]:
    """What an admin saves from a browser: each page of the site's list, its abstracts file, OpenReview's notes."""
    folder.mkdir()
    saved = []
    with serve(FakeSite(conference, page_size=10)) as site:
        for page in (1, 2, 3, 4):
            with urllib.request.urlopen(f"{site.url}{DATA}orals-posters.json?page={page}") as answer:
                name = "icml-2026-orals-posters.json" if page == 1 else f"icml-2026-orals-posters ({page}).json"
                saved.append(folder / name)
                saved[-1].write_bytes(answer.read())
        with urllib.request.urlopen(f"{site.url}{DATA}abstracts.json") as answer:
            (folder / "icml-2026-abstracts.json").write_bytes(answer.read())
    main_notes = [n for n in conference.notes if "Position" not in n["content"]["venueid"]["value"]]
    position_notes = [n for n in conference.notes if n not in main_notes]
    (folder / "notes.json").write_text(json.dumps({"count": len(main_notes), "notes": main_notes}))
    (folder / "position notes.json").write_text(json.dumps(position_notes))  # a bare list works too
    return saved


def index_cli(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, str, str]:
    code = main(["index", *map(str, paths)])
    out, err = capsys.readouterr()
    return code, out, err


def papers(tmp_path: Path) -> dict[str, dict[str, Any]]:
    db = index.connect(tmp_path / "papers.db", readonly=True)
    try:
        return {row["title"]: dict[str, Any](index.decode(row)) for row in db.query("SELECT * FROM papers")}
    finally:
        db.conn.close()


def test_downloaded_files_index_like_a_fetch(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str]
) -> None:
    download(conference, tmp_path / "downloads")
    code, out, err = index_cli(capsys, tmp_path / "downloads")
    assert (code, err) == (0, "")
    assert "Indexed 35 papers" in out
    assert "35 added, 0 merged, 0 updated, 0 unchanged, 2 skipped." in out
    assert "  skipped 2: not accepted (Rejected_Submission) (first at notes.json)" in out.splitlines()
    found = papers(tmp_path)
    assert len(found) == 35
    oral = found[conference.paper(0).title]
    assert (oral["status"], oral["session"]) == ("Oral", "Poster Session 1; Oral 1A")
    assert SITE_MARK not in oral["abstract"]  # OpenReview's abstract
    assert oral["pdf_url"] == "https://openreview.net/pdf/0000000000000000000000000000000000000000.pdf"
    assert oral["site_url"] == "https://icml.cc/virtual/2026/poster/100000"
    assert oral["institutions"][0] == "Texas A&M University"
    # Its poster and oral rows, its note
    assert oral["sources"] == ["icml-2026-orals-posters.json", "notes.json"]
    assert found[conference.paper(31).title]["sources"] == ["icml-2026-orals-posters (4).json", "position notes.json"]
    assert found[conference.paper(31).title]["track"] == "position"
    assert found["OpenReview Only Paper 0"]["sources"] == ["notes.json"]


def test_downloads_win_over_a_list_loaded_before_them_whatever_it_claims(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str]
) -> None:
    title = conference.paper(0).title
    mine = {"title": title, "abstract": "My own words. " * 8, "authors": ["Mallory Mallet"], "preferred": True}
    listed = tmp_path / "icml2026.jsonl"
    listed.write_text(json.dumps({**mine, "conference": "ICML", "year": 2026, "track": "main"}) + "\n")
    assert index_cli(capsys, listed)[0] == 0
    download(conference, tmp_path / "downloads")
    code, out, _ = index_cli(capsys, tmp_path / "downloads")
    assert code == 0
    assert "34 added, 1 merged" in out
    paper = papers(tmp_path)[title]
    assert paper["authors"][0] == "O'Neil 0"  # the downloads' record, recognised by its shape, wins
    assert SITE_MARK not in paper["abstract"]
    assert "My own words" not in paper["abstract"]


def test_a_list_of_papers_given_with_downloads_is_read_as_a_list(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str]
) -> None:
    download(conference, tmp_path / "downloads")
    listed = tmp_path / "downloads" / "extra.json"
    extra = {"title": "A Listed Paper", "abstract": "Zebrafish transformers on xylophones. " * 4, "notes": ["x"]}
    listed.write_text(json.dumps({"papers": [extra]}))
    code, out, _ = index_cli(capsys, tmp_path / "downloads")
    assert code == 0
    assert "Indexed 36 papers" in out
    assert papers(tmp_path)["A Listed Paper"]["sources"] == ["extra.json"]


def test_the_abstracts_file_is_found_beside_the_pages(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = download(conference, tmp_path / "downloads")
    code, _, _ = index_cli(capsys, *pages)
    assert code == 0
    found = papers(tmp_path)
    assert len(found) == 34
    assert SITE_MARK in found[conference.paper(0).title]["abstract"]


def test_missing_pages_are_said_with_both_numbers(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = download(conference, tmp_path / "downloads")
    code, out, _ = index_cli(capsys, pages[0])
    assert code == 0
    assert "0 skipped." in out  # a warning about the list, not a record left out
    assert (
        "  note 1: the site's list counts 37 records but these files hold 10: save every page (follow `next`) and "
        "give them all (first at icml-2026-orals-posters.json)" in out.splitlines()
    )
    # The first 10 rows: papers 0-2 (poster and oral rows each), papers 3-6
    assert len(papers(tmp_path)) == 7


def test_the_abstracts_file_alone_is_one_line(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str]
) -> None:
    download(conference, tmp_path / "downloads")
    path = tmp_path / "downloads" / "icml-2026-abstracts.json"
    code, _, err = index_cli(capsys, path)
    assert code == 2
    assert err == (
        f"icml-bot: error: {path}: this is the site's abstracts file (event id → abstract) on its own; index it "
        "together with its orals-posters file, e.g. `icml-bot index icml-2026-orals-posters.json "
        "icml-2026-abstracts.json`\n"
    )


def test_a_notes_dump_alone_gives_openreviews_papers(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str]
) -> None:
    download(conference, tmp_path / "downloads")
    code, _, _ = index_cli(capsys, tmp_path / "downloads" / "position notes.json")
    assert code == 0
    found = papers(tmp_path)
    assert sorted((p["track"], p["status"], p["source_id"]) for p in found.values()) == [
        ("position", "Poster", "Fo0000030x"),
        ("position", "Poster", "Fo0000031x"),
        ("position", "Poster", "Fo0000032x"),
    ]


def test_broken_json_in_a_download_names_the_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "icml-2026-orals-posters.json"
    path.write_text('{"count": 2, "next": null,\n "results": [\n {"id": 1,\n')
    code, _, err = index_cli(capsys, path)
    assert code == 2
    assert err.startswith(f"icml-bot: error: {path}:4: not valid JSON (")


def test_an_index_built_before_the_venue_columns_gains_them(tmp_path: Path) -> None:
    path = tmp_path / "papers.db"
    db = index.connect(path)
    columns = "id seq name title title_derived headline abstract authors url pdf_url code_url status session area"
    old = {name: str for name in (*columns.split(), "keywords", "conference", "track", "sources", "source_id")}
    table = db.table("papers")
    table.create({**old, "seq": int, "title_derived": int, "year": int}, pk="id")
    table.enable_fts(["name", "title", "abstract", "authors"], fts_version="FTS5")
    table.insert(
        {
            "id": "oldie1",
            "seq": 1,
            "title": "An Old Paper",
            "abstract": "Zebrafish transformers on xylophones.",
            "title_derived": 0,
        }
        | {"authors": "[]", "keywords": "[]", "sources": '["old.jsonl"]', "conference": "ICML", "year": 2024}
    )
    db.conn.commit()
    index.load(db, [SEEDS])
    assert {"venue", "schedule", "institutions", "tldr", "bibtex", "license"} <= set(db["papers"].columns_dict)
    old_row = index.get_paper(db, "oldie1")
    assert old_row is not None
    assert (old_row["venue"], old_row["schedule"]) == ("icml2024", None)
    fts = "SELECT papers.id FROM papers_fts JOIN papers ON papers.rowid = papers_fts.rowid WHERE papers_fts MATCH ?"
    hits = list(db.query(fts, ["zebrafish"]))
    assert hits == [{"id": "oldie1"}]
    assert db["papers"].count == 20
    db.conn.close()


def test_a_neurips_notes_dump_keeps_position_and_datasets_papers_and_names_what_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = recorded.note("NxOdd00001", "Odd Group", "NeurIPS.cc/2025/Journal_Track", "NeurIPS 2025 Journal Track")
    notes = [*recorded.neurips2025().notes, odd]
    path = tmp_path / "neurips notes.json"
    path.write_text(json.dumps({"count": len(notes), "notes": notes}))
    code, out, _ = index_cli(capsys, path)
    assert code == 0
    assert "Indexed 10 papers" in out
    assert out.splitlines()[1:] == [
        "  skipped 1: not accepted (Desk_Rejected_Submission) (first at neurips notes.json)",
        "  skipped 1: not accepted (Rejected_Submission) (first at neurips notes.json)",
        "  skipped 1: not accepted (Withdrawn_Submission) (first at neurips notes.json)",
        "  skipped 1: venueid 'NeurIPS.cc/2025/Journal_Track' is in no track of the venue table (first at neurips "
        "notes.json)",
    ]
    found = papers(tmp_path)
    assert (found["Position Paper Two"]["track"], found["Position Paper Two"]["status"]) == ("position", "Poster")
    assert (found["Workshop Poster"]["track"], found["Workshop Poster"]["area"]) == ("workshop", "MINT workshop")
    assert (found["Dataset Only"]["track"], found["Dataset Only"]["dataset_url"]) == (
        "datasets",
        "https://zenodo.org/records/123",
    )
    assert found["Dataset Only"]["code_url"] is None  # a data link is not shown as code
