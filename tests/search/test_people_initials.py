"""Names typed with initials (`M. Bansal`, `Bansal, M.`, `MJ Smith`): the papers of everyone who fits, one person
at a time, the most papers (or the best match for the topic typed beside the name) first, and a note naming who else
fits; and a letter beside a word that the papers use as text (`K means`, `t SNE`) is never read as a person."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.papers.people_table import INITIALS_SQL
from bot.papers.venues import Scope
from bot.search import retrieve
from bot.search.people import person_card
from tests.support.marks import starred_notes

ML = "We study {t}. Experiments on standard benchmarks show consistent gains over strong baselines."


def _paper(pid: str, title: str, authors: list[str], abstract: str = ML, year: int = 2026) -> dict[str, object]:
    return {
        "id": pid,
        "title": title,
        "abstract": abstract.format(t=title.lower()),
        "authors": authors,
        "conference": "ICML",
        "year": year,
    }


PAPERS = [
    _paper("MO1", "Chain of Thought Reasoning Verified", ["Mohit Bansal", "Elias Stengel-Eskin"]),
    _paper("MO2", "Video Generation with Camera Control", ["Jaemin Cho", "Mohit Bansal"]),
    _paper("MO3", "Symbolic Experts for Reasoning", ["Justin Chen", "Mohit Bansal"]),
    _paper("MO4", "Calibrated Correctness Predictors", ["Hanqi Xiao", "Mohit Bansal"]),
    _paper("MH1", "Packet Routing with Graph Networks", ["Mahesh Bansal"]),
    _paper("MH2", "Routing Under Uncertainty", ["Mahesh Bansal", "Ada Lovelace"]),
    _paper("MN1", "Protein Folding at Scale", ["Manish Bansal"]),
    *(_paper(f"MN{y}", f"Integer Programming Cuts {y}", ["Manish Bansal"], year=2024) for y in range(2, 7)),
    _paper("SJ1", "Sparse Attention Kernels", ["Mary Jane Smith"]),
    _paper("SJ2", "Attention Sinks Explained", ["Mary Jane Smith", "Mark Smith"]),
    _paper("SM1", "Bayesian Optimisation in Practice", ["Michael Smith"]),
    _paper("SM2", "Bayesian Quadrature Revisited", ["Michael Smith"]),
    _paper("SM3", "Gaussian Processes for Control", ["Michael Smith"]),
    _paper("HG1", "Functional Data Analysis", ["Hans-Georg Müller"]),
    # Listed with an initial
    _paper("JK1", "Sparse Identification of Dynamics", ["J. Nathan Kutz"]),
    _paper("JK2", "Koopman Operators in Practice", ["J. Nathan Kutz", "Steven Brunton"]),
    # People whose surnames are words the papers use right after a letter: `K means`, `X ray`, `a long` context.
    _paper("KM1", "Fair Division of Goods", ["Kevin Means"]),
    _paper("XR1", "Auction Design with Learning Agents", ["Xavier Ray"]),
    _paper("AL1", "Robot Grasping from Demonstrations", ["Alexander Long"]),
    _paper("TS1", "Cell Atlases", ["Tara Sne"]),
    _paper("QL1", "Market Making Agents", ["Quentin Learning"]),
    _paper("K1", "Scalable K-means Clustering", ["Ann Lee"], "We speed up k-means clustering of {t} data."),
    _paper("K2", "Robust k-means under Outliers", ["Bob Lee"], "k-means is fragile; we study {t}."),
    _paper("X1", "Chest X-ray Report Generation", ["Cy Ng"], "We generate reports from x-ray images: {t}."),
    _paper("X2", "Self-supervised X-ray Segmentation", ["Di Wu"], "X-ray images are hard to label; {t}."),
    _paper("Q1", "Convergence of Q-learning with Function Approximation", ["Ed Yu"], "Q-learning: {t}."),
    _paper("T1", "Faithful t-SNE Embeddings", ["Flo Ma"], "t-SNE plots mislead; we study {t}."),
    _paper("L1", "Efficient Long Context Transformers", ["Gil Oz"], "We handle a long context with {t}."),
    _paper("L2", "Retrieval for Long Context Reasoning", ["Hu Li"], "A long context window is costly; {t}."),
    _paper("S1", "A Survey of Diffusion Models", ["Io Wu"], "This is a survey of {t}."),
]
MOHIT = {"MO1", "MO2", "MO3", "MO4"}
MAHESH = {"MH1", "MH2"}
ICML2026 = Scope((("icml2026", None),))


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    source = tmp_path / "initials.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    database = index.connect(tmp_path / "initials.db")
    index.load(database, [source])
    yield database
    database.conn.close()


def ids(response: search.SearchResponse) -> list[str | None]:
    return [r.paper["source_id"] for r in response.results]


@pytest.mark.parametrize("typed", ["M. Bansal", "M Bansal", "m bansal", "Bansal M.", "Bansal, M.", "Bansal M"])
def test_initials_list_everyone_who_fits_the_most_papers_first(db: sqlite_utils.Database, typed: str) -> None:
    response = search.search(db, typed, limit=10, scope=ICML2026)
    got = ids(response)
    assert set(got[:4]) == MOHIT  # four papers at ICML 2026
    assert set(got[4:6]) == MAHESH  # two
    assert got[6:] == ["MN1"]  # one here (his five at ICML 2024 are out of scope)
    assert response.person == "Mohit Bansal"
    assert starred_notes(response)[0] == (
        f"4 papers by *Mohit Bansal* (you typed *{typed}*). Also fits, listed after: Mahesh Bansal (2),"
        " Manish Bansal (1); type the full name for one person's papers."
    )
    assert response.corrected is None


def test_the_most_papers_counts_in_the_venues_searched(db: sqlite_utils.Database) -> None:
    response = search.search(db, "M. Bansal", limit=10, scope=Scope(everything=True))
    assert response.person == "Manish Bansal"  # six papers over ICML 2024 and 2026
    assert set(ids(response)[:6]) == {"MN1", "MN2", "MN3", "MN4", "MN5", "MN6"}
    assert "Mohit Bansal (4), Mahesh Bansal (2)" in starred_notes(response)[0]


def test_topic_words_beside_initials_pick_the_person_whose_papers_match(db: sqlite_utils.Database) -> None:
    response = search.search(db, "M. Bansal routing", limit=10, scope=ICML2026)
    got = ids(response)
    assert set(got[:2]) == MAHESH
    assert set(got[2:6]) == MOHIT  # then the others who fit, in turn
    assert response.person == "Mahesh Bansal"
    assert starred_notes(response)[0].startswith("2 papers by *Mahesh Bansal*, those about *routing* first (you typed")
    assert "Mohit Bansal (4), Manish Bansal (1)" in starred_notes(response)[0]
    reasoning = search.search(db, "M. Bansal reasoning", limit=5, scope=ICML2026)
    assert reasoning.person == "Mohit Bansal"
    assert set(ids(reasoning)[:2]) == {"MO1", "MO3"}


def test_each_result_names_the_person_who_wrote_it(db: sqlite_utils.Database) -> None:
    results = search.search(db, "M. Bansal", limit=10, scope=ICML2026).results
    by = {r.paper["source_id"]: r.matched for r in results}
    assert "author:Mohit Bansal" in by["MO1"]
    assert "author:Mahesh Bansal" in by["MH1"]
    assert "author:Mohit Bansal" not in by["MH1"]


def test_several_initials_must_all_fit(db: sqlite_utils.Database) -> None:
    for typed in ("M. J. Smith", "M.J. Smith", "MJ Smith", "Smith MJ", "Smith, M. J.", "Smith, M. J. attention"):
        response = search.search(db, typed, limit=5)
        assert set(ids(response)) == {"SJ1", "SJ2"}, typed
        assert starred_notes(response)[0].startswith("2 papers by *Mary Jane Smith*")
        assert starred_notes(response)[0].endswith(f"(you typed *{typed.removesuffix(' attention')}*)")
    one = search.search(db, "M. Smith", limit=10)
    assert set(ids(one)[:3]) == {"SM1", "SM2", "SM3"}
    # Mark Smith's one paper is Mary Jane's too: listed once
    assert set(ids(one)[3:]) == {"SJ1", "SJ2"}
    assert "Also fits, listed after: Mary Jane Smith (2), Mark Smith (1)" in starred_notes(one)[0]


def test_all_the_initials_typed_belong_to_the_name(db: sqlite_utils.Database) -> None:
    for typed in ("J. N. Kutz", "Kutz, J. N.", "Kutz J. N."):  # not `Kutz, J.` and a topic word `N`
        response = search.search(db, typed)
        assert set(ids(response)) == {"JK1", "JK2"}, typed
        assert response.person == "J. Nathan Kutz"
        assert "about" not in starred_notes(response)[0], typed


def test_initials_nobody_has_in_full_fall_back_to_the_first(db: sqlite_utils.Database) -> None:
    # No M. K. Smith: the M. Smiths, most papers first
    response = search.search(db, "M. K. Smith", limit=10)
    assert response.person == "Michael Smith"
    assert "(you typed *M. K. Smith*)" in starred_notes(response)[0]
    # Capitals alone are weaker: all of them must fit
    assert search.search(db, "MK Smith").person is None


def test_initials_one_person_fits_name_them_alone(db: sqlite_utils.Database) -> None:
    for typed in ("H. Muller", "H. Müller", "H.-G. Müller", "Müller, H."):
        response = search.search(db, typed)
        assert ids(response) == ["HG1"], typed
        assert starred_notes(response)[0] == f"1 paper by *Hans-Georg Müller* (you typed *{typed}*)"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("K means", {"K1", "K2"}),
        ("k means clustering", {"K1"}),
        ("X ray", {"X1", "X2"}),
        ("x ray segmentation", {"X2"}),
        ("Q learning", {"Q1"}),
        ("t SNE", {"T1"}),
        ("a long context", {"L1", "L2"}),
        ("A survey", {"S1"}),
    ],
)
def test_a_letter_before_a_word_the_papers_use_is_text(
    db: sqlite_utils.Database, query: str, expected: set[str]
) -> None:
    response = search.search(db, query, limit=5)
    assert response.person is None
    # The papers about it first (a surname in the authors
    assert set(ids(response)[: len(expected)]) == expected
    assert not any(
        "papers by" in note or "paper by" in note for note in starred_notes(response)
    )  # may follow, as before)


def test_a_period_or_comma_makes_it_a_name_again(db: sqlite_utils.Database) -> None:
    assert search.search(db, "X. Ray").person == "Xavier Ray"
    assert search.search(db, "Means, K.").person == "Kevin Means"
    assert search.search(db, "A. Long").person == "Alexander Long"
    assert search.search(db, "Q Learning").person is None  # text: a period would say otherwise


def test_author_field_and_author_command_read_initials_as_search_does(db: sqlite_utils.Database) -> None:
    free = search.search(db, "M. Bansal", limit=10, scope=ICML2026)
    fielded = search.search(db, 'author:"M. Bansal"', limit=10, scope=ICML2026)
    assert ids(fielded) == ids(free)
    assert fielded.person == free.person == "Mohit Bansal"
    assert starred_notes(fielded)[0] == starred_notes(free)[0]
    routing = search.search(db, 'author:"M. Bansal" routing', scope=ICML2026)
    assert set(ids(routing)) == MAHESH  # author: keeps only papers about the topic
    assert starred_notes(routing)[0].startswith("2 papers by *Mahesh Bansal* about *routing* (you typed *M. Bansal*)")
    card = person_card(db, "M. Bansal", within=None)
    assert card is not None
    # The whole index: his ICML 2024 papers count
    assert (card.name, card.papers) == ("Manish Bansal", 6)
    # The page lists the others who fit after his, as search does
    assert card.query == 'author:"M. Bansal"'
    alone = person_card(db, "H. Muller")
    assert alone is not None
    assert alone.query == 'author:"Hans-Georg Müller"'


def test_initials_read_only_the_surnames_with_that_first_letter(db: sqlite_utils.Database) -> None:
    """`Y. Wang` at 110,000 papers: 250 of 1,600 Wangs fit; the look-up must not read (and decode) all of them."""
    plan = " ".join(row[-1] for row in db.execute(f"EXPLAIN QUERY PLAN {INITIALS_SQL}", ["bansal", "m", "n"]))
    assert "(last=? AND first>? AND first<?)" in plan
    assert set(ids(search.search(db, "M. Bansal", limit=10, scope=ICML2026))[:4]) == MOHIT


def test_the_person_who_leads_keeps_all_their_papers_however_many_others_fit(
    db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Papers are listed up to TOTAL_CAP; the cut comes after the person the answer names, not in index order
    (`Y. Wang` at 110,000 papers said '44 papers by Yu Wang' of his 192, the rest cut off by others' papers)."""
    monkeypatch.setattr(retrieve, "TOTAL_CAP", 6)
    response = search.search(db, "M. Bansal", limit=6, scope=Scope(everything=True))
    assert response.person == "Manish Bansal"
    assert set(ids(response)) == {"MN1", "MN2", "MN3", "MN4", "MN5", "MN6"}
    assert starred_notes(response)[0].startswith("6 papers by *Manish Bansal*")
