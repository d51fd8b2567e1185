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
class Conference:
    """A conference series: its site, its OpenReview prefix, and its tracks (OpenReview group suffix → track)."""

    key: str
    name: str
    host: str
    openreview: str
    tracks: tuple[tuple[str, str], ...]


CONFERENCES: dict[str, Conference] = {
    c.key: c
    for c in (
        Conference(
            "icml", "ICML", "icml.cc", "ICML.cc", (("Conference", "main"), ("Position_Paper_Track", "position"))
        ),
        Conference(
            "neurips",
            "NeurIPS",
            "neurips.cc",
            "NeurIPS.cc",
            (("Conference", "main"), ("Datasets_and_Benchmarks_Track", "datasets")),
        ),
        Conference("iclr", "ICLR", "iclr.cc", "ICLR.cc", (("Conference", "main"),)),
    )
}
TRACKS = ("main", "position", "datasets", "workshop")
EXAMPLES = "icml2026, icml2025, icml2024, neurips2025, iclr2026 (or icml2026-position for one track)"

# The word OpenReview's `venue` ends with, e.g. "ICML 2024 Oral", "ICML 2025 spotlightposter", "ICML 2026 regular".
PRESENTATIONS: dict[str, Status] = {
    "oral": Status.ORAL,
    "spotlight": Status.SPOTLIGHT,
    "spotlightposter": Status.SPOTLIGHT,
    "poster": Status.POSTER,
    "regular": Status.POSTER,
}
# The words between the year and the presentation, e.g. "ICML 2025 Position Paper Track poster".
VENUE_TRACKS: dict[str, str] = {
    "": "main",
    "position paper track": "position",
    "datasets and benchmarks track": "datasets",
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
NOT_ACCEPTED_SUFFIXES = ("/Rejected_Submission", "/Withdrawn_Submission", "/Desk_Rejected_Submission")

_NAME = re.compile(r"(?P<conf>[a-z]+)[\s_-]?(?P<year>(?:19|20)\d\d)(?:[/:_-](?P<track>[a-z]+))?")
_VENUE_STRING = re.compile(r"(?P<conf>[A-Za-z]+)\s+(?P<year>(?:19|20)\d\d)\s+(?:(?P<track>.*?)\s+)?(?P<word>\S+)")


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
        return f"/static/virtual/data/{self.conference.key}-{self.year}-{what}.json"

    def groups(self) -> list[tuple[str, str]]:
        """(OpenReview venueid of accepted papers, track) for each track fetched."""
        prefix = f"{self.conference.openreview}/{self.year}"
        return [(f"{prefix}/{suffix}", track) for suffix, track in self.conference.tracks if self.wants(track)]

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
    track = m["track"]
    tracks = [t for _, t in conference.tracks]
    if track is not None and track not in tracks:
        plain = f"{conference.key}{m['year']}"
        named = ", ".join(f"{plain}-{t}" for t in tracks)
        raise VenueError(
            f"unknown venue {name!r}: {conference.name} has no track {track!r}; use {plain} for all tracks, or {named}"
        )
    return Venue(conference, int(m["year"]), track)


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
    if not m or m["conf"].lower() not in CONFERENCES:
        return None, None
    status = PRESENTATIONS.get(m["word"].lower())
    track = VENUE_TRACKS.get((m["track"] or "").lower())
    if status is None or track is None:
        return None, None
    return status, track


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


def group_track(group: str) -> str | None:
    """Track of an OpenReview group or venueid (`ICML.cc/2026/Position_Paper_Track` → position).

    None for papers that were not accepted (rejected, withdrawn, desk-rejected) or a group no table names.
    """
    if group.endswith(NOT_ACCEPTED_SUFFIXES):
        return None
    if "/Workshop" in group:
        return "workshop"
    parts = group.split("/")
    if len(parts) != 3:
        return None
    for conference in CONFERENCES.values():
        if parts[0] == conference.openreview:
            return dict(conference.tracks).get(parts[2])
    return None


def source_track(sourceurl: str | None) -> str | None:
    """Track of a site record from its `sourceurl` (`https://openreview.net/group?id=ICML.cc/2026/Conference`)."""
    if not sourceurl:
        return None
    ids = parse_qs(urlparse(sourceurl).query).get("id")
    return group_track(ids[0]) if ids else None


MAIN = "main"  # the track of papers whose source names none (the seeds, third-party lists)
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
    joined = re.sub(r"([a-z])\s+((?:19|20)\d\d)", r"\1\2", value.strip().lower())  # `ICML 2026` is one name
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
