"""People search: a name typed any usual way puts that person's papers first and is never "corrected" into a word."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.search.people import People, person_card
from tests.support.marks import starred_notes
from tests.support.papers import source_id

BASAL = "The basal ganglia select actions. We model basal ganglia circuits with spiking networks and study {t}."
REASONING = "Language models reason step by step. We study {t} and show better multi-step reasoning on math."
VISION = "Images are everywhere. We study {t} for image classification with convolutional networks."


def _paper(pid: str, title: str, abstract: str, authors: list[str]) -> dict[str, object]:
    return {"id": pid, "title": title, "abstract": abstract.format(t=title.lower()), "authors": authors}


PAPERS = [
    _paper("MB1", "Chain of Thought Reasoning Verified", REASONING, ["Mohit Bansal", "Elias Stengel-Eskin"]),
    _paper("MB2", "Video Generation with Camera Control", VISION, ["Jaemin Cho", "Mohit Bansal"]),
    _paper("MB3", "Symbolic Experts for Reasoning", REASONING, ["Justin Chen", "Mohit Bansal"]),
    _paper("MB4", "Calibrated Correctness Predictors", VISION, ["Hanqi Xiao", "Mohit Bansal"]),
    _paper("MA1", "Routing in Sparse Networks", VISION, ["Manish Bansal"]),
    _paper("BG1", "Basal Ganglia Models of Action Selection", BASAL, ["Ada Lovelace"]),
    _paper("BG2", "Spiking Basal Ganglia Circuits", BASAL, ["Alan Turing"]),
    _paper("BZ1", "Diffusion for Tabular Data", VISION, ["Bo Zhang", "Wei Li"]),
    _paper("BZ2", "Reasoning about Graphs", REASONING, ["Bo Zhang"]),
    _paper("YZ1", "Robust Image Classifiers", VISION, ["Yu Zhang", "Bo Li"]),
    _paper("YZ2", "Reasoning Benchmarks for Math", REASONING, ["Yu Zhang"]),
    _paper("JS1", "Compression Progress and Curiosity", VISION, ["Jürgen Schmidhuber"]),
    _paper("HG1", "Functional Data Analysis", VISION, ["Hans-Georg Müller"]),
    _paper("DB1", "Stochastic Variational Inference Revisited", "Posterior inference for {t}.", ["David Blei"]),
    _paper("DB2", "Topic Models of Scientific Text", "Latent structure in {t}.", ["David Blei", "Dave Lee"]),
]


def indexed(tmp_path: Path, papers: list[dict[str, object]], name: str = "words") -> sqlite_utils.Database:
    """An index of these papers, built from a JSON Lines list as `icml-bot index` builds one."""
    source = tmp_path / f"{name}2026.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    db = index.connect(tmp_path / f"{name}.db")
    index.load(db, [source])
    return db


@pytest.fixture
def people_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    db = indexed(tmp_path, PAPERS, "people")
    yield db
    db.conn.close()


def found(db: sqlite_utils.Database, query: str, limit: int = 5) -> list[str]:
    return [source_id(r.paper) for r in search.search(db, query, limit=limit).results]


MOHIT = {"MB1", "MB2", "MB3", "MB4"}


@pytest.mark.parametrize(
    "query",
    ["Mohit Bansal", "mohit bansal", "Bansal Mohit", "Bansal, Mohit", "M. Bansal", "Mohit Bansl", "Mohti Bansal"],
)
def test_a_name_typed_any_usual_way_lists_that_persons_papers_first(
    people_db: sqlite_utils.Database, query: str
) -> None:
    response = search.search(people_db, query, limit=5)
    assert {r.paper["source_id"] for r in response.results[:4]} == MOHIT
    assert response.person == "Mohit Bansal"
    assert starred_notes(response)[0].startswith("4 papers by *Mohit Bansal*")
    assert response.corrected is None  # never "Showing results for *Mohit Basal*"


def test_a_typo_or_initial_says_how_the_name_was_read(people_db: sqlite_utils.Database) -> None:
    assert (
        starred_notes(search.search(people_db, "Mohit Bansl"))[0]
        == "4 papers by *Mohit Bansal* (you typed *Mohit Bansl*)"
    )
    note = starred_notes(search.search(people_db, "M. Bansal"))[0]
    assert note.startswith("4 papers by *Mohit Bansal* (you typed *M. Bansal*)")
    assert "Manish Bansal (1)" in note


@pytest.mark.parametrize("query", ["Dave Blei", "dave blei", "Blei, Dave", "Dave M. Blei"])
def test_a_short_form_of_a_given_name_finds_the_person(people_db: sqlite_utils.Database, query: str) -> None:
    # Dave is David here, not the other Dave: "Dave Blei" used to search the words and list Dave Lee's paper.
    response = search.search(people_db, query)
    assert response.person == "David Blei"
    assert {r.paper["source_id"] for r in response.results} == {"DB1", "DB2"}
    assert starred_notes(response)[0] == f"2 papers by *David Blei* (you typed *{query}*)"


def test_a_full_given_name_finds_the_person_listed_by_a_short_form(people_db: sqlite_utils.Database) -> None:
    response = search.search(people_db, "David Lee")  # listed as Dave Lee
    assert (response.person, found(people_db, "David Lee")) == ("Dave Lee", ["DB2"])
    assert starred_notes(response)[0] == "1 paper by *Dave Lee* (you typed *David Lee*)"


@pytest.mark.parametrize("query", ['papers author:"Mohit Bansal"', 'papers by author:"Mohit Bansal"'])
def test_papers_beside_an_author_filter_is_the_request(people_db: sqlite_utils.Database, query: str) -> None:
    # "papers" is what is asked for, not a word the papers must hold.
    response = search.search(people_db, query)
    assert {r.paper["source_id"] for r in response.results} == MOHIT
    assert starred_notes(response)[0] == "4 papers by *Mohit Bansal*"


def test_diacritics_are_optional_both_ways(people_db: sqlite_utils.Database) -> None:
    assert found(people_db, "Jurgen Schmidhuber") == ["JS1"]
    assert found(people_db, "JÜRGEN SCHMIDHUBER") == ["JS1"]
    assert found(people_db, "Hans-Georg Muller")[:1] == ["HG1"]
    assert found(people_db, "Müller Hans-Georg")[:1] == ["HG1"]


SPELLED = [
    _paper("BS1", "Causal Representation Learning", REASONING, ["Bernhard Schölkopf", "Ada Lovelace"]),
    _paper("BS2", "Kernel Mean Embeddings", VISION, ["Bernhard Schölkopf"]),
    _paper("KS1", "Sparse Coding of Images", VISION, ["Kasper Sørensen"]),
    _paper("LA1", "Quantum Annealing Schedules", BASAL, ["Lena Åberg"]),
    # Listed spelled out
    _paper("MS1", "Evolution Strategies Revisited", VISION, ["Marc Schoenauer"]),
    _paper("SB1", "Schrödinger Bridges for Sampling", "We sample with Schrödinger bridges and the Nyström method.", []),
    _paper("SB2", "Schroedinger Bridge Matching", "Schroedinger bridge matching, written out.", ["Alan Turing"]),
]


@pytest.mark.parametrize(
    ("query", "person", "papers"),
    [
        ("Schoelkopf", "Bernhard Schölkopf", {"BS1", "BS2"}),
        ("Bernhard Schoelkopf", "Bernhard Schölkopf", {"BS1", "BS2"}),
        ("Schoelkopf causal representation", "Bernhard Schölkopf", {"BS1", "BS2"}),
        ("Kasper Soerensen", "Kasper Sørensen", {"KS1"}),
        ("Lena Aaberg", "Lena Åberg", {"LA1"}),
        ("Marc Schönauer", "Marc Schoenauer", {"MS1"}),  # and the other way round
    ],
)
def test_a_name_typed_with_its_letters_spelled_out_finds_the_person(
    tmp_path: Path, query: str, person: str, papers: set[str]
) -> None:
    # `Schoelkopf` found nothing: the people table keys Schölkopf as scholkopf, and FTS5 reads him so too.
    db = indexed(tmp_path, SPELLED, "spelled")
    response = search.search(db, query)
    db.conn.close()
    assert response.person == person
    assert {r.paper["source_id"] for r in response.results} == papers
    assert starred_notes(response)[0].startswith(f"{len(papers)} paper")
    assert "you typed" not in starred_notes(response)[0]  # the same name, not a typo


def test_words_and_author_filters_typed_with_letters_spelled_out(tmp_path: Path) -> None:
    db = indexed(tmp_path, SPELLED, "spelled")
    try:
        named = search.search(db, "author:Schoelkopf")
        assert {r.paper["source_id"] for r in named.results} == {"BS1", "BS2"}
        assert named.results[0].named == ["Bernhard Schölkopf"]  # shown in bold
        for query in ("Schroedinger bridge", "Schrodinger bridge", "Schrödinger bridge"):
            response = search.search(db, query)
            assert {r.paper["source_id"] for r in response.results} == {"SB1", "SB2"}, query
            # not "Showing results for Schrödinger", a typo's note
            assert response.corrected is None, query
        assert [r.paper["source_id"] for r in search.search(db, "Nystroem").results] == ["SB1"]
    finally:
        db.conn.close()


def test_name_plus_topic_ranks_that_persons_papers_by_the_topic(people_db: sqlite_utils.Database) -> None:
    response = search.search(people_db, "Mohit Bansal reasoning", limit=5)
    got = [r.paper["source_id"] for r in response.results]
    assert set(got[:2]) == {"MB1", "MB3"}  # about reasoning first
    assert set(got) == MOHIT  # then the rest of theirs, nobody else's reasoning paper
    assert starred_notes(response)[0] == "4 papers by *Mohit Bansal*, those about *reasoning* first"


def test_author_field_takes_a_whole_name_not_a_shared_surname(people_db: sqlite_utils.Database) -> None:
    assert set(found(people_db, 'author:"Bo Zhang"')) == {"BZ1", "BZ2"}
    assert found(people_db, 'author:"Bo Zhang" reasoning') == ["BZ2"]
    # A surname alone: every Zhang
    assert set(found(people_db, "author:Zhang")) == {"BZ1", "BZ2", "YZ1", "YZ2"}
    assert set(found(people_db, 'reasoning -author:"Bo Zhang"')) == {"MB1", "MB3", "YZ2"}
    assert set(found(people_db, "Bo Zhang")) == {"BZ1", "BZ2"}  # not Bo Li, not Yu Zhang


def test_a_surname_alone_is_never_corrected_into_a_word(people_db: sqlite_utils.Database) -> None:
    response = search.search(people_db, "Bansal")
    assert response.corrected is None
    assert {r.paper["source_id"] for r in response.results} == MOHIT | {"MA1"}
    assert not {"BG1", "BG2"} & set(found(people_db, "Bansal"))


def test_a_surname_alone_names_its_few_bearers_the_most_papers_first(people_db: sqlite_utils.Database) -> None:
    # Typed alone, a surname was ranked as a word: the papers that mention it could come before its bearers' own.
    response = search.search(people_db, "Bansal")
    assert response.person == "Mohit Bansal"
    assert [r.paper["source_id"] for r in response.results][4:] == ["MA1"]
    assert starred_notes(response)[0].startswith(
        "4 papers by *Mohit Bansal*. Also fits, listed after: Manish Bansal (1)"
    )
    # Capitalised beside a few topic words the papers use, it names them too (`Bengio GFlowNets`); in lower case,
    # beside words, it is a word.
    beside = search.search(people_db, "Bansal reasoning")
    assert beside.person == "Mohit Bansal"
    assert starred_notes(beside)[0].startswith("4 papers by *Mohit Bansal*, those about *reasoning* first")
    assert search.search(people_db, "bansal reasoning").person is None
    # `/icml author Bansal` alike, where it said no author is called so
    card = person_card(people_db, "Bansal")
    assert card is not None
    assert (card.name, card.papers, card.query) == ("Mohit Bansal", 4, 'author:"Bansal"')


def test_a_surname_the_papers_use_as_a_word_or_many_people_share_stays_a_word(tmp_path: Path) -> None:
    papers = [
        _paper("T1", "Neural Turing Machines Revisited", VISION, ["Alan Turing"]),
        _paper("T2", "Computable Numbers", VISION, ["Alan Turing"]),
        _paper("T3", "Turing Tests for Chatbots", REASONING, ["Ada Lovelace"]),
        _paper("T4", "Universal Turing Machines", REASONING, ["Grace Hopper"]),
        *(_paper(f"Z{i}", f"Reasoning Study {i}", REASONING, [f"{name} Zhang"]) for i, name in enumerate("ABCDEF")),
    ]
    db = indexed(tmp_path, papers)
    # Three titles use it; Alan Turing wrote two papers
    assert search.search(db, "Turing").person is None
    zhang = search.search(db, "Zhang")
    assert zhang.person is None  # six people: which one would it be?
    # ...so the answer asks for a first name, naming one of them (the first with the most papers) as an example
    ask = "Many authors are called *Zhang*: add a first name or an initial for one person's papers (*A Zhang*, *A. Zhang*)."  # noqa: E501
    assert starred_notes(zhang) == [ask]
    assert starred_notes(search.search(db, "author:Zhang")) == [ask]
    assert {r.paper["source_id"] for r in search.search(db, "Zhang", limit=10).results} == {f"Z{i}" for i in range(6)}
    for alone in ("Turing", "Alan Turing", "Zhang reasoning", "reasoning", "-Zhang reasoning", '"Zhang"'):
        assert not any("Many authors" in note for note in starred_notes(search.search(db, alone))), alone


def test_a_person_is_named_as_most_lists_write_names_whatever_spelling_came_first(tmp_path: Path) -> None:
    """Lists spell one author several ways (Min zhang, MIN ZHANG, Min Zhang): answers use the usual casing."""
    papers = [
        _paper("L1", "Reasoning about Proofs", REASONING, ["Min zhang"]),
        _paper("L2", "Reasoning about Games", REASONING, ["MIN ZHANG"]),
        _paper("L3", "Reasoning about Code", REASONING, ["Min Zhang"]),
        _paper("Q1", "Quantum Circuits", VISION, ["quan zhang"]),
    ]
    db = indexed(tmp_path, papers)
    assert starred_notes(search.search(db, "min zhang"))[0].startswith("3 papers by *Min Zhang*")
    assert starred_notes(search.search(db, "quan zhang"))[0].startswith(
        "1 paper by *quan zhang*"
    )  # (the only spelling)


def test_topic_words_that_are_not_a_name_still_search_topics(people_db: sqlite_utils.Database) -> None:
    response = search.search(people_db, "basal ganglia")
    assert response.person is None
    assert {r.paper["source_id"] for r in response.results} == {"BG1", "BG2"}
    assert search.search(people_db, "basal gangila").corrected == "basal ganglia"


def test_a_name_no_author_has_says_so_instead_of_listing_namesakes(people_db: sqlite_utils.Database) -> None:
    # "Mohit" is a given name here and "Basel" is in no title, abstract or author name: someone who is not an author.
    response = search.search(people_db, "Mohit Basel")
    assert (response.results, response.corrected, response.person) == ([], None, None)
    assert starred_notes(response) == ["No author here is called *Mohit Basel*, and no paper mentions *Basel*."]
    # A typo of an author's name is still that author
    assert set(found(people_db, "Mohit Bansl")) == MOHIT


@pytest.mark.parametrize(
    "query",
    [
        "Mohit Reasonign",  # a typo of a word four papers use: corrected, as before
        # A surname an author has: maybe a nickname, left to people search and the words
        "Yu Bansal",
        "Bo Spiking",  # a word the papers use: a topic
        "Zhang Mohit",  # "Zhang" is nobody's given name here
    ],
)
def test_a_name_like_query_is_not_called_nobody_when_it_may_be_words_or_an_author(
    people_db: sqlite_utils.Database, query: str
) -> None:
    assert not any(note.startswith("No author here") for note in starred_notes(search.search(people_db, query)))


def test_an_index_built_before_people_were_kept_still_searches(people_db: sqlite_utils.Database) -> None:
    people_db.execute("DROP TABLE people")
    assert not People(people_db).available
    response = search.search(people_db, "Mohit Bansal reasoning")
    assert response.person is None
    assert {"MB1", "MB3"} <= {r.paper["source_id"] for r in response.results}


def test_short_forms_that_are_words_and_words_between_are_no_names(tmp_path: Path) -> None:
    # "al" (et al), "will" and "rich" are Albert, William and Richard only when typed as the full name.
    papers = [
        _paper("AL", "Sparse Attention Kernels", VISION, ["Albert Li"]),
        _paper("WZ", "Tabular Foundation Models", VISION, ["William Zhang"]),
        _paper("RZ", "Rich Features in Vision", VISION, ["Richard Zhang"]),
        # As in the real lists, more Zhangs than a surname alone names (else `Zhang` among words names them all).
        *(
            _paper(f"Z{i}", f"Vision Study {i}", VISION, [f"{given} Zhang"])
            for i, given in enumerate(["Bo", "Yi", "Min", "Lei"])
        ),
    ]
    db = indexed(tmp_path, papers)
    for query in ("Li et al", "Li et al. sparse attention", "which papers will Zhang present", "rich features Zhang"):
        assert search.search(db, query).person is None, query
    assert search.search(db, "Albert Li").person == "Albert Li"
    db.conn.close()


# Names with particles (van der, de, von): the people table keys a person by the first and last word of the name, so
# `van der` is neither given name nor surname, and a query naming her must read past it, in either order.
VDS_PAPERS = [
    _paper("VS1", "Synthetic Data for Clinical Trials", VISION, ["Boris van Breugel", "Mihaela van der Schaar"]),
    _paper("VS2", "Causal Deep Learning", REASONING, ["Mihaela van der Schaar"]),
    _paper("VS3", "Synthetic Data Auditing", VISION, ["Nabeel Seedat", "Mihaela van der Schaar"]),
    _paper("SC1", "Schur Complements in Second-Order Optimizers", REASONING, ["Ada Lovelace"]),
    _paper("SC2", "Fast Schur Solvers", VISION, ["Alan Turing"]),
    _paper("VW1", "Learning van der Waals Forces", VISION, ["Grace Hopper"]),
    _paper("LS1", "Kernel Embeddings of Distributions", VISION, ["Le Song"]),
    _paper("AD1", "Submodular Data Selection", VISION, ["Abir De"]),
    _paper("JS1", "Sociology of Science", VISION, ["John Schaar"]),
    _paper("RE1", "Selective Classification", VISION, ["Ran El-Yaniv"]),
    *(_paper(f"RY{i}", f"Graph Pooling {i}", VISION, ["Ran Yan"]) for i in range(2)),
]
VDS = {"VS1", "VS2", "VS3"}


@pytest.fixture
def vds_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    db = indexed(tmp_path, VDS_PAPERS, "particles")
    yield db
    db.conn.close()


@pytest.mark.parametrize(
    "query",
    [
        "Mihaela van der Schaar",
        "mihaela van der schaar",
        "van der Schaar, Mihaela",
        "van der Schaar Mihaela",
        "Mihaela Schaar",
        "Schaar, Mihaela",
        "van der Schaar",
    ],
)
def test_a_name_with_particles_finds_the_person_in_either_order(vds_db: sqlite_utils.Database, query: str) -> None:
    response = search.search(vds_db, query)
    assert {r.paper["source_id"] for r in response.results} == VDS  # not John Schaar's
    assert response.person == "Mihaela van der Schaar"
    # not "those about *van der* first"
    assert starred_notes(response)[0] == "3 papers by *Mihaela van der Schaar*"
    assert response.corrected is None
    card = person_card(vds_db, query)  # `/icml author van der Schaar` alike
    assert card is not None
    assert (card.name, card.papers) == ("Mihaela van der Schaar", 3)


@pytest.mark.parametrize("query", ["Mihaela van der Schar", "van der Schar, Mihaela", "Mihela van der Schaar"])
def test_a_typo_in_a_name_with_particles_is_the_person_not_a_word(vds_db: sqlite_utils.Database, query: str) -> None:
    # Read as words, the surname was "corrected": "Showing results for *Mihaela van der Schur*".
    response = search.search(vds_db, query)
    assert response.corrected is None
    assert {r.paper["source_id"] for r in response.results} == VDS
    assert starred_notes(response)[0] == f"3 papers by *Mihaela van der Schaar* (you typed *{query}*)"


def test_a_typo_in_a_name_with_particles_prefers_the_person_with_those_particles(vds_db: sqlite_utils.Database) -> None:
    # Yanv is one letter from both Yan and Yaniv: the El typed says which (Ran Yan has more papers).
    response = search.search(vds_db, "Ran El-Yanv")
    assert (response.person, response.corrected, found(vds_db, "Ran El-Yanv")[:1]) == ("Ran El-Yaniv", None, ["RE1"])
    assert starred_notes(response)[0].startswith(
        "1 paper by *Ran El-Yaniv* (you typed *Ran El-Yanv*). Also named so: Ran Yan"
    )


def test_a_surname_with_particles_among_topic_words_names_the_person(vds_db: sqlite_utils.Database) -> None:
    response = search.search(vds_db, "van der Schaar synthetic data")
    assert response.person == "Mihaela van der Schaar"
    assert {r.paper["source_id"] for r in response.results[:2]} == {"VS1", "VS3"}
    assert starred_notes(response)[0] == "3 papers by *Mihaela van der Schaar*, those about *synthetic data* first"
    # Words papers write are still words
    assert found(vds_db, "van der Waals forces")[:1] == ["VW1"]


@pytest.mark.parametrize(("query", "person"), [("Le Song", "Le Song"), ("Abir De", "Abir De"), ("De, Abir", "Abir De")])
def test_particles_that_are_someones_name_stay_names(vds_db: sqlite_utils.Database, query: str, person: str) -> None:
    assert search.search(vds_db, query).person == person
