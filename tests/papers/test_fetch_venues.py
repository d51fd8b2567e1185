"""Venue names, OpenReview groups and the status tables: what `icml-bot fetch VENUE` derives from a name."""

from __future__ import annotations

import pytest

from bot.papers import venues
from bot.papers.venues import Status, VenueError, parse_venue


@pytest.mark.parametrize(
    ("name", "site", "groups"),
    [
        (
            "icml2026",
            "https://icml.cc",
            [("ICML.cc/2026/Conference", "main"), ("ICML.cc/2026/Position_Paper_Track", "position")],
        ),
        (
            "ICML 2024",
            "https://icml.cc",
            [("ICML.cc/2024/Conference", "main"), ("ICML.cc/2024/Position_Paper_Track", "position")],
        ),
        (
            "neurips2025",
            "https://neurips.cc",
            [("NeurIPS.cc/2025/Conference", "main"), ("NeurIPS.cc/2025/Datasets_and_Benchmarks_Track", "datasets")],
        ),
        ("iclr2026", "https://iclr.cc", [("ICLR.cc/2026/Conference", "main")]),
        ("icml2026-position", "https://icml.cc", [("ICML.cc/2026/Position_Paper_Track", "position")]),
    ],
)
def test_a_venue_name_gives_its_site_and_openreview_groups(name: str, site: str, groups: list[tuple[str, str]]) -> None:
    venue = parse_venue(name)
    assert venue.site_url == site
    assert venue.groups() == groups
    assert (
        venue.site_file("orals-posters")
        == f"/static/virtual/data/{venue.conference.key}-{venue.year}-orals-posters.json"
    )


def test_venue_names_and_keys() -> None:
    assert parse_venue("icml2026").name == "icml2026"
    assert parse_venue("icml2026-position").name == "icml2026-position"
    assert parse_venue("icml2026-position").key == "icml2026"
    assert venues.venue_key("NEURIPS", 2025) == "neurips2025"
    assert venues.venue_key("ICML", None) is None


@pytest.mark.parametrize("name", ["icm2026", "icml", "2026", "icml26", "aaai2026", "icml2026-workshops", ""])
def test_a_bad_venue_name_is_one_line_with_examples(name: str) -> None:
    with pytest.raises(VenueError) as err:
        parse_venue(name)
    message = str(err.value)
    assert "\n" not in message
    assert "icml2026" in message
    assert repr(name) in message


@pytest.mark.parametrize(
    ("venue", "expected"),
    [
        ("ICML 2024 Oral", (Status.ORAL, "main")),
        ("ICML 2024 Spotlight", (Status.SPOTLIGHT, "main")),
        ("ICML 2024 Poster", (Status.POSTER, "main")),
        ("ICML 2025 oral", (Status.ORAL, "main")),
        ("ICML 2025 spotlightposter", (Status.SPOTLIGHT, "main")),
        ("ICML 2025 poster", (Status.POSTER, "main")),
        ("ICML 2026 spotlight", (Status.SPOTLIGHT, "main")),
        ("ICML 2026 regular", (Status.POSTER, "main")),
        ("ICML 2025 Position Paper Track poster", (Status.POSTER, "position")),
        ("ICML 2025 Position Paper Track oral", (Status.ORAL, "position")),
        ("NeurIPS 2025 Datasets and Benchmarks Track spotlight", (Status.SPOTLIGHT, "datasets")),
        ("ICLR 2026 Oral", (Status.ORAL, "main")),
        # Not in the tables: never guessed.
        ("ICML 2026 Conference Submission", (None, None)),
        ("ICML 2026 Workshop EXAIT poster", (None, None)),
        ("Submitted to ICML 2026", (None, None)),
        ("ICML 2026 withdrawn poster", (None, None)),
    ],
)
def test_openreview_venue_strings_map_by_table(venue: str, expected: tuple[Status | None, str | None]) -> None:
    assert venues.venue_string(venue) == expected


@pytest.mark.parametrize(
    ("decision", "status"),
    [
        ("Accept (regular)", Status.POSTER),
        ("Accept (spotlight)", Status.SPOTLIGHT),
        ("Accept (oral)", Status.ORAL),
        ("Accept (poster)", Status.POSTER),
        ("accept  (Spotlight Poster)", Status.SPOTLIGHT),
        ("Reject", None),
        ("", None),
        (None, None),
    ],
)
def test_site_decisions_map_by_table(decision: str | None, status: Status | None) -> None:
    assert venues.decision_status(decision) is status


@pytest.mark.parametrize(
    ("group", "track"),
    [
        ("ICML.cc/2026/Conference", "main"),
        ("ICML.cc/2026/Position_Paper_Track", "position"),
        ("ICML.cc/2026/Workshop/EXAIT", "workshop"),
        ("ICML.cc/2026/Conference/Rejected_Submission", None),
        ("ICML.cc/2026/Conference/Withdrawn_Submission", None),
        ("ICML.cc/2026/Conference/Desk_Rejected_Submission", None),
        ("ICML.cc/2026/Position_Paper_Track/Rejected_Submission", None),
        ("Other.org/2026/Conference", None),
    ],
)
def test_accepted_papers_are_exactly_the_groups(group: str, track: str | None) -> None:
    assert venues.group_track(group) == track
    assert venues.source_track(f"https://openreview.net/group?id={group}") == track
