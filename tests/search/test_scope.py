"""Venue scope: the default (ICML_BOT_VENUES), and venue:, year:, track: in queries, on an index with two venues."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bot.papers import index
from bot.papers.venues import Scope, parse_scope
from bot.search import query as ql
from bot.search import search
from tests.support.marks import starred_notes
from tests.support.venue_index import build_venue_index, index_of


@pytest.fixture(scope="module")
def venue_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_venue_index(tmp_path_factory.mktemp("venues"))


@pytest.fixture
def db(venue_index_path: Path) -> Iterator[sqlite_utils.Database]:
    db = index.connect(venue_index_path, readonly=True)
    yield db
    db.conn.close()


AUTO = Scope()  # ICML_BOT_VENUES unset, as the app passes it


def venues_of(db: sqlite_utils.Database, query: str, scope: Scope = AUTO, limit: int = 10) -> list[str]:
    return [f"{r.paper['venue']}/{r.paper['track'] or 'main'}" for r in search(db, query, limit, scope=scope).results]


def test_kv_cache_over_two_icml_years_searches_icml_2026_by_default(db: sqlite_utils.Database) -> None:
    # The ICML 2024 titles say "KV cache" three times each: over both venues they rank first (the case).
    assert venues_of(db, "kv cache venue:all")[0] == "icml2024/main"
    default = search(db, "kv cache", limit=10, scope=AUTO)
    assert default.results, "the seeds hold KV cache papers"
    assert {r.paper["venue"] for r in default.results} == {"icml2026"}
    assert default.results[0].paper["source_id"] not in {"kv2024a", "kv2024b", "kv2024c"}
    assert default.venues == 1  # one venue in scope: results need not name theirs
    # The seeds (no track) count as ICML 2026 main, next to the position and workshop papers of ICML 2026.
    assert {"icml2026/main", "icml2026/position", "icml2026/workshop"} <= set(venues_of(db, "kv cache", limit=30))


def test_venue_year_and_track_filters(db: sqlite_utils.Database) -> None:
    assert set(venues_of(db, "kv cache venue:icml2024")) == {"icml2024/main"}
    assert len(venues_of(db, "kv cache venue:icml2024")) == 3
    assert set(venues_of(db, "kv cache year:2024")) == {"icml2024/main"}
    assert venues_of(db, "kv cache track:position") == ["icml2026/position"]
    assert venues_of(db, "kv cache track:workshop") == ["icml2026/workshop"]
    assert venues_of(db, "kv cache venue:icml2026-position") == ["icml2026/position"]
    assert set(venues_of(db, "kv cache venue:icml", limit=40)) == {
        "icml2024/main",
        "icml2026/main",
        "icml2026/position",
        "icml2026/workshop",
    }
    both = search(db, "kv cache venue:all", limit=5)
    assert both.venues == 2
    # Filters alone list the venue's papers.
    listed = search(db, "venue:icml2024", limit=10).results
    assert {r.paper["source_id"] for r in listed} == {"kv2024a", "kv2024b", "kv2024c"}


def test_a_question_naming_a_venue_or_year_searches_it(db: sqlite_utils.Database) -> None:
    """ "any ICML 2024 papers on kv cache?" is `kv cache venue:icml year:2024`, not a search for the words icml and
    2024; an index without the venue says what it has."""
    asked = search(db, "any ICML 2024 papers on kv cache?", limit=10, scope=AUTO)
    assert [r.paper["source_id"] for r in asked.results] == [
        r.paper["source_id"] for r in search(db, "kv cache venue:icml year:2024", limit=10, scope=AUTO).results
    ]
    assert set(venues_of(db, "any ICML 2024 papers on kv cache?")) == {"icml2024/main"}
    assert set(venues_of(db, "2026 work on kv cache", limit=30)) == set(venues_of(db, "kv cache year:2026", limit=30))
    assert set(venues_of(db, "kv cache papers from ICML 2024")) == {"icml2024/main"}
    listed = search(db, "ICML 2024 papers", limit=10, scope=AUTO).results
    assert {r.paper["source_id"] for r in listed} == {"kv2024a", "kv2024b", "kv2024c"}
    missing = search(db, "NeurIPS papers about kv cache", scope=AUTO)
    assert missing.results == []
    assert "no papers for venue:neurips" in starred_notes(missing)[0]


def test_unknown_venue_names_what_the_index_has(db: sqlite_utils.Database) -> None:
    response = search(db, "kv cache venue:neurips2025", scope=AUTO)
    assert response.results == []
    assert starred_notes(response) == [
        "This index has no papers for venue:neurips2025; it has ICML 2026 (21 papers: 19 main, 1 position, "
        "1 workshop); ICML 2024 (3 papers). An admin can load them with `icml-bot fetch neurips2025`."
    ]
    odd = search(db, "kv cache venue:xyz")
    assert odd.results == []
    assert starred_notes(odd)[0].startswith("This index has no papers for venue:xyz; it has ICML 2026")
    assert starred_notes(search(db, "kv cache year:2019"))[0].startswith(
        "No papers in this index are in year:2019; it has"
    )
    assert "year:19 is not a year" in starred_notes(search(db, "kv cache year:19"))[0]


def test_configured_scope(db: sqlite_utils.Database) -> None:
    assert set(venues_of(db, "kv cache", parse_scope("icml2024"))) == {"icml2024/main"}
    assert set(venues_of(db, "kv cache", parse_scope("icml2026-position"))) == {"icml2026/position"}
    assert venues_of(db, "kv cache", parse_scope("all"))[0] == "icml2024/main"
    # The query's own venue: wins over the setting.
    assert set(venues_of(db, "kv cache venue:icml2026", parse_scope("icml2024"))) >= {"icml2026/main"}
    missing = search(db, "kv cache", scope=parse_scope("neurips2025"))
    assert missing.results == []
    assert starred_notes(missing)[0].startswith(
        "ICML_BOT_VENUES names NeurIPS 2025, but the index has ICML 2026 (21 papers"
    )
    # Nothing in scope matches: the answer says that other venues were not searched.
    none = search(db, '"KV Cache Eviction with KV Cache Budgets"', scope=AUTO)
    assert none.results == []
    assert "Searched the default venues only; add venue:all to search every venue." in starred_notes(none)


def test_without_a_scope_search_covers_every_venue(db: sqlite_utils.Database) -> None:
    # Callers that know nothing of venues (benchmarks, scripts) get every paper, as before venues existed.
    assert search(db, "kv cache", limit=1).results[0].paper["venue"] == "icml2024"
    assert set(venues_of(db, "kv cache venue:icml2024", Scope(everything=True))) == {"icml2024/main"}


def test_a_one_venue_index_is_not_filtered(seed_db: sqlite_utils.Database) -> None:
    plain = search(seed_db, "kv cache", limit=10, scope=AUTO)
    assert plain.venues == 1
    assert plain.results
    assert [r.paper["id"] for r in search(seed_db, "kv cache", limit=10, scope=parse_scope("icml2026")).results] == [
        r.paper["id"] for r in plain.results
    ]


def test_parse_venue_fields() -> None:
    parsed = ql.parse('kv cache venue:ICML2024 year:2024 track:position conf:"neurips 2025"')
    assert [t.text for t in parsed.terms] == ["kv", "cache"]
    assert (parsed.venues, parsed.years, parsed.tracks) == (("icml2024", "neurips 2025"), (2024,), ("position",))
    bad = ql.parse("year:20x -venue:icml2024 track:poster diffusion")
    assert [t.text for t in bad.terms] == ["diffusion"]
    assert bad.notes == [
        "year:20x is not a year; use e.g. year:2024",
        "-venue: is not supported; name the venues to search instead, e.g. venue:icml2026",
        "track:poster is not a track; use track:main, track:position, track:datasets, track:workshop",
    ]


def test_papers_like_a_named_paper_stay_in_the_venues_searched(db: sqlite_utils.Database) -> None:
    # DefensiveKV's closest papers are the ICML 2024 KV cache ones: by default only ICML 2026 papers are listed.
    everywhere = venues_of(db, "papers like DefensiveKV venue:all", limit=20)
    assert "icml2024/main" in everywhere
    by_default = search(db, "papers like DefensiveKV", limit=20, scope=AUTO)
    assert starred_notes(by_default)[0].startswith("Papers like *DefensiveKV")
    assert by_default.results
    assert {r.paper["venue"] for r in by_default.results} == {"icml2026"}
    assert by_default.total == len(by_default.results)


def test_a_list_that_labels_every_paper_main_still_has_its_position_papers(tmp_path: Path) -> None:
    # The conference site's list says `main` for all 5,863 ICML 2026 papers, 176 of them titled "Position: ...":
    # track:position found nothing. A title opening "Position:" is the position track's at a venue that has one.
    main = [
        _listed("m1", 2026, "Position: Benchmarks for KV Cache Compression Are Broken"),
        _listed("m2", 2026, "position paper: KV Cache Research Should Report Memory"),
        # A word, not the prefix
        _listed("m3", 2026, "KV Cache Compression by Positional Importance"),
        _listed("m4", 2024, "Position: KV Caches in 2024"),  # ICML 2024 had a position track too
    ]
    # none at ICLR
    iclr = {**_listed("i1", 2026, "Position: KV Cache Eviction Is Solved"), "conference": "ICLR"}
    db = index.connect(index_of(tmp_path, [*main, iclr]), readonly=True)
    try:
        assert sorted(venues_of(db, "kv cache track:position venue:all")) == [
            "icml2024/position",
            "icml2026/position",
            "icml2026/position",
        ]
        assert sorted(venues_of(db, "kv cache track:main venue:all")) == ["iclr2026/main", "icml2026/main"]
        listed = search(db, "track:position venue:all", limit=10).results
        assert {r.paper["source_id"] for r in listed} == {"m1", "m2", "m4"}
    finally:
        db.conn.close()


def _listed(pid: str, year: int, title: str) -> dict[str, object]:
    """A paper as the conference site lists it: every track `main`."""
    abstract = f"We study kv cache compression for serving language models. {title} argues for a way to do it."
    return {"id": pid, "conference": "ICML", "year": year, "track": "main", "title": title, "abstract": abstract}
