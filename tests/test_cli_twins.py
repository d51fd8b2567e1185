"""The shell twins of `/icml` as a new user runs them: paper (text and --json), similar, author, trend (a table and a
PNG whose numbers are the search's totals), related (a file or stdin) and export (ids or a search)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from PIL import Image

from bot.cli import main
from tests.support.seed_ids import DEFENSIVE_KV, TOKSUITE, VEGAS
from tests.support.venue_index import build_four_venue_index
from tests.team.bibparse import parse_bibtex, parse_csv

VEGAS_OPENING = (
    "Long-context large language model (LLM) inference has become the norm for today's AI applications. However, it "
    "is severely bottlenecked by the increasing memory demands of its KV cache. Previous works have shown that "
    "self-speculative decoding with sparse attention, where tokens are drafted using a sparse attention"
)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never read or write the user's real index; charts land in the test's folder."""
    for var in ("ICML_BOT_DB", "ICML_BOT_STATE", "ICML_BOT_VENUES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def four_venues(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_four_venue_index(tmp_path_factory.mktemp("cli-venues"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# ------------------------------------------------------------------ paper


def test_paper_prints_readable_text_and_json_with_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "papers.db")
    status, out, _ = run(capsys, "paper", "DefensiveKV", "--db", db)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"[{DEFENSIVE_KV}] DefensiveKV: A formal study on identifying critical KV cache")
    assert set(lines[1]) == {"="}
    assert "This paper presents a formal study on identifying critical KV cache entries" in lines[2]
    assert "ICML 2026" in lines
    assert "code: https://github.com/FFY0/DefensiveKV" in lines
    assert "Large language models have revolutionized natural language processing" in out
    assert max(len(line) for line in lines[lines.index("") :]) <= 100  # the abstract wraps
    assert "{" not in out  # not JSON
    assert "*" not in out  # nor Slack's markup
    status, out, _ = run(capsys, "paper", "DefensiveKV", "--db", db, "--json")
    assert status == 0
    assert json.loads(out)["id"] == DEFENSIVE_KV


# ------------------------------------------------------------------ similar, author


def test_similar_lists_the_papers_like_one_as_slack_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "papers.db")
    status, out, _ = run(capsys, "similar", "DefensiveKV", "--db", db, "--limit", "3")
    assert status == 0
    assert out.startswith(f"Papers like [{DEFENSIVE_KV}] DefensiveKV: A formal study")
    assert f"\n1. [{VEGAS}] Vegas: A self-speculative decoding method" in out
    status, out, _ = run(capsys, "similar", DEFENSIVE_KV, "--db", db, "--json")
    answer = json.loads(out)
    assert answer["paper"] == DEFENSIVE_KV
    assert answer["results"][0]["id"] == VEGAS
    assert DEFENSIVE_KV not in [r["id"] for r in answer["results"]]
    # No paper has that name: a search, as in Slack
    status, out, _ = run(capsys, "similar", "TokSuit", "--db", db)
    assert status == 0
    assert out.startswith("No paper has the id or name 'TokSuit'; here is what a search finds.\n")
    assert f"[{TOKSUITE}] TokSuite" in out


def test_author_lists_a_persons_papers_with_co_authors(four_venues: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "author", "Ada", "Lovelace", "--db", str(four_venues))
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "Co-authors: Alan Turing (13)"
    assert "1. [b2vhh7] Position: KV Cache Research Needs Shared Benchmarks" in lines
    assert "2. [z099pc] Streaming KV Cache Sketches" in lines
    status, out, _ = run(capsys, "author", "A.", "Lovelace", "--db", str(four_venues), "--json")
    answer = json.loads(out)
    assert answer["author"]["name"] == "Ada Lovelace"
    assert [r["id"] for r in answer["results"]] == ["b2vhh7", "z099pc"]
    status, out, _ = run(capsys, "author", "Zzyzx", "--db", str(four_venues))
    assert status == 0
    assert out.startswith("No author is called 'Zzyzx'; here is what a search for 'author Zzyzx' finds.\n")


# ------------------------------------------------------------------ trend


def test_trend_prints_the_search_totals_and_writes_the_chart(
    four_venues: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "trend", "kv", "cache", "--db", str(four_venues))
    assert status == 0
    assert out.splitlines() == [
        "venue      papers  on topic   share",
        "ICLR 2024       4         1   25.0%",
        "ICML 2024       3         3  100.0%",
        "ICLR 2026       4         3   75.0%",
        "ICML 2026      21         4   19.0%",
        "Chart: icml-trend-kv-cache.png",
    ]
    image = Image.open(tmp_path / "icml-trend-kv-cache.png")
    assert (image.format, image.size) == ("PNG", (900, 600))
    status, out, _ = run(capsys, "trend", "kv cache", "--db", str(four_venues), "--json", "--out", "kv.png")
    answer = json.loads(out)
    assert answer["chart"] == "kv.png"
    assert Image.open(tmp_path / "kv.png").size == (900, 600)
    # Each count is what `icml-bot search "kv cache venue:<v>"` reports
    for row in answer["venues"]:
        status, out, _ = run(capsys, "search", f"kv cache venue:{row['venue']}", "--db", str(four_venues), "--json")
        assert json.loads(out)["total"] == row["matches"]
    assert [(r["venue"], r["matches"], r["papers"]) for r in answer["venues"]] == [
        ("iclr2024", 1, 4),
        ("icml2024", 3, 3),
        ("iclr2026", 3, 4),
        ("icml2026", 4, 21),
    ]


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        ("kv cache venue:icml2024", "A trend covers every venue and year already: leave out venue: and year:."),
        ("who works on", "Which topic? Name one, e.g. kv cache or diffusion has:code."),
    ],
)
def test_trend_refuses_what_it_cannot_chart_in_one_line(
    four_venues: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], topic: str, expected: str
) -> None:
    status, out, err = run(capsys, "trend", topic, "--db", str(four_venues))
    assert (status, out, err) == (2, "", f"icml-bot: error: {expected}\n")
    assert list(tmp_path.glob("*.png")) == []


def test_trend_of_words_no_paper_has_draws_nothing(
    four_venues: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "trend", "qqxqzv", "--db", str(four_venues))
    assert status == 0
    assert out.endswith("No papers on 'qqxqzv' in any venue here: no chart drawn.\n")
    assert list(tmp_path.glob("*.png")) == []


# ------------------------------------------------------------------ related


def test_related_finds_the_paper_a_pasted_abstract_comes_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "papers.db")
    draft = tmp_path / "draft.txt"
    draft.write_text(VEGAS_OPENING + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "related", str(draft), "--db", db, "--limit", "2")
    assert status == 0
    assert f"\n1. [{VEGAS}] Vegas" in "\n" + out
    monkeypatch.setattr(sys, "stdin", io.StringIO(VEGAS_OPENING))
    status, out, _ = run(capsys, "related", "--db", db, "--json")
    assert json.loads(out)["results"][0]["id"] == VEGAS
    monkeypatch.setattr(sys, "stdin", io.StringIO("  \n"))
    status, _, err = run(capsys, "related", "--db", db)
    assert status == 2
    assert err == "icml-bot: error: no text to find related papers for: give a FILE, or pipe the text in\n"
    status, _, err = run(capsys, "related", str(tmp_path / "missing.txt"), "--db", db)
    assert status == 2
    assert err == f"icml-bot: error: cannot read {tmp_path / 'missing.txt'}: No such file or directory\n"


# ------------------------------------------------------------------ export


def test_export_bibtex_of_ids_and_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "papers.db")
    status, out, _ = run(capsys, "export", "bibtex", DEFENSIVE_KV, "Vegas", "vegas", "--db", db)
    assert status == 0
    entries = parse_bibtex(out)
    assert len(entries) == 2  # (Vegas named twice: once)
    assert "DefensiveKV" in entries[0].title
    assert "Vegas" in entries[1].title
    status, _, err = run(capsys, "export", "md", "TokSuite", "--db", db, "--out", "reading.md")
    assert status == 0
    assert err == "Exported 1 paper as md to reading.md\n"
    assert (tmp_path / "reading.md").read_text(encoding="utf-8").startswith("# Papers (1)\n\n- **TokSuite")


def test_export_csv_of_a_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "export", "csv", "--search", "kv cache", "--db", str(tmp_path / "papers.db"))
    assert status == 0
    header, rows = parse_csv(out)
    assert header[:2] == ["id", "title"]
    assert [r["id"] for r in rows] == [DEFENSIVE_KV, VEGAS]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["export", "docx", DEFENSIVE_KV], "no export format 'docx': use bibtex, csv or md"),
        (["export", "bibtex"], "give paper ids (or names), or --search QUERY, to export"),
        (["export", "bibtex", DEFENSIVE_KV, "--search", "kv"], "give paper ids (or names), or --search QUERY"),
        (["export", "csv", DEFENSIVE_KV, "nope"], "no paper with id or name 'nope'; nothing exported"),
    ],
)
def test_export_mistakes_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    status, out, err = run(capsys, *argv, "--db", str(tmp_path / "papers.db"))
    assert (status, out) == (2, "")
    # The first use builds it
    errors = [line for line in err.splitlines() if not line.startswith("No index at ")]
    assert len(errors) == 1
    assert errors[0].startswith(f"icml-bot: error: {expected}")
