"""Venue names, OpenReview groups and the status tables: what `icml-bot fetch VENUE` derives from a name."""

from __future__ import annotations

import pytest

from bot.papers import venues
from bot.papers.venues import Status, VenueError, parse_venue
from tests.support.recorded import ACCEPTED_VENUEIDS, NOT_ACCEPTED_VENUEIDS, VENUE_STRINGS, WORKSHOP_VENUEIDS


@pytest.mark.parametrize(
    ("name", "site", "groups"),
    [
        (
            "icml2026",
            "https://icml.cc",
            [
                ("ICML.cc/2026/Conference", "main"),
                ("ICML.cc/2026/Position_Paper_Track", "position"),
                ("ICML.cc/2026/Workshop/", "workshop"),
            ],
        ),
        (
            "ICML 2024",
            "https://icml.cc",
            [
                ("ICML.cc/2024/Conference", "main"),
                ("ICML.cc/2024/Position_Paper_Track", "position"),
                ("ICML.cc/2024/Workshop/", "workshop"),
            ],
        ),
        (
            "neurips2025",
            "https://neurips.cc",
            [
                ("NeurIPS.cc/2025/Conference", "main"),
                ("NeurIPS.cc/2025/Position_Paper_Track", "position"),
                ("NeurIPS.cc/2025/Datasets_and_Benchmarks_Track", "datasets"),
                ("NeurIPS.cc/2025/Workshop/", "workshop"),
            ],
        ),
        (
            "neurips2023",
            "https://neurips.cc",
            [
                ("NeurIPS.cc/2023/Conference", "main"),
                ("NeurIPS.cc/2023/Track/Datasets_and_Benchmarks", "datasets"),
                ("NeurIPS.cc/2023/Workshop/", "workshop"),
            ],
        ),
        ("iclr2026", "https://iclr.cc", [("ICLR.cc/2026/Conference", "main"), ("ICLR.cc/2026/Workshop/", "workshop")]),
        ("icml2025-workshop", "https://icml.cc", [("ICML.cc/2025/Workshop/", "workshop")]),
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
        # A workshop paper: the workshop's name, then a presentation word if the workshop gave one.
        ("ICML 2026 Workshop EXAIT poster", (Status.POSTER, "workshop")),
        ("ICML 2025 Workshop TAIG Oral", (Status.ORAL, "workshop")),
        ("ICML 2025 Workshop TAIG", (None, "workshop")),
        # Not in the tables: never guessed.
        ("ICML 2026 Conference Submission", (None, None)),
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


@pytest.mark.parametrize(("venueid", "venue_track"), sorted(ACCEPTED_VENUEIDS.items()))
def test_the_venue_table_asks_for_every_recorded_venueid(venueid: str, venue_track: tuple[str, str]) -> None:
    name, track = venue_track
    assert (venueid, track) in parse_venue(name).groups()
    assert venues.group_track(venueid) == track


@pytest.mark.parametrize("name", sorted({name for name, _ in ACCEPTED_VENUEIDS.values()}))
def test_the_venue_table_asks_for_no_venueid_that_was_not_recorded(name: str) -> None:
    venue = parse_venue(name)
    # The parent listed for its workshops
    workshops = f"{venue.conference.openreview}/{venue.year}/Workshop/"
    assert {group for group, _ in venue.groups()} == {
        venueid for venueid, (venue, _) in ACCEPTED_VENUEIDS.items() if venue == name
    } | {workshops}


@pytest.mark.parametrize("venueid", WORKSHOP_VENUEIDS)
def test_every_recorded_workshop_is_a_child_of_the_group_its_venue_lists(venueid: str) -> None:
    conference, year, _ = venueid.split("/", 2)
    venue = parse_venue(f"{conference.removesuffix('.cc').lower()}{year}")
    assert (venueid.rsplit("/", 1)[0] + "/", "workshop") in venue.groups()


@pytest.mark.parametrize("venueid", [*WORKSHOP_VENUEIDS, *NOT_ACCEPTED_VENUEIDS])
def test_workshops_are_recognised_and_papers_not_accepted_are_not_papers(venueid: str) -> None:
    assert venues.group_track(venueid) == ("workshop" if venueid in WORKSHOP_VENUEIDS else None)


@pytest.mark.parametrize(("venue", "expected"), sorted(VENUE_STRINGS.items()))
def test_every_recorded_venue_string_has_its_status_and_track(venue: str, expected: tuple[Status, str]) -> None:
    assert venues.venue_string(venue) == expected


def test_a_track_a_conference_did_not_have_that_year_is_one_line() -> None:
    with pytest.raises(VenueError) as err:
        parse_venue("neurips2024-position")
    assert str(err.value) == (
        "unknown venue 'neurips2024-position': NeurIPS 2024 has no track 'position' to fetch; use neurips2024 for all "
        "tracks, or neurips2024-main, neurips2024-datasets, neurips2024-workshop"
    )
