"""Site rows → papers, notes → papers, and the merge: one record per paper, never two papers in one."""

from __future__ import annotations

from typing import Any

from bot.papers.fetch import merge, openreview, site
from bot.papers.fetch.record import Fetched
from bot.papers.venues import Status
from tests.support.conference_fakes import make_conference


def paper(title: str, forum: str | None, origin: str, track: str = "main", **extra: Any) -> Fetched:
    return Fetched(title=title, conference="ICML", year=2026, track=track, forum=forum, origins=[origin], **extra)


def test_an_oral_row_and_its_poster_row_are_one_paper_with_both_sessions() -> None:
    conference = make_conference(posters=3, orals=1, spotlights=0, position=0, site_only=0, openreview_only=0)
    converted = site.site_papers(conference.rows, conference.abstracts, "ICML", 2026, "https://icml.cc")
    papers = converted.papers
    assert converted.lines("rows") == []
    assert [(p.site_id, p.status) for p in papers] == [
        (100000, Status.ORAL),
        (100001, Status.POSTER),
        (100002, Status.POSTER),
    ]
    oral = papers[0]
    assert [(s.kind, s.name, s.url) for s in oral.schedule] == [
        ("Poster", "Poster Session 1", "https://icml.cc/virtual/2026/poster/100000"),
        ("Oral", "Oral 1A", "https://icml.cc/virtual/2026/oral/200000"),
    ]
    assert (oral.forum, oral.url) == ("Fo0000000x", "https://openreview.net/forum?id=Fo0000000x")


def test_linked_rows_naming_different_forums_stay_two_papers() -> None:
    conference = make_conference(posters=2, orals=0, spotlights=0, position=0, site_only=0, openreview_only=0)
    first, second = conference.rows
    first["related_events_ids"] = [second["id"]]  # a bad link on the site's side
    converted = site.site_papers(conference.rows, conference.abstracts, "ICML", 2026, "https://icml.cc")
    assert [p.forum for p in converted.papers] == ["Fo0000000x", "Fo0000001x"]
    assert converted.lines("rows") == ["site rows 100000 and 100001 are linked but name different papers; kept apart"]


def test_unknown_decisions_are_reported_not_guessed() -> None:
    conference = make_conference(posters=2, orals=0, spotlights=0, position=0, site_only=0, openreview_only=0)
    conference.rows[0]["decision"] = "Accept (highlight)"
    converted = site.site_papers(conference.rows, conference.abstracts, "ICML", 2026, "https://icml.cc")
    assert [p.status for p in converted.papers] == [None, Status.POSTER]
    assert converted.lines("rows") == [
        "1 papers kept, status left empty: decision 'Accept (highlight)' is not in the status table"
    ]


def test_html_abstracts_become_text_and_literal_tokens_survive() -> None:
    html = "<p>We add a <strong>&lt;BOS&gt;</strong> token &amp; <BOS> stays.</p><p>Second<br>line <a href='x'>here</a>"
    assert site.html_to_text(html) == "We add a <BOS> token & <BOS> stays.\n\nSecond\nline here"


def test_notes_that_are_not_accepted_papers_are_left_out_and_counted() -> None:
    conference = make_conference(
        posters=2, orals=0, spotlights=1, position=1, site_only=0, openreview_only=0, rejected=2
    )
    converted = openreview.notes_papers(conference.notes)
    assert [(p.forum, p.status, p.track) for p in converted.papers] == [
        ("Fo0000000x", Status.SPOTLIGHT, "main"),
        ("Fo0000001x", Status.POSTER, "main"),
        ("Fo0000002x", Status.POSTER, "position"),
    ]
    assert converted.lines("notes") == ["2 notes left out: not accepted (Rejected_Submission)"]


def test_forum_ids_match_first_and_the_sources_split_the_fields() -> None:
    from_site = paper("A Paper", "abc123", "site", status=Status.ORAL, abstract="site text", room="Hall A")
    from_or = paper(
        "A Paper", "abc123", "openreview", status=Status.SPOTLIGHT, abstract="author text", pdf_url="https://x/p.pdf"
    )
    merged = merge.merge([from_site], [from_or])
    (one,) = merged.papers
    assert (merged.by_forum, merged.by_title) == (1, 0)
    assert (one.status, one.abstract, one.room, one.pdf_url) == (
        Status.ORAL,
        "author text",
        "Hall A",
        "https://x/p.pdf",
    )
    assert one.origins == ["site", "openreview"]


def test_a_title_matches_only_when_unique_on_both_sides_and_in_the_same_track() -> None:
    site_papers = [
        paper("Unique Title", None, "site"),
        paper("Shared Title", None, "site"),
        # Two site papers with one title: neither matches by title
        paper("Shared Title", None, "site"),
        paper("Position Title", None, "site", track="position"),
        paper("Forum Elsewhere", "zzz999", "site"),  # a forum OpenReview lacks names another paper
    ]
    or_papers = [
        paper("Unique  title!", "u1", "openreview"),
        paper("Shared Title", "s1", "openreview"),
        paper("Position Title", "p1", "openreview"),  # main track: not the position paper
        paper("Forum Elsewhere", "f1", "openreview"),
    ]
    merged = merge.merge(site_papers, or_papers)
    assert (merged.by_forum, merged.by_title, merged.site_only, merged.openreview_only) == (0, 1, 4, 3)
    assert [(p.title, p.forum, p.origins) for p in merged.papers] == [
        ("Unique  title!", "u1", ["site", "openreview"]),
        ("Shared Title", None, ["site"]),
        ("Shared Title", None, ["site"]),
        ("Position Title", None, ["site"]),
        ("Forum Elsewhere", "zzz999", ["site"]),
        ("Shared Title", "s1", ["openreview"]),
        ("Position Title", "p1", ["openreview"]),
        ("Forum Elsewhere", "f1", ["openreview"]),
    ]


def test_institutions_follow_their_authors_by_name() -> None:
    from_site = paper("T", "f", "site", authors=["Ada Lovelace", "Kurt Gödel"], institutions=["KAIST", "MIT"])
    same = merge.combine(from_site, paper("T", "f", "openreview", authors=["Ada  Lovelace", "Kurt Godel"]))
    more = merge.combine(from_site, paper("T", "f", "openreview", authors=["Ada Lovelace", "Kurt Gödel", "E. Noether"]))
    assert (same.institutions, more.institutions) == (["KAIST", "MIT"], ["KAIST", "MIT", ""])


def test_institutions_are_never_given_to_other_authors_of_the_same_count() -> None:
    from_site = paper("T", "f", "site", authors=["Ada Lovelace", "Kurt Gödel"], institutions=["KAIST", "MIT"])
    swapped = merge.combine(from_site, paper("T", "f", "openreview", authors=["Kurt Gödel", "Ada Lovelace"]))
    renamed = merge.combine(from_site, paper("T", "f", "openreview", authors=["Emmy Noether", "Ada Lovelace"]))
    others = merge.combine(from_site, paper("T", "f", "openreview", authors=["Emmy Noether", "Alan Turing"]))
    assert swapped.institutions == ["MIT", "KAIST"]
    assert renamed.institutions == ["", "KAIST"]
    assert others.institutions == []


def test_a_sourceurl_that_is_not_text_is_no_sourceurl_never_a_traceback() -> None:
    conference = make_conference(posters=3, orals=0, spotlights=0, position=0, site_only=0, openreview_only=0)
    conference.rows[0]["sourceurl"], conference.rows[1]["sourceurl"] = 5, ["https://openreview.net/group?id=X"]
    converted = site.site_papers(conference.rows, conference.abstracts, "ICML", 2026, "https://icml.cc")
    assert [p.forum for p in converted.papers] == ["Fo0000002x"]
    assert converted.lines("rows") == ["2 rows left out: no `sourceurl` (not from an OpenReview group of the venue)"]
