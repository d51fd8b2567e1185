"""Exports of saved papers and channel lists: BibTeX, CSV and Markdown files, read back with real parsers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.search.reader import Papers
from bot.state import State
from bot.team import export, reading_list, saves
from bot.team.export import Format, Row
from tests.team.bibparse import parse_bibtex, parse_csv
from tests.team.conftest import HOSTILE, paper_id

T1, T2 = "T0TEAM0001", "T0TEAM0002"
C1, C2 = "C0CHANNEL1", "C0CHANNEL2"
U1, U2 = "U0ALICE001", "U0BOB00002"
MAR_9 = 1773050400.0  # 2026-03-09T10:00:00Z
HOSTILE_IDS = [h["id"] for h in HOSTILE]


def save_hostile(state: State, papers: Papers) -> list[str]:
    """Save the seven hostile papers for U1, an hour apart (hostile07 newest); their index ids, newest first."""
    ids = [paper_id(papers, s) for s in HOSTILE_IDS]
    for n, pid in enumerate(ids):
        saves.save(state, T1, U1, pid, at=MAR_9 + 3600 * n)
    return ids[::-1]


@pytest.mark.parametrize("kind", list(Format))
def test_an_export_holds_exactly_the_users_saves_newest_first(state: State, papers: Papers, kind: Format) -> None:
    ids = save_hostile(state, papers)
    saves.save(state, T1, U2, paper_id(papers, "plain001"), at=MAR_9)  # someone else's
    # The same user id in another workspace
    saves.save(state, T2, U1, paper_id(papers, "plain002"), at=MAR_9)
    done = export.saved_papers(state, papers, T1, U1, kind)
    assert (done.count, done.missing, done.format) == (7, (), kind)
    assert done.filename == f"icml-saved-papers.{kind.extension}"
    titles = [p["title"] for p in (papers.get(i) for i in ids) if p]
    if kind is Format.BIBTEX:
        assert [e.title for e in parse_bibtex(done.content)] == titles
    elif kind is Format.CSV:
        assert [row["id"] for row in parse_csv(done.content)[1]] == ids
    else:
        items = done.content.splitlines()[2:]
        assert len(items) == 7
        assert all(line.startswith("- **") for line in items)
        assert all(export.markdown_text(t) in line for t, line in zip(titles, items, strict=True))


def test_csv_has_a_header_and_round_trips_authors_and_special_characters(state: State, papers: Papers) -> None:
    ids = save_hostile(state, papers)
    header, rows = parse_csv(export.saved_papers(state, papers, T1, U1, Format.CSV).content)
    assert header == [
        "id",
        "title",
        "authors",
        "year",
        "venue",
        "status",
        "url",
        "pdf_url",
        "code_url",
        "dataset_url",
        "saved_at",
    ]
    assert [r["id"] for r in rows] == ids
    for row in rows:
        paper = papers.get(row["id"])
        assert paper is not None
        if row["id"] == paper_id(papers, "hostile05"):
            continue  # formulas defused: below
        assert row["title"] == paper["title"]
        assert row["authors"].split("; ") == paper["authors"]
    by_id = {r["id"]: r for r in rows}
    tok = by_id[paper_id(papers, "hostile02")]
    assert tok == {
        "id": paper_id(papers, "hostile02"),
        "title": "TokSuite: Measuring Tokenizer Robustness in LLMs",
        "authors": "Jane Smith; Ada Lovelace",
        "year": "2026",
        "venue": "ICML 2026",
        "status": "Oral",
        "url": "https://openreview.net/forum?id=hostile_02",
        "pdf_url": "https://openreview.net/pdf?id=hostile_02",
        "code_url": "https://github.com/example/toksuite",
        "dataset_url": "",
        "saved_at": "2026-03-09T11:00:00Z",
    }
    kaiser = by_id[paper_id(papers, "hostile01")]
    assert kaiser["authors"] == "Łukasz Kaiser; José García-López; Smith, Jr.; Bob and Alice Co"
    assert all(c in kaiser["title"] for c in "&%#_~^")
    assert by_id[paper_id(papers, "hostile04")]["authors"] == "张伟; Zoë Ørsted"
    assert by_id[paper_id(papers, "hostile06")]["venue"] == "ICML 2026 Workshop"
    assert by_id[paper_id(papers, "hostile07")]["venue"] == "ICLR 2026"


def test_csv_cells_that_a_spreadsheet_would_run_are_defused(state: State, papers: Papers) -> None:
    save_hostile(state, papers)
    _, rows = parse_csv(export.saved_papers(state, papers, T1, U1, Format.CSV).content)
    formula = next(r for r in rows if r["id"] == paper_id(papers, "hostile05"))
    assert (formula["title"], formula["authors"]) == ("'=1+1 Is Not a Formula", "'@mention Person; -Dash Name")


def test_a_channel_list_export_says_who_added_each_paper(state: State, papers: Papers) -> None:
    tok, kaiser = paper_id(papers, "hostile02"), paper_id(papers, "hostile01")
    reading_list.add(state, T1, C1, U1, tok, at=MAR_9)
    reading_list.add(state, T1, C1, U2, kaiser, at=MAR_9 + 86400)
    reading_list.add(state, T1, C2, U2, paper_id(papers, "plain003"), at=MAR_9)  # another channel's
    done = export.channel_list(state, papers, T1, C1, Format.CSV)
    assert (done.filename, done.count) == ("icml-reading-list.csv", 2)
    header, rows = parse_csv(done.content)
    assert header[-2:] == ["added_by", "added_at"]
    assert [(r["id"], r["added_by"], r["added_at"]) for r in rows] == [
        (kaiser, U2, "2026-03-10T10:00:00Z"),
        (tok, U1, "2026-03-09T10:00:00Z"),
    ]
    bib = parse_bibtex(export.channel_list(state, papers, T1, C1, Format.BIBTEX).content)
    assert [e.key for e in bib] == ["kaiser2026attention", "smith2026toksuite"]


def test_markdown_links_each_title_and_shows_who_added_it(state: State, papers: Papers) -> None:
    tok, formula = paper_id(papers, "hostile02"), paper_id(papers, "hostile05")
    reading_list.add(state, T1, C1, U1, tok, at=MAR_9)
    reading_list.add(state, T1, C1, U2, formula, at=MAR_9 + 60)
    assert export.channel_list(state, papers, T1, C1, Format.MARKDOWN).content == (
        "# Reading list (2)\n"
        "\n"
        "- **=1+1 Is Not a Formula** · @mention Person, -Dash Name · ICML 2026"
        " · [Code](<https://github.com/example/zebra>) · added by U0BOB00002 on 2026-03-09\n"
        "- **[TokSuite: Measuring Tokenizer Robustness in LLMs](<https://openreview.net/forum?id=hostile_02>)**"
        " · Jane Smith, Ada Lovelace · ICML 2026 Oral · [PDF](<https://openreview.net/pdf?id=hostile_02>)"
        " · [Code](<https://github.com/example/toksuite>) · added by U0ALICE001 on 2026-03-09\n"
    )


def test_markdown_escapes_what_would_be_markup() -> None:
    paper = {"id": "m", "title": "A *bold* [link](x) <b>_it_</b> `code` | pipe", "url": "https://e.org/a(b)c d"}
    content = export.to_markdown([Row(paper)], "Saved")
    assert content.splitlines()[2] == (
        r"- **[A \*bold\* \[link\](x) \<b\>\_it\_\</b\> \`code\` \| pipe](<https://e.org/a%28b%29c%20d>)**"
    )
    assert export.to_markdown([], "Saved papers (0)") == "# Saved papers (0)\n\n_No papers yet._\n"


def test_papers_gone_from_the_index_are_left_out_and_named(state: State, papers: Papers, seed_index_path: Path) -> None:
    tok = paper_id(papers, "hostile02")
    vegas = Papers(seed_index_path).get("Vegas")
    assert vegas is not None
    saves.save(state, T1, U1, tok, at=MAR_9)
    saves.save(state, T1, U1, vegas["id"], at=MAR_9 + 1)
    for kind in Format:
        done = export.saved_papers(state, Papers(seed_index_path), T1, U1, kind)
        assert (done.count, done.missing) == (1, (tok,))
        assert "TokSuite: Measuring" not in done.content
    assert [
        e.key for e in parse_bibtex(export.saved_papers(state, Papers(seed_index_path), T1, U1, Format.BIBTEX).content)
    ] == ["anon2026vegas"]


def test_an_empty_export_is_still_a_valid_file(state: State, papers: Papers) -> None:
    assert parse_bibtex(export.saved_papers(state, papers, T1, U1, Format.BIBTEX).content) == []
    assert parse_csv(export.saved_papers(state, papers, T1, U1, Format.CSV).content) == (
        [*export.CSV_COLUMNS, "saved_at"],
        [],
    )


def test_two_hundred_saved_papers_export_with_unique_keys(state: State, papers: Papers) -> None:
    for n in range(200):
        saves.save(state, T1, U1, paper_id(papers, f"plain{n:03d}"), at=MAR_9 + n)
    bib = parse_bibtex(export.saved_papers(state, papers, T1, U1, Format.BIBTEX).content)
    assert len({e.key for e in bib}) == 200
    _, rows = parse_csv(export.saved_papers(state, papers, T1, U1, Format.CSV).content)
    assert [r["title"] for r in rows[:2]] == [
        "Ordinary Paper Number 199 on Topic 3",
        "Ordinary Paper Number 198 on Topic 2",
    ]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("bibtex", Format.BIBTEX),
        ("BIB", Format.BIBTEX),
        (" csv ", Format.CSV),
        ("md", Format.MARKDOWN),
        ("Markdown", Format.MARKDOWN),
        ("pdf", None),
        ("", None),
    ],
)
def test_the_format_a_user_typed(word: str, expected: Format | None) -> None:
    assert Format.named(word) is expected
