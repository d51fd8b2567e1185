"""`icml-bot fetch` against local fakes of the conference site and OpenReview, as an admin runs it.

What is asserted is what an admin sees: exit codes, the one-line messages, how many papers arrived and merged,
and the papers in the index afterwards. Retry waits are recorded, never slept.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.papers import fetching as run
from bot.papers import index
from bot.papers.fetch.http import JsonClient, RetryPolicy
from bot.papers.fetch.openreview import Credentials
from bot.papers.venues import parse_venue
from tests.support.conference_fakes import (
    SITE_MARK,
    USERS,
    Conference,
    FakeOpenReview,
    FakeSite,
    Fault,
    make_conference,
    serve,
)
from tests.support.paths import ROOT

USER, PASSWORD = next(iter(USERS.items()))
ORALS_POSTERS = "/static/virtual/data/icml-2026-orals-posters.json"
# make_conference(): 30 main-track papers (3 orals, 4 spotlights) + 4 position papers, one of them only on the site,
# and one paper only on OpenReview; 3 oral rows; 2 rejected notes. The site serves 37 rows, 10 a page.
SITE_PAPERS, SITE_ROWS, ALL_PAPERS = 34, 37, 35


@pytest.fixture
def conference() -> Conference:
    return make_conference()


@pytest.fixture
def site(conference: Conference) -> Iterator[FakeSite]:
    with serve(FakeSite(conference, page_size=10)) as fake:
        yield fake


@pytest.fixture
def openreview(conference: Conference) -> Iterator[FakeOpenReview]:
    with serve(FakeOpenReview(conference, page_cap=10)) as fake:
        yield fake


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every retry wait the fetch takes; the CLI's client records them instead of sleeping."""
    taken: list[float] = []
    monkeypatch.setattr(run, "JsonClient", lambda: JsonClient(timeout=10, retry=RetryPolicy(sleep=taken.append)))
    return taken


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never the admin's real index, cache, credentials or proxy."""
    for var in ("ICML_BOT_STATE", "OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD", "OPENREVIEW_BASEURL"):
        monkeypatch.delenv(var, raising=False)
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ICML_BOT_DB", str(tmp_path / "papers.db"))
    monkeypatch.setenv("ICML_BOT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def login(monkeypatch: pytest.MonkeyPatch, password: str = PASSWORD) -> None:
    monkeypatch.setenv("OPENREVIEW_USERNAME", USER)
    monkeypatch.setenv("OPENREVIEW_PASSWORD", password)


def fetch(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["fetch", *args])
    out, err = capsys.readouterr()
    return code, out, err


def papers(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """The indexed papers by title."""
    db = index.connect(tmp_path / "papers.db", readonly=True)
    try:
        return {row["title"]: dict[str, Any](index.decode(row)) for row in db.query("SELECT * FROM papers")}
    finally:
        db.conn.close()


def test_without_credentials_the_site_list_is_indexed_and_openreview_skipped_with_why(
    tmp_path: Path, site: FakeSite, conference: Conference, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    code, out, err = fetch(capsys, "--site-url", site.url)
    assert (code, err) == (0, "")
    assert (
        "icml2026 OpenReview: skipped: OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD are not set, and OpenReview "
        "answers only logged-in clients" in out
    )
    assert f"icml2026 site: {SITE_PAPERS} papers from {SITE_ROWS} records of {SITE_ROWS} counted (5 pages" in out
    assert f"Indexed {SITE_PAPERS} papers" in out
    found = papers(tmp_path)
    assert len(found) == SITE_PAPERS
    oral = found[conference.paper(0).title]
    assert oral["status"] == "Oral"
    assert oral["session"] == "Poster Session 1; Oral 1A"
    assert [(s["kind"], s["name"]) for s in oral["schedule"]] == [("Poster", "Poster Session 1"), ("Oral", "Oral 1A")]
    assert oral["schedule"][1]["url"] == f"{site.url}/virtual/2026/oral/200000"
    assert oral["authors"][0] == "O'Neil 0"
    assert oral["institutions"] == ["Texas A&M University", "KAIST", "Université de Montréal"]
    assert oral["area"] == "General Machine Learning->Representation Learning"
    # <p>…</p><p>… as paragraphs
    assert oral["abstract"].startswith("Study 0 of 34 on topic 0.\n\nLong-context")
    assert SITE_MARK in oral["abstract"]
    assert "<p>" not in oral["abstract"]
    assert (oral["room"], oral["poster_position"], oral["venue"], oral["track"]) == (
        "Exhibit Hall C,D,E",
        "#1000",
        "icml2026",
        "main",
    )
    assert (oral["pdf_url"], oral["bibtex"], oral["tldr"]) == (None, None, None)
    assert found[conference.paper(3).title]["status"] == "Spotlight"
    assert found[conference.paper(9).title]["status"] == "Poster"
    assert waits == []


def test_with_a_login_each_paper_takes_the_best_of_both_sources(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    conference: Conference,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    login(monkeypatch)
    code, out, err = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    assert (code, err) == (0, "")
    # 5 of notes, 1 listing
    assert "icml2026 OpenReview: 34 papers from 34 records of 34 counted (6 pages" in out
    assert (
        f"icml2026: {ALL_PAPERS} papers (33 in both sources, 1 only on the site, 1 only on OpenReview; 0 without an "
        "abstract)" in out
    )
    found = papers(tmp_path)
    assert len(found) == ALL_PAPERS
    oral = found[conference.paper(0).title]
    # OpenReview's, not the site's
    assert oral["abstract"].startswith("Study 0 of 34 on topic 0. Long-context")
    assert SITE_MARK not in oral["abstract"]
    # The site's status wins: OpenReview calls it "ICML 2026 spotlight"
    assert oral["status"] == "Oral"
    assert oral["session"] == "Poster Session 1; Oral 1A"
    assert oral["pdf_url"] == "https://openreview.net/pdf/0000000000000000000000000000000000000000.pdf"
    assert oral["url"] == "https://openreview.net/forum?id=Fo0000000x"
    assert oral["source_id"] == "Fo0000000x"
    assert (oral["tldr"], oral["license"], oral["code_url"]) == (
        "TL;DR of paper 0.",
        "CC BY 4.0",
        "https://github.com/example/paper0",
    )
    assert oral["bibtex"].startswith("@inproceedings{paper0,\n")
    assert oral["keywords"] == ["generated", "topic 0"]
    assert oral["site_url"] == f"{site.url}/virtual/2026/poster/100000"
    assert oral["institutions"][0] == "Texas A&M University"
    position = found[conference.paper(30).title]
    assert (position["track"], position["venue"], position["status"]) == ("position", "icml2026", "Poster")
    site_only = found[conference.paper(33).title]
    assert (site_only["source_id"], site_only["track"]) == ("icml2026-virtual-100033", "position")
    assert SITE_MARK in site_only["abstract"]
    assert found["OpenReview Only Paper 0"]["status"] == "Poster"  # "ICML 2026 regular"
    assert not any(title.startswith("Rejected") for title in found)
    # One login; every notes page with its token; pages of at most 1000, by offset.
    assert openreview.paths("/login") == ["/login"]
    notes = [r for r in openreview.requests if r.path == "/notes"]
    assert {r.headers["authorization"] for r in notes} == {"Bearer token-1"}
    assert {r.query["limit"] for r in notes} == {"1000"}
    main_offsets = [r.query["offset"] for r in notes if r.query["content.venueid"] == "ICML.cc/2026/Conference"]
    assert main_offsets == ["0", "10", "20", "30"]
    assert waits == []


def test_json_summary(tmp_path: Path, site: FakeSite, capsys: pytest.CaptureFixture[str], waits: list[float]) -> None:
    code, out, _ = fetch(capsys, "--site-url", site.url, "--json")
    summary = json.loads(out)
    assert code == 0
    assert [(s["source"], s["papers"], s["expected"], s["skipped"] is not None) for s in summary["sources"]] == [
        ("site", SITE_PAPERS, SITE_ROWS, False),
        ("OpenReview", 0, None, True),
    ]
    assert summary["venues"][0]["file"] == str(tmp_path / "cache" / "icml2026.site.jsonl")
    assert (summary["index"]["added"], summary["index"]["papers"]) == (SITE_PAPERS, SITE_PAPERS)


def test_fewer_records_than_count_is_a_warning_naming_both_numbers(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    with serve(FakeSite(conference, page_size=10, count=40)) as site:
        code, out, _ = fetch(capsys, "--site-url", site.url)
    assert code == 0
    assert f"  warning: icml2026 site: {SITE_ROWS} records arrived but the list says it has 40" in out.splitlines()


def test_next_links_that_name_the_real_site_stay_on_the_mirror(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    with serve(FakeSite(conference, page_size=10, next_host="https://icml.cc")) as site:
        code, _, _ = fetch(capsys, "--site-url", site.url)
        pages = site.paths("orals-posters")
    assert code == 0
    assert pages == [ORALS_POSTERS] + [f"{ORALS_POSTERS}?page={n}" for n in (2, 3, 4)]


def test_a_5xx_once_is_retried_after_a_backoff(
    tmp_path: Path, site: FakeSite, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    site.faults.append(Fault("page=2", status=503))
    code, out, _ = fetch(capsys, "--site-url", site.url)
    assert code == 0
    assert waits == [1.0]
    assert f"Indexed {SITE_PAPERS} papers" in out


def test_a_429_waits_as_long_as_ratelimit_reset_says(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    login(monkeypatch)
    body = b'{"name": "RateLimitError", "message": "Too many requests", "status": 429}'
    openreview.faults.append(Fault("offset=10", status=429, headers={"ratelimit-reset": "7"}, body=body))
    code, out, _ = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    assert code == 0
    assert waits == [7.0]
    assert f"icml2026: {ALL_PAPERS} papers" in out


def test_a_wrong_password_is_one_line_and_the_site_list_still_arrives(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    login(monkeypatch, password="hunter2")
    code, out, err = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    assert code == 1
    assert (
        f"icml2026 OpenReview: failed: OpenReview refused the login of '{USER}' at {openreview.url}/login (HTTP 400: "
        "Error: Invalid username or password): check OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD"
    ) in out.splitlines()
    assert "hunter2" not in out + err
    assert len(papers(tmp_path)) == SITE_PAPERS
    assert openreview.paths("/notes") == []


def test_the_browser_check_after_logging_in_is_one_line(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    login(monkeypatch)
    openreview.faults.append(Fault("/notes", kind="html", times=99))
    code, out, _ = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    url = f"{openreview.url}/notes?content.venueid=ICML.cc/2026/Conference&limit=1000&offset=0&count=true"
    assert code == 1
    assert (
        f'icml2026 OpenReview: failed: {url} answered with an HTML page ("Verifying your browser") where JSON was '
        "expected: OpenReview shows a browser check even after logging in; try again later, or download the notes "
        "in a browser and run `icml-bot index FILE`"
    ) in out.splitlines()


@pytest.mark.parametrize(
    ("no_login", "answer"),
    [
        (
            "challenge",
            'answered with an HTML page ("Verifying your browser") where JSON was expected: OpenReview shows',
        ),
        ("403", "answered HTTP 403 ChallengeRequiredError: OpenReview wants a login"),
    ],
)
def test_without_a_login_a_mirror_that_wants_one_says_to_set_the_credentials(
    tmp_path: Path,
    site: FakeSite,
    conference: Conference,
    capsys: pytest.CaptureFixture[str],
    waits: list[float],
    no_login: str,
    answer: str,
) -> None:
    with serve(FakeOpenReview(conference, no_login=no_login)) as openreview:
        code, out, _ = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    line = next(line for line in out.splitlines() if line.startswith("icml2026 OpenReview"))
    assert code == 1
    assert answer in line
    assert line.endswith(
        "set OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD (an OpenReview account; free at openreview.net)"
    )


def test_nothing_usable_is_exit_2_with_one_line_and_no_index(
    tmp_path: Path, site: FakeSite, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    # The first page: nothing arrives
    site.faults.append(Fault("orals-posters.json", kind="truncate", times=99))
    code, _, err = fetch(capsys, "--site-url", site.url)
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(
        f"icml-bot: error: nothing usable arrived, nothing was indexed: icml2026 site: failed: {site.url}"
        f"{ORALS_POSTERS} sent JSON that does not parse at byte "
    )
    assert "; icml2026 OpenReview: skipped: OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD are not set" in err
    assert not (tmp_path / "papers.db").exists()


def test_site_papers_without_abstracts_are_not_usable_and_the_line_says_why(
    tmp_path: Path, conference: Conference, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    conference.abstracts.clear()  # the 2026 abstracts file is missing: the fake answers 404
    with serve(FakeSite(conference, page_size=10)) as site:
        code, _, err = fetch(capsys, "--site-url", site.url)
    assert code == 2
    assert (
        f"icml2026 site: {SITE_PAPERS} papers, none with an abstract (icml2026 site: no abstracts file at "
        f"{site.url}/static/virtual/data/icml-2026-abstracts.json (HTTP 404))" in err
    )


def test_a_failed_fetch_leaves_the_index_as_it_was(
    tmp_path: Path, site: FakeSite, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    assert main(["index"]) == 0
    before = papers(tmp_path)
    site.faults.append(Fault("orals-posters", status=500, times=99))
    code, _, err = fetch(capsys, "--site-url", site.url)
    assert code == 2
    assert "answered HTTP 500 Internal Server Error 6 times" in err
    assert papers(tmp_path) == before
    assert len(before) == 19


def test_a_bad_venue_name_is_one_line_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = fetch(capsys, "icml26")
    assert code == 2
    assert err == (
        "icml-bot: error: unknown venue 'icml26': use a conference (iclr, icml, neurips) and a year, e.g. icml2026, "
        "icml2025, icml2024, neurips2025, iclr2026 (or icml2026-position for one track)\n"
    )


def test_a_stopped_fetch_resumes_from_the_pages_it_had(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    login(monkeypatch)
    site.faults.append(Fault("page=3", status=503, times=6))  # every try of the first run
    openreview.faults.append(Fault("offset=20", status=502, times=6))
    code, out, _ = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    assert code == 1  # what arrived before the failed pages is indexed
    assert "answered HTTP 503 Service Unavailable 6 times" in out
    # papers 0-16 (pages 1-2 of the site) and 0-19 (offsets 0-19 of OpenReview)
    assert len(papers(tmp_path)) == 20
    first_site, first_notes = len(site.requests), len(openreview.requests)

    code, out, _ = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    assert code == 0
    again_site = [r.path + "?" + "&".join(f"{k}={v}" for k, v in r.query.items()) for r in site.requests[first_site:]]
    # The abstracts file is cached
    assert again_site == [f"{ORALS_POSTERS}?page=3", f"{ORALS_POSTERS}?page=4"]
    again_notes = [
        (r.path, r.query.get("content.venueid"), r.query.get("offset")) for r in openreview.requests[first_notes:]
    ]
    assert again_notes == [
        ("/login", None, None),
        ("/notes", "ICML.cc/2026/Conference", "20"),
        ("/notes", "ICML.cc/2026/Conference", "30"),
        ("/notes", "ICML.cc/2026/Position_Paper_Track", "0"),
        ("/groups", None, "0"),  # the workshops: this fake lists none
    ]
    assert "icml2026 site: 34 papers from 37 records of 37 counted (5 pages, 3 from the cache" in out
    assert len(papers(tmp_path)) == ALL_PAPERS
    # Indexed: the next fetch starts afresh
    assert not list((tmp_path / "cache" / "pages").rglob("*.json"))


def test_a_killed_fetch_resumes_from_the_pages_it_had(
    tmp_path: Path, site: FakeSite, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    site.faults.append(Fault("page=3", kind="hang", seconds=60))
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    command = [sys.executable, "-m", "bot.cli", "fetch", "--site-url", site.url]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not site.paths("page=3") and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert site.paths("page=3"), process.communicate(timeout=5)
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=10)
    assert not (tmp_path / "papers.db").exists()
    site.faults.clear()
    before = len(site.requests)

    code, _, _ = fetch(capsys, "--site-url", site.url)
    assert code == 0
    assert [r.path + ("?page=" + r.query["page"] if "page" in r.query else "") for r in site.requests[before:]] == [
        f"{ORALS_POSTERS}?page=3",
        f"{ORALS_POSTERS}?page=4",
        "/static/virtual/data/icml-2026-abstracts.json",
    ]
    assert len(papers(tmp_path)) == SITE_PAPERS


def test_ids_already_in_use_stay_and_the_official_record_wins(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    conference: Conference,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    # A third-party list keyed by forum id, like ../shared/data's
    listed = tmp_path / "icml2026.jsonl"
    with listed.open("w", encoding="utf-8") as fh:
        for paper in conference.papers[:10]:
            record = {"id": paper.forum, "title": paper.title, "abstract": "Scraped wording. " + paper.abstract}
            fh.write(json.dumps({**record, "status": "Poster", "year": 2026, "track": "main"}) + "\n")
    assert main(["index", str(listed)]) == 0
    ids = {title: p["id"] for title, p in papers(tmp_path).items()}
    capsys.readouterr()
    login(monkeypatch)
    code, out, _ = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    assert code == 0
    assert f"Indexed {ALL_PAPERS} papers" in out
    assert f"{ALL_PAPERS - 10} added, 10 merged" in out
    found = papers(tmp_path)
    assert {title: found[title]["id"] for title in ids} == ids
    oral = found[conference.paper(0).title]
    assert oral["status"] == "Oral"
    # not the scraped wording
    assert oral["abstract"].startswith("Study 0 of 34 on topic 0. Long-context")
    assert oral["sources"] == ["icml2026.fetched.jsonl", "icml2026.jsonl"]


def test_a_list_that_says_it_is_preferred_only_fills_the_gaps_of_the_official_record(
    tmp_path: Path, site: FakeSite, conference: Conference, capsys: pytest.CaptureFixture[str], waits: list[float]
) -> None:
    assert fetch(capsys, "--site-url", site.url)[0] == 0
    title = conference.paper(0).title
    official = papers(tmp_path)[title]
    # "preferred" is what `icml-bot fetch` once wrote into its own lists: anyone can write it into theirs
    claim = {
        "title": title,
        "abstract": "A rewritten abstract that sends readers elsewhere. " * 3,
        "authors": ["Mallory Mallet"],
        "url": "https://evil.example/forum",
        "code_url": "https://evil.example/code",
        "pdf_url": "https://evil.example/paper.pdf",
        "conference": "ICML",
        "year": 2026,
        "track": "main",
        "preferred": True,
    }
    listed = tmp_path / "mine.jsonl"
    listed.write_text(json.dumps(claim) + "\n", encoding="utf-8")
    assert main(["index", str(listed)]) == 0
    after = papers(tmp_path)[title]
    assert after["sources"] == ["icml2026.site.jsonl", "mine.jsonl"]
    for field in ("abstract", "authors", "url", "code_url", "institutions", "status"):
        assert after[field] == official[field], field
    assert official["pdf_url"] is None
    # What the official list lacks, a list may add
    assert after["pdf_url"] == "https://evil.example/paper.pdf"


def test_a_later_fetch_without_openreview_keeps_what_openreview_brought(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    conference: Conference,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    login(monkeypatch)
    assert fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)[0] == 0
    openreview.faults.append(Fault("/notes", status=403, body=b'{"name": "ForbiddenError"}', times=99))
    code, out, _ = fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    assert code == 1
    assert "icml2026 OpenReview: failed: " in out
    assert str(tmp_path / "cache" / "icml2026.site.jsonl") in out
    oral = papers(tmp_path)[conference.paper(0).title]
    assert oral["pdf_url"] == "https://openreview.net/pdf/0000000000000000000000000000000000000000.pdf"
    assert oral["bibtex"].startswith("@inproceedings{paper0,")
    assert len(papers(tmp_path)) == ALL_PAPERS


def test_fetch_venues_indexes_several_venues_in_one_load(tmp_path: Path) -> None:
    icml, neurips = (
        make_conference(posters=6, position=2),
        make_conference(posters=5, position=0, conf="neurips", year=2025),
    )
    with serve(FakeSite(icml)) as icml_site, serve(FakeSite(neurips)) as neurips_site:
        settings = run.Settings(
            cache_dir=tmp_path / "cache", client=JsonClient(retry=RetryPolicy(sleep=lambda s: None))
        )
        reports = []
        for venue, fake in (("icml2026", icml_site), ("neurips2025", neurips_site)):
            settings.site_url = fake.url
            reports.append(run.fetch_venues(tmp_path / "papers.db", [parse_venue(venue)], settings))
    assert [r.index.papers if r.index else None for r in reports] == [8, 13]
    found = papers(tmp_path)
    assert sorted({(p["venue"], p["track"]) for p in found.values()}) == [
        ("icml2026", "main"),
        ("icml2026", "position"),
        ("neurips2025", "main"),
    ]
    neurips_oral = found[neurips.paper(0).title]
    # "Accept (oral)" before 2026
    assert (neurips_oral["status"], neurips_oral["conference"]) == ("Oral", "NEURIPS")


def test_credentials_never_reach_a_cached_page(
    tmp_path: Path,
    site: FakeSite,
    openreview: FakeOpenReview,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    waits: list[float],
) -> None:
    login(monkeypatch)
    openreview.faults.append(Fault("Position_Paper_Track", status=503, times=6))
    fetch(capsys, "--site-url", site.url, "--openreview-url", openreview.url)
    cached = list((tmp_path / "cache" / "pages").rglob("*.json"))
    assert cached
    assert not any(PASSWORD in p.read_text() or "token-1" in p.read_text() for p in cached)


def test_settings_from_the_cli_reach_the_fetch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[run.Settings] = []

    def fake_fetch(db_path: Path, venues: Any, settings: run.Settings, progress: Any) -> run.FetchReport:
        seen.append(settings)
        return run.FetchReport(index=index.Report())

    monkeypatch.setattr(run, "fetch_venues", fake_fetch)
    login(monkeypatch)
    monkeypatch.setenv("OPENREVIEW_BASEURL", "http://mirror.example/api")
    assert main(["fetch", "--cache-dir", str(tmp_path / "c2")]) == 0
    settings = seen[0]
    assert settings.credentials == Credentials(USER, PASSWORD)
    assert PASSWORD not in repr(settings)
    assert (settings.openreview_url, settings.cache_dir, settings.site_url) == (
        "http://mirror.example/api",
        tmp_path / "c2",
        None,
    )
