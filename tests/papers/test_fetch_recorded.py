"""`icml-bot fetch` of NeurIPS, ICLR and ICML as their sources really answer (the shapes recorded in issue 34).

Every accepted paper of every track arrives with its track, status and links; rows and notes that are not accepted
papers are left out and counted in the summary; a page that fails after others arrived keeps what arrived.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from bot.cli import main
from bot.papers import fetching as run
from bot.papers import index
from bot.papers.fetch.http import JsonClient, RetryPolicy
from bot.papers.row import PaperRow
from bot.slack.blocks.papers import meta_parts
from tests.support import recorded
from tests.support.conference_fakes import USERS, Conference, FakeOpenReview, FakeSite, Fault, serve

USER, PASSWORD = next(iter(USERS.items()))


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[float]:
    """Never the admin's real index, cache or proxy; logged in to the fake OpenReview; retry waits recorded."""
    for var in ("ICML_BOT_STATE", "OPENREVIEW_BASEURL", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ICML_BOT_DB", str(tmp_path / "papers.db"))
    monkeypatch.setenv("ICML_BOT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENREVIEW_USERNAME", USER)
    monkeypatch.setenv("OPENREVIEW_PASSWORD", PASSWORD)
    taken: list[float] = []
    monkeypatch.setattr(run, "JsonClient", lambda: JsonClient(timeout=10, retry=RetryPolicy(sleep=taken.append)))
    return taken


@pytest.fixture
def neurips() -> Iterator[tuple[FakeSite, FakeOpenReview]]:
    conference = recorded.neurips2025()
    with serve(FakeSite(conference, page_size=100)) as site, serve(FakeOpenReview(conference)) as openreview:
        yield site, openreview


def fetch(capsys: pytest.CaptureFixture[str], venue: str, site: FakeSite, api: FakeOpenReview) -> tuple[int, str]:
    code = main(["fetch", venue, "--site-url", site.url, "--openreview-url", api.url])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out


def fetch_from(capsys: pytest.CaptureFixture[str], venue: str, conference: Conference) -> tuple[int, str]:
    """`fetch` of the conference served by both fakes."""
    with serve(FakeSite(conference)) as site, serve(FakeOpenReview(conference)) as openreview:
        return fetch(capsys, venue, site, openreview)


def papers(tmp_path: Path) -> list[dict[str, Any]]:
    """Every indexed paper (a list: two records of one paper would show as two)."""
    db = index.connect(tmp_path / "papers.db", readonly=True)
    try:
        return [dict[str, Any](index.decode(row)) for row in db.query("SELECT * FROM papers ORDER BY title")]
    finally:
        db.conn.close()


def by_title(tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {p["title"]: p for p in papers(tmp_path)}


def test_neurips2025_gets_every_accepted_paper_of_every_track_and_nothing_else(
    tmp_path: Path, neurips: tuple[FakeSite, FakeOpenReview], capsys: pytest.CaptureFixture[str]
) -> None:
    assert fetch(capsys, "neurips2025", *neurips)[0] == 0
    assert [(p["title"], p["venue"], p["track"], p["status"]) for p in papers(tmp_path)] == [
        ("Benchmark With Code", "neurips2025", "datasets", "Poster"),
        ("Dataset Only", "neurips2025", "datasets", "Spotlight"),
        ("Oral Without Poster Row", "neurips2025", "main", "Oral"),
        ("Position Paper One", "neurips2025", "position", "Poster"),
        # Only on OpenReview: "… Position Paper Track"
        ("Position Paper Two", "neurips2025", "position", "Poster"),
        ("Spotlight Paper", "neurips2025", "main", "Spotlight"),
        ("Unlinked Oral Paper", "neurips2025", "main", "Oral"),
        ("Workshop Oral Untitled", "neurips2025", "workshop", "Oral"),
        # The workshop marked none: left empty
        ("Workshop Paper Unmarked", "neurips2025", "workshop", None),
        ("Workshop Poster", "neurips2025", "workshop", "Poster"),
    ]
    assert all(p["pdf_url"] and p["url"].startswith("https://openreview.net/forum?id=") for p in papers(tmp_path))


def test_the_summary_names_each_source_and_track_and_what_was_left_out(
    neurips: tuple[FakeSite, FakeOpenReview], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = fetch(capsys, "neurips2025", *neurips)
    lines = out.splitlines()
    assert code == 0
    site_line = next(line for line in lines if line.startswith("neurips2025 site: "))
    assert site_line.startswith("neurips2025 site: 6 papers from 11 records of 11 counted (1 pages, ")
    assert site_line.endswith("; by track: main 3, position 1, datasets 2")
    or_line = next(line for line in lines if line.startswith("neurips2025 OpenReview: "))
    assert or_line.startswith("neurips2025 OpenReview: 10 papers from 10 records of 10 counted (7 pages, ")
    assert or_line.endswith("; by track: main 3, position 2, datasets 2, workshop 3")
    where = "not one of the venue's tracks (a journal track, a CMT-hosted track or another list)"
    assert [line for line in lines if line.startswith("  warning: ")] == [
        "  warning: 1 rows left out: decision 'Reject'",
        f"  warning: 1 rows left out: from TMLR: {where}",
        f"  warning: 1 rows left out: from cmt3.research.microsoft.com: {where}",
        "  warning: 1 rows left out: no `sourceurl` (not from an OpenReview group of the venue)",
        "  warning: neurips2025 OpenReview (workshop): 1 of 3 listed under NeurIPS.cc/2025/Workshop have no accepted "
        "papers (yet): Empty Workshop",
    ]
    assert "neurips2025: 10 papers (6 in both sources, 0 only on the site, 4 only on OpenReview;" in out


def test_workshop_papers_name_their_workshop_and_rejected_ones_are_left_out(
    tmp_path: Path, neurips: tuple[FakeSite, FakeOpenReview], capsys: pytest.CaptureFixture[str]
) -> None:
    _, api = neurips
    fetch(capsys, "neurips2025", *neurips)
    found = by_title(tmp_path)
    # The listing's title
    assert found["Workshop Poster"]["area"] == "Workshop on Mechanistic Interpretability"
    # A group without a title: its id
    assert found["Workshop Oral Untitled"]["area"] == "MLSys workshop"
    assert found["Workshop Poster"]["url"] == "https://openreview.net/forum?id=NwMint0001"
    assert "Workshop Rejected" not in found
    listed = [r.query for r in api.requests if r.path == "/groups"]
    assert listed == [{"parent": "NeurIPS.cc/2025/Workshop", "limit": "1000", "offset": "0"}]


def test_one_track_alone_fetches_only_the_workshops(
    tmp_path: Path, neurips: tuple[FakeSite, FakeOpenReview], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = fetch(capsys, "neurips2025-workshop", *neurips)
    assert code == 0
    assert sorted((p["title"], p["track"]) for p in papers(tmp_path)) == [
        ("Workshop Oral Untitled", "workshop"),
        ("Workshop Paper Unmarked", "workshop"),
        ("Workshop Poster", "workshop"),
    ]
    assert "; by track: workshop 3" in out


def test_a_year_whose_workshops_are_not_listed_yet_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conference = recorded.small("icml", 2026, [("I6m0000001", "Conference", "ICML 2026 regular", "Accept (regular)")])
    code, out = fetch_from(capsys, "icml2026", conference)
    assert code == 0
    assert (
        "  warning: icml2026 OpenReview (workshop): no groups listed under ICML.cc/2026/Workshop: not published yet, "
        "or named otherwise this year (the venue table is in bot/papers/venues.py)"
    ) in out.splitlines()
    assert [p["track"] for p in papers(tmp_path)] == ["main"]


def test_a_site_row_from_another_conference_or_year_is_left_out_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conference = recorded.small("icml", 2026, [("I6m0000001", "Conference", "ICML 2026 regular", "Accept (regular)")])
    conference.rows += [
        recorded.row(3100, "Last Year's Paper", "I5m0000009", "ICML.cc/2025/Conference", "Accept (poster)"),
        recorded.row(3101, "A NeurIPS Paper", "N5m0000009", "NeurIPS.cc/2025/Conference", "Accept (poster)"),
    ]
    code, out = fetch_from(capsys, "icml2026", conference)
    assert code == 0
    assert [p["title"] for p in papers(tmp_path)] == ["ICML 2026 Paper 0"]
    warnings = [line for line in out.splitlines() if line.startswith("  warning: 1 rows left out: from ")]
    assert warnings == [
        "  warning: 1 rows left out: from ICML.cc/2025/Conference: a paper of ICML 2025, not of ICML 2026",
        "  warning: 1 rows left out: from NeurIPS.cc/2025/Conference: a paper of NeurIPS 2025, not of ICML 2026",
    ]


def test_an_oral_row_without_a_poster_row_has_its_oral_session_once(
    tmp_path: Path, neurips: tuple[FakeSite, FakeOpenReview], capsys: pytest.CaptureFixture[str]
) -> None:
    fetch(capsys, "neurips2025", *neurips)
    oral = by_title(tmp_path)["Oral Without Poster Row"]
    assert oral["session"] == "Oral 3B Theory"
    assert [(s["kind"], s["name"]) for s in oral["schedule"]] == [("Oral", "Oral 3B Theory")]


def test_an_oral_row_not_linked_to_its_poster_row_is_one_paper_with_both_sessions_and_the_poster_number(
    tmp_path: Path, neurips: tuple[FakeSite, FakeOpenReview], capsys: pytest.CaptureFixture[str]
) -> None:
    site, _ = neurips
    fetch(capsys, "neurips2025", *neurips)
    found = [p for p in papers(tmp_path) if p["title"] == "Unlinked Oral Paper"]
    assert len(found) == 1
    (oral,) = found
    assert oral["session"] == f"San Diego Poster Session 2; {recorded.ORAL_SESSION}"
    assert [(s["kind"], s["url"]) for s in oral["schedule"]] == [
        ("Poster", f"{site.url}/virtual/2025/poster/1001"),
        ("Oral", f"{site.url}/virtual/2025/oral/2001"),
    ]
    assert (oral["poster_position"], oral["site_url"]) == ("#1001", f"{site.url}/virtual/2025/poster/1001")


def test_datasets_and_benchmarks_papers_keep_their_code_or_dataset_link(
    tmp_path: Path, neurips: tuple[FakeSite, FakeOpenReview], capsys: pytest.CaptureFixture[str]
) -> None:
    fetch(capsys, "neurips2025", *neurips)
    found = by_title(tmp_path)
    code, data = found["Benchmark With Code"], found["Dataset Only"]
    assert (code["code_url"], code["dataset_url"]) == (
        "https://github.com/example/bench-code",
        "https://huggingface.co/datasets/example/bench",
    )
    assert (data["code_url"], data["dataset_url"]) == (None, "https://zenodo.org/records/123")
    # What Slack shows beside the status: each link under its own word.
    assert meta_parts(cast(PaperRow, code))[-2:] == [
        "<https://github.com/example/bench-code|code>",
        "<https://huggingface.co/datasets/example/bench|data>",
    ]
    assert meta_parts(cast(PaperRow, data))[-1] == "<https://zenodo.org/records/123|data>"


def test_neurips2023_datasets_and_benchmarks_is_asked_for_by_its_own_venueid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conference = recorded.small(
        "neurips",
        2023,
        [
            ("N3m0000001", "Conference", "NeurIPS 2023 oral", "Accept (oral)"),
            ("N3d0000001", "Track/Datasets_and_Benchmarks", "NeurIPS 2023 Datasets and Benchmarks Poster", "Accept"),
        ],
    )
    conference.rows = []  # OpenReview alone: its venue strings give the status
    with serve(FakeSite(conference)) as site, serve(FakeOpenReview(conference)) as openreview:
        _, out = fetch(capsys, "neurips2023", site, openreview)
        asked = {r.query.get("content.venueid") for r in openreview.requests if r.path == "/notes"}
    assert asked == {"NeurIPS.cc/2023/Conference", "NeurIPS.cc/2023/Track/Datasets_and_Benchmarks"}
    assert [(p["title"], p["track"], p["status"]) for p in papers(tmp_path)] == [
        ("NeurIPS 2023 Paper 0", "main", "Oral"),
        ("NeurIPS 2023 Paper 1", "datasets", "Poster"),
    ]
    assert "no notes for venueid" not in out


def test_a_track_that_returns_nothing_says_which_venueid_was_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paper = ("N4m0000001", "Conference", "NeurIPS 2024 poster", "Accept (poster)")
    conference = recorded.small("neurips", 2024, [paper])
    code, out = fetch_from(capsys, "neurips2024", conference)
    assert code == 0
    assert (
        "  warning: neurips2024 OpenReview (datasets): no notes for venueid "
        "NeurIPS.cc/2024/Datasets_and_Benchmarks_Track: not published yet, or named otherwise this year (the venue "
        "table is in bot/papers/venues.py)"
    ) in out.splitlines()
    assert "; by track: main 1, datasets 0" in out


@pytest.mark.parametrize(
    ("venue", "conference", "expected"),
    [
        (
            "icml2025",
            recorded.small(
                "icml",
                2025,
                [
                    ("I5m0000001", "Conference", "ICML 2025 oral", "Accept (oral)"),
                    ("I5m0000002", "Conference", "ICML 2025 spotlightposter", "Accept (spotlight poster)"),
                    ("I5p0000001", "Position_Paper_Track", "ICML 2025 Position Paper Track poster", "Accept (poster)"),
                ],
            ),
            [("main", "Oral"), ("main", "Spotlight"), ("position", "Poster")],
        ),
        (
            "iclr2026",
            recorded.small(
                "iclr",
                2026,
                [
                    ("L6m0000001", "Conference", "ICLR 2026 Oral", "Accept (oral)"),
                    ("L6m0000002", "Conference", "ICLR 2026 Poster", "Accept (poster)"),
                ],
            ),
            [("main", "Oral"), ("main", "Poster")],
        ),
    ],
)
def test_icml2025_and_iclr2026_get_every_track_with_status_and_links(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    venue: str,
    conference: Conference,
    expected: list[tuple[str, str]],
) -> None:
    with serve(FakeSite(conference)) as site, serve(FakeOpenReview(conference)) as openreview:
        assert fetch(capsys, venue, site, openreview)[0] == 0
    found = papers(tmp_path)
    assert [(p["venue"], p["track"], p["status"]) for p in found] == [(venue, *e) for e in expected]
    forums = [note["forum"] for note in conference.notes]
    assert [p["url"] for p in found] == [f"https://openreview.net/forum?id={f}" for f in forums]
    assert [p["pdf_url"] for p in found] == [f"https://openreview.net/pdf/{f.lower()}.pdf" for f in forums]
    assert all(p["site_url"].startswith(f"{site.url}/virtual/") for p in found)


def test_a_failed_next_page_keeps_the_pages_that_arrived_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_env: list[float]
) -> None:
    conference = recorded.neurips2025()
    with serve(FakeSite(conference, page_size=4)) as site, serve(FakeOpenReview(conference, page_cap=2)) as api:
        site.faults.append(Fault("page=3", status=503, times=6))
        api.faults.append(Fault("Position_Paper_Track&limit=1000&offset=0", status=502, times=6))
        code, out = fetch(capsys, "neurips2025", site, api)
    assert code == 1
    site_line = next(line for line in out.splitlines() if line.startswith("neurips2025 site: "))
    assert site_line.startswith("neurips2025 site: 6 papers from 8 records of 11 counted (2 pages, ")
    assert site_line.endswith(
        f"; partial: kept the 2 pages that arrived, then {site.url}/static/virtual/data/neurips-2025-orals-posters.json"
        "?page=3 answered HTTP 503 Service Unavailable 6 times; run `icml-bot fetch` again later: pages fetched so far "
        "are kept and not downloaded again"
    )
    or_line = next(line for line in out.splitlines() if line.startswith("neurips2025 OpenReview: "))
    assert or_line.startswith("neurips2025 OpenReview: 3 papers from 3 records of 3 counted (2 pages, ")
    assert "; by track: main 3, position 0, datasets 0, workshop 0; partial: kept the 2 pages that arrived, " in or_line
    assert "Position_Paper_Track&limit=1000&offset=0&count=true answered HTTP 502 Bad Gateway 6 times" in or_line
    assert sorted(by_title(tmp_path)) == [
        "Benchmark With Code",
        "Dataset Only",
        "Oral Without Poster Row",
        "Position Paper One",
        "Spotlight Paper",
        "Unlinked Oral Paper",
    ]
    assert isolated_env == [1.0, 2.0, 4.0, 8.0, 16.0] * 2
