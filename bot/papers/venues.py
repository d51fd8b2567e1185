"""Conference venues (ICML 2026, NeurIPS 2025, …): their sites, OpenReview groups, tracks, and status tables.

Venue names, OpenReview `venue` strings and site decisions change from year to year, so they are mapped by the
tables below, never guessed from a word found somewhere in the text: an unknown value maps to None and is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import parse_qs, urlparse


class VenueError(ValueError):
    """A venue name that is not `<conference><year>`; the message lists examples."""


class Status(StrEnum):
    """How a paper is presented; the values are what the index stores in `status`."""

    ORAL = "Oral"
    SPOTLIGHT = "Spotlight"
    POSTER = "Poster"


@dataclass(frozen=True)
class Track:
    """One track of a conference: the OpenReview venueids of its accepted papers, and how `venue` strings name it."""

    name: str  # main, position, datasets or workshop: the index's `track` column
    # (first year, venueid after `<prefix>/<year>/`), oldest first. Ending in `/`: a parent group whose children
    # each hold one part of the track (workshops: `ICML.cc/2025/Workshop/TAIG`), listed before their notes are asked.
    groups: tuple[tuple[int, str], ...]
    # The words of a `venue` string between the year and the presentation word
    phrases: tuple[str, ...] = ("",)
    # The status of a `venue` string that is the phrase alone, with no presentation word
    bare: Status | None = None
    # The conference site's JSON lists the track's papers (workshops: OpenReview only)
    on_site: bool = True

    def group(self, year: int) -> str | None:
        """The venueid suffix of the track's accepted papers that year; None before the track existed."""
        return next((suffix for since, suffix in reversed(self.groups) if year >= since), None)

    def holds(self, suffix: str) -> bool:
        """Whether a venueid suffix (any year's) is this track's."""
        return any(suffix == g or (g.endswith("/") and suffix.startswith(g)) for _, g in self.groups)


@dataclass(frozen=True)
class Conference:
    """A conference series: its site and the files it serves, its OpenReview prefix, and its tracks."""

    key: str
    name: str
    host: str
    openreview: str
    tracks: tuple[Track, ...]
    # what: orals-posters, abstracts
    site_file: str = "/static/virtual/data/{key}-{year}-{what}.json"

    def track(self, name: str) -> Track | None:
        """A track by its name."""
        return next((t for t in self.tracks if t.name == name), None)


MAIN_TRACK = Track("main", ((0, "Conference"),))
WORKSHOPS = Track(
    "workshop", ((0, "Workshop/"),), phrases=(), on_site=False
)  # a `venue` string names its workshop: see below
# Recorded from OpenReview API v2: venueids and `venue` strings of ICML 2023-2026, ICLR 2024-2026, NeurIPS 2023-2025.
CONFERENCES: dict[str, Conference] = {
    c.key: c
    for c in (
        Conference(
            "icml",
            "ICML",
            "icml.cc",
            "ICML.cc",
            (MAIN_TRACK, Track("position", ((2024, "Position_Paper_Track"),), ("position paper track",)), WORKSHOPS),
        ),
        Conference(
            "neurips",
            "NeurIPS",
            "neurips.cc",
            "NeurIPS.cc",
            (
                MAIN_TRACK,
                Track("position", ((2025, "Position_Paper_Track"),), ("position paper track",), bare=Status.POSTER),
                Track(
                    "datasets",
                    ((2021, "Track/Datasets_and_Benchmarks"), (2024, "Datasets_and_Benchmarks_Track")),
                    ("datasets and benchmarks track", "track datasets and benchmarks", "datasets and benchmarks"),
                ),
                WORKSHOPS,
            ),
        ),
        Conference("iclr", "ICLR", "iclr.cc", "ICLR.cc", (MAIN_TRACK, WORKSHOPS)),
    )
}
TRACKS = ("main", "position", "datasets", "workshop")
EXAMPLES = "icml2026, icml2025, icml2024, neurips2025, iclr2026 (or icml2026-position for one track)"

# The word OpenReview's `venue` ends with, e.g. "ICML 2024 Oral", "ICML 2025 spotlightposter", "ICML 2026 regular",
# "ICML 2023 OralPoster" (an oral that also had a poster).
PRESENTATIONS: dict[str, Status] = {
    "oral": Status.ORAL,
    "oralposter": Status.ORAL,
    "spotlight": Status.SPOTLIGHT,
    "spotlightposter": Status.SPOTLIGHT,
    "poster": Status.POSTER,
    "regular": Status.POSTER,
}
# The site's `decision` field.
DECISIONS: dict[str, Status] = {
    "accept (oral)": Status.ORAL,
    "accept (spotlight)": Status.SPOTLIGHT,
    "accept (spotlight poster)": Status.SPOTLIGHT,
    "accept (spotlightposter)": Status.SPOTLIGHT,
    "accept (poster)": Status.POSTER,
    "accept (regular)": Status.POSTER,
}
# How a workshop paper's `venue` string goes on after the conference and year
WORKSHOP_WORD = "workshop "
REJECTED_DECISIONS = frozenset({"reject", "rejected", "withdrawn", "desk reject", "desk rejected"})
NOT_ACCEPTED_SUFFIXES = ("/Rejected_Submission", "/Withdrawn_Submission", "/Desk_Rejected_Submission", "/Submission")

_NAME = re.compile(r"(?P<conf>[a-z]+)[\s_-]?(?P<year>(?:19|20)\d\d)(?:[/:_-](?P<track>[a-z]+))?")
_VENUE_STRING = re.compile(r"(?P<conf>[A-Za-z]+)\s+(?P<year>(?:19|20)\d\d)\s+(?P<rest>.+)")
_GROUP = re.compile(r"(?P<prefix>[^/]+)/(?P<year>(?:19|20)\d\d)/(?P<rest>.+)")


@dataclass(frozen=True)
class Venue:
    """One year of one conference, all tracks or one: where its lists are and which OpenReview groups hold it."""

    conference: Conference
    year: int
    track: str | None = None

    @property
    def name(self) -> str:
        """The short name people type, e.g. `icml2026` (`icml2026-position` for one track)."""
        return f"{self.conference.key}{self.year}" + (f"-{self.track}" if self.track else "")

    @property
    def key(self) -> str:
        """The value of the index's `venue` column: conference and year, whatever the track."""
        return f"{self.conference.key}{self.year}"

    @property
    def site_url(self) -> str:
        """The conference site that serves the virtual-site JSON."""
        return f"https://{self.conference.host}"

    def site_file(self, what: str) -> str:
        """Path of a virtual-site data file, e.g. `/static/virtual/data/icml-2026-orals-posters.json`."""
        return self.conference.site_file.format(key=self.conference.key, year=self.year, what=what)

    def groups(self) -> list[tuple[str, str]]:
        """(OpenReview venueid of accepted papers, track) for each track that existed that year; a venueid ending in
        `/` is a parent whose children are the groups (one per workshop)."""
        prefix = f"{self.conference.openreview}/{self.year}"
        return [
            (f"{prefix}/{suffix}", track.name)
            for track in self.conference.tracks
            if (suffix := track.group(self.year)) and self.wants(track.name)
        ]

    def tracks(self, on_site: bool = False) -> list[str]:
        """The names of the tracks `groups()` asks for; `on_site`: only those the conference site lists too."""
        return [
            t.name
            for t in self.conference.tracks
            if t.group(self.year) and self.wants(t.name) and (t.on_site or not on_site)
        ]

    def wants(self, track: str) -> bool:
        """Whether papers of this track belong to the venue as named (all tracks unless one was named)."""
        return self.track is None or self.track == track


def parse_venue(name: str) -> Venue:
    """`icml2026`, `ICML 2026`, `neurips2025`, `icml2026-position` → Venue; VenueError listing examples otherwise."""
    m = _NAME.fullmatch(name.strip().lower())
    conference = CONFERENCES.get(m["conf"]) if m else None
    if not m or conference is None:
        known = ", ".join(sorted(CONFERENCES))
        raise VenueError(f"unknown venue {name!r}: use a conference ({known}) and a year, e.g. {EXAMPLES}")
    track, year = m["track"], int(m["year"])
    tracks = [t.name for t in conference.tracks if t.group(year)]
    if track is not None and track not in tracks:
        plain = f"{conference.key}{year}"
        named = ", ".join(f"{plain}-{t}" for t in tracks)
        raise VenueError(
            f"unknown venue {name!r}: {conference.name} {year} has no track {track!r} to fetch; use {plain} for all "
            f"tracks, or {named}"
        )
    return Venue(conference, year, track)


def venue_key(conference: str | None, year: int | None) -> str | None:
    """The `venue` column value for a conference name and year (`ICML`, 2026 → `icml2026`), None if either lacks."""
    if not conference or not year:
        return None
    return f"{re.sub(r'[^a-z0-9]', '', conference.lower())}{year}"


def venue_string(value: str) -> tuple[Status | None, str | None]:
    """Status and track of an OpenReview `venue` string such as `ICML 2025 Position Paper Track poster`.

    (None, None) for a string the tables do not know.
    """
    m = _VENUE_STRING.fullmatch(" ".join(value.split()))
    conference = CONFERENCES.get(m["conf"].lower()) if m else None
    if m is None or conference is None:
        return None, None
    rest = m["rest"].lower()
    # `ICML 2026 Workshop EXAIT poster`: the workshop's name, then maybe a word
    if rest.startswith(WORKSHOP_WORD):
        return PRESENTATIONS.get(rest.rsplit(" ", 1)[-1]), WORKSHOPS.name
    for track in conference.tracks:
        for phrase in track.phrases:
            if rest == phrase and track.bare is not None:
                return track.bare, track.name
            word = rest if not phrase else rest.removeprefix(phrase + " ") if rest.startswith(phrase + " ") else None
            if word is not None and word in PRESENTATIONS:
                return PRESENTATIONS[word], track.name
    return None, None


def decision_status(decision: str | None) -> Status | None:
    """Status from the site's `decision` (`Accept (spotlight)` → Spotlight); None for one the table lacks."""
    return DECISIONS.get(" ".join((decision or "").lower().split()))


def status_of(value: str | None) -> Status | None:
    """Status from any of the forms sources use: `Oral`, `Accept (oral)`, `ICML 2025 spotlightposter`."""
    if not value:
        return None
    word = value.strip().lower()
    if word in PRESENTATIONS:
        return PRESENTATIONS[word]
    return decision_status(value) or venue_string(value)[0]


def decision_rejected(decision: str | None) -> bool:
    """Whether the site's `decision` says the paper was not accepted (`Reject`, `Withdrawn`)."""
    return " ".join((decision or "").lower().split()) in REJECTED_DECISIONS


def parse_group(group: str) -> tuple[Conference, int, str] | None:
    """Conference, year and track of an OpenReview venueid (`NeurIPS.cc/2023/Track/Datasets_and_Benchmarks`).

    None for papers that were not accepted (rejected, withdrawn, desk-rejected, still submitted) or a group no table
    names.
    """
    m = _GROUP.fullmatch(group.strip())
    if m is None or group.endswith(NOT_ACCEPTED_SUFFIXES):
        return None
    conference = next((c for c in CONFERENCES.values() if c.openreview == m["prefix"]), None)
    track = next((t for t in conference.tracks if t.holds(m["rest"])), None) if conference else None
    return (conference, int(m["year"]), track.name) if conference and track else None


def not_accepted(group: str) -> bool:
    """Whether a venueid is where a conference keeps papers it did not accept (`…/Rejected_Submission`)."""
    return group.endswith(NOT_ACCEPTED_SUFFIXES)


def group_track(group: str) -> str | None:
    """Track of an OpenReview group or venueid (`ICML.cc/2026/Position_Paper_Track` → position); None as parse_group."""
    parsed = parse_group(group)
    return parsed[2] if parsed else None


def source_track(sourceurl: str | None) -> str | None:
    """Track of a site record from its `sourceurl` (`https://openreview.net/group?id=ICML.cc/2026/Conference`)."""
    group = source_group(sourceurl)
    return group_track(group) if group else None


def source_group(sourceurl: str | None) -> str | None:
    """The OpenReview group a site record's `sourceurl` names (`…/group?id=ICML.cc/2026/Conference`), if any."""
    if not sourceurl:
        return None
    ids = parse_qs(urlparse(sourceurl).query).get("id")
    return ids[0] if ids and "openreview.net" in urlparse(sourceurl).netloc else None


MAIN = "main"  # the track of papers whose source names none (the seeds, third-party lists)
POSITION = "position"
# "Position: Stop Chasing the C-index ..."
_POSITION_TITLE = re.compile(r"position(?: paper)?\s*:", re.IGNORECASE)


def track_from_title(conference: str | None, year: int | None, track: str | None, title: str) -> str | None:
    """The track a paper is in: as its source says, except that a title opening "Position:" is the position track's
    when the source says none or main (the conference site's lists label every paper main) and the conference had
    a position track that year."""
    if (track or MAIN).lower() != MAIN or not _POSITION_TITLE.match(title) or not conference or not year:
        return track
    series = CONFERENCES.get(conference.lower())
    position = series.track(POSITION) if series else None
    return POSITION if position and position.group(year) else track


DEFAULT_VENUE = "icml2026"  # what an automatic scope searches when the index has it
_FILTER = re.compile(r"(?P<conf>[a-z]+)[\s_-]?(?P<year>(?:19|20)\d\d)?(?:[/:_-](?P<track>[a-z]+))?")


@dataclass(frozen=True)
class Scope:
    """The venues a search covers unless the query names its own (ICML_BOT_VENUES).

    `venues` holds (venue key, track or None for all tracks) pairs; neither venues nor everything: automatic, i.e.
    when the index has ICML 2026, all but the papers of other known conferences and years; otherwise everything.
    """

    venues: tuple[tuple[str, str | None], ...] = ()
    everything: bool = False

    def describe(self) -> str:
        """The setting as a person reads it, e.g. `ICML 2026, ICML 2024 position` or `automatic`."""
        if self.everything:
            return "all venues"
        if not self.venues:
            return "automatic"
        return ", ".join(venue_label(key, track) for key, track in self.venues)


def parse_scope(value: str) -> Scope:
    """`icml2026`, `icml2026, icml2024-position`, `all`, or empty (automatic) → Scope; VenueError otherwise."""
    # `ICML 2026` is one name
    joined = re.sub(r"([a-z])\s+((?:19|20)\d\d)", r"\1\2", value.strip().lower())
    names = [n for n in re.split(r"[\s,;]+", joined) if n]
    if not names or names == ["auto"]:
        return Scope()
    if "all" in names:
        return Scope(everything=True)
    out: list[tuple[str, str | None]] = []
    for name in names:
        wanted = venue_filter(name)
        if wanted is None or wanted[1] is None:
            raise VenueError(
                f"{name!r} is not a venue: use a conference and year, e.g. {EXAMPLES}; tracks: {', '.join(TRACKS)}"
            )
        out.append((f"{wanted[0]}{wanted[1]}", wanted[2]))
    return Scope(tuple(dict.fromkeys(out)))


def venue_label(key: str | None, track: str | None = None) -> str:
    """How a venue is shown: `icml2026` → `ICML 2026`, with the track when it is not the main one."""
    m = _NAME.fullmatch(key or "")
    if not m:
        label = key or "no venue"
    else:
        conference = CONFERENCES.get(m["conf"])
        label = f"{conference.name if conference else m['conf'].upper()} {m['year']}"
    return f"{label} {track}" if track and track != MAIN else label


def venue_filter(value: str) -> tuple[str, int | None, str | None] | None:
    """A query's `venue:` value → (conference key, year or None for every year, track or None); None if malformed.

    `icml2024`, `ICML-2024`, `icml` (every year), `icml2026-position`.
    """
    m = _FILTER.fullmatch(value.strip().lower())
    if not m or (m["track"] and m["track"] not in TRACKS):
        return None
    return m["conf"], int(m["year"]) if m["year"] else None, m["track"]
