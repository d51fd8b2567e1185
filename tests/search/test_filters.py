"""Filters and exclusions: author:, status:, has:, title:, -word, and questions that ask for orals or code."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from bot import search
from bot.papers import index
from tests.search.results import ids, source_ids
from tests.search.results import paper as _paper
from tests.support.marks import starred_notes
from tests.support.seed_ids import DEFENSIVE_KV, KEYSTONE, RACO, VEGAS
from tests.support.venue_index import index_of


def test_exclusions_and_title_field(seed_db: sqlite_utils.Database) -> None:
    assert DEFENSIVE_KV in ids(search.search(seed_db, "kv cache"))
    assert DEFENSIVE_KV not in ids(search.search(seed_db, "kv cache -eviction"))
    assert ids(search.search(seed_db, "kv cache -eviction")) == [VEGAS]
    # "critical" is in other abstracts too
    assert ids(search.search(seed_db, "title:critical")) == [DEFENSIVE_KV]
    assert ids(search.search(seed_db, "critical")) == [DEFENSIVE_KV, VEGAS, KEYSTONE, RACO]


def test_filters_author_status_and_code(tiny_db: sqlite_utils.Database) -> None:
    assert sorted(source_ids(search.search(tiny_db, "attention author:turing")), key=str) == ["A1", "C3"]
    assert source_ids(search.search(tiny_db, 'attention author:"Grace Hopper"')) == ["B2"]
    assert sorted(source_ids(search.search(tiny_db, "attention -author:turing")), key=str) == ["B2"]
    assert source_ids(search.search(tiny_db, "attention status:oral")) == ["A1"]
    assert sorted(source_ids(search.search(tiny_db, "attention -status:poster")), key=str) == ["A1", "C3"]
    assert sorted(source_ids(search.search(tiny_db, "attention has:code")), key=str) == ["A1", "C3"]
    assert source_ids(search.search(tiny_db, "status:spotlight")) == ["C3"]
    assert sorted(source_ids(search.search(tiny_db, "has:code")), key=str) == ["A1", "C3"]
    only = search.search(tiny_db, "author:dijkstra")
    assert source_ids(only) == ["D4"]
    assert only.results[0].matched == ["author:dijkstra"]
    oral = search.search(tiny_db, "sparse status:oral")
    assert "status:Oral" in oral.results[0].matched


def test_a_question_naming_orals_spotlights_or_code_filters_by_them(tiny_db: sqlite_utils.Database) -> None:
    """ "any oral papers on attention?" is `attention status:oral`: the words ask for orals, no paper need hold them."""
    asked = {
        "any oral papers on attention?": "attention status:oral",
        "spotlight papers about attention": "attention status:spotlight",
        "papers with code on attention": "attention has:code",
        "attention papers with code": "attention has:code",
        "is there code for attention papers?": "attention has:code",
        "Alan Turing's papers": "author:turing",
        "orals on attention": "attention status:oral",  # orals are papers wanted, as "papers" is
        "spotlights about attention": "attention status:spotlight",
        "oral presentations on attention": "attention status:oral",
        "orals": "status:oral",  # a status alone asks for those papers
        "spotlight": "status:spotlight",
        # ...and beside a name filters theirs
        "Alan Turing oral papers": "author:turing status:oral",
    }
    for question, filtered in asked.items():
        expected = sorted(source_ids(search.search(tiny_db, filtered)), key=str)
        assert sorted(source_ids(search.search(tiny_db, question)), key=str) == expected, question
        assert 0 < len(expected) < 4, filtered  # the filter keeps some papers and leaves out others


def test_a_filter_word_is_never_corrected_into_another_word(tmp_path: Path) -> None:
    papers = [
        _paper("T1", "Tumour Detection in Histology", "We detect tumours in histology slides with a small network."),
        _paper("O1", "Odal Groups and Tumour Growth", "The odal group acts on tumour growth models."),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    # No abstract says "oral": it was corrected to "odal"
    response = search.search(db, "oral tumour detection")
    assert response.corrected is None
    assert source_ids(response)[0] == "T1"
    db.conn.close()


def test_a_filter_that_excludes_everything_suggests_the_query_without_it(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, "kv cache status:oral")  # the seed file has no statuses
    assert not response.results
    assert response.suggestions == ["kv cache"]
    assert starred_notes(response) == [
        "This index has no oral/spotlight/poster status for its papers, so status: finds nothing here."
    ]
