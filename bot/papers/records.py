"""What sources become: a Paper (cleaned, with its identities), a Skip or Notice, a Raw record before cleaning, and
make_paper, the one place raw fields are cleaned into a Paper."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from bot import text
from bot.papers import field_values, venues
from bot.papers.limits import LINK_FIELDS


class SourceError(ValueError):
    """A source cannot be read; the message names the file and the line (or byte offset)."""

    def __init__(self, path: Path | str, where: str, message: str) -> None:
        super().__init__(f"{path}:{where}: {message}" if where else f"{path}: {message}")


@dataclass
class Paper:
    """One paper as the index stores it: display text already cleaned, name and title always set."""

    title: str
    abstract: str
    name: str | None = None
    headline: str = ""
    title_derived: bool = False
    authors: list[str] = field(default_factory=list)
    url: str | None = None
    pdf_url: str | None = None
    code_url: str | None = None
    dataset_url: str | None = None  # a Datasets & Benchmarks paper's data (its code is code_url)
    status: str | None = None
    session: str | None = None
    area: str | None = None
    keywords: list[str] = field(default_factory=list)
    conference: str | None = None
    year: int | None = None
    track: str | None = None
    venue: str | None = None  # conference and year, e.g. icml2026: what a venue scope filters on
    institutions: list[str] = field(default_factory=list)  # aligned with authors; "" where unknown
    site_url: str | None = None
    tldr: str | None = None
    bibtex: str | None = None
    license: str | None = None
    # Sessions: name, kind, start, end, room, url
    schedule: list[dict[str, str | None]] = field(default_factory=list)
    room: str | None = None
    poster_position: str | None = None
    # bold/italic spans (text.cleanup)
    abstract_emphasis: list[tuple[int, int, str]] = field(default_factory=list)
    source: str = ""
    # The other files of raw downloads its record was merged from
    more_sources: tuple[str, ...] = ()
    source_id: str | None = None
    line: int = 0
    # An official source (`icml-bot fetch`, raw downloads; Raw.official): its fields win
    preferred: bool = False

    # identity_keys(), computed where the text is cleaned
    keys: list[str] = field(default_factory=list)


def identity_keys(paper: Paper) -> list[str]:
    """Stable identities of a record, strongest first: the same paper loaded again maps to the same row.

    Title and abstract keys hold the conference and track, so a workshop paper never merges with the main-track
    paper of the same title (or abstract). ICML main-track keys are as they were before, so ids and indexes built
    before stay the same. A title with no word in it (emoji, bidi or zero-width characters only) is no identity, and
    an abstract with no word is known by its whole text and title: unrelated records never share a key."""
    keys = []
    if paper.source_id:
        keys.append(f"id:{paper.source_id}")
    where = _where(paper)
    folded = text.normalize_title(paper.title)
    if not paper.title_derived and folded:
        keys.append(f"title:{paper.year or ''}:{where}{folded}")
    words = text.tokenize(paper.abstract)[:80]
    basis = " ".join(words) if words else f"no words:{paper.title}\n{paper.abstract}"
    keys.append(f"abs:{where}{hashlib.sha1(basis.encode()).hexdigest()[:16]}")
    return keys


def _where(paper: Paper) -> str:
    """`workshop:`, `neurips:`, `neurips/datasets:` in keys; empty for ICML's (or an unknown venue's) main track."""
    conference = (paper.conference or "").lower()
    track = (paper.track or "").lower()
    parts = [conference] if conference and conference != "icml" else []
    if track and track != venues.MAIN:
        parts.append(track)
    return "/".join(parts) + ":" if parts else ""


@dataclass
class Skip:
    """A record that was read but not indexed, with the reason a person can act on."""

    source: str
    line: int
    reason: str


class Notice(Skip):
    """Something a person should know about records that were indexed (a status left empty): said, not counted as
    skipped."""


Record = Paper | Skip


@dataclass
class Raw:
    """A record as read, before cleaning: cheap to produce in the reading process and to send to a worker."""

    fields: dict[str, Any]
    source: str
    line: int
    conference: str | None
    year: int | None
    more_sources: tuple[str, ...] = ()
    # Why fields were cut to bot.papers.limits (said as notes, the record still indexed)
    cut: tuple[str, ...] = ()
    # From an official source (raw downloads of the site or OpenReview, or what `icml-bot fetch` wrote and indexes):
    # its fields win in a merge. Set by whoever reads the file, never by a field in it, so no list can claim it.
    official: bool = False


def make_paper(
    fields: Mapping[str, Any],
    source: str,
    line: int,
    conference: str | None = None,
    year: int | None = None,
    more_sources: tuple[str, ...] = (),
    official: bool = False,
) -> Paper:
    """One Paper from raw fields: clean text, find code links, and derive a name and title where a source has none.

    Links are read as written, so one holding control or bidi characters is refused (bot.text.urls.is_plain_link),
    not quietly mended; all other text loses those characters. `official`: read from an official source (see Raw)."""
    links = {name: field_values.first_url(fields.get(name)) for name in LINK_FIELDS}
    code_url = links["code_url"] or text.code_url(str(fields["abstract"]))
    fields = {name: field_values.without_controls(value) for name, value in fields.items()}
    year_value = str(fields.get("year") or "").strip()
    # Sources check it: SourceError
    if year_value.isascii() and year_value.isdigit() and len(year_value) == 4:
        year = int(year_value)
    if fields.get("conference"):
        conference = str(fields["conference"]).strip().upper()
    paper = Paper(
        **_cleaned_text(fields, code_url),
        **_listing(fields),
        url=links["url"],
        pdf_url=links["pdf_url"],
        code_url=code_url,
        dataset_url=links["dataset_url"],
        site_url=links["site_url"],
        conference=conference,
        year=year,
        venue=venues.venue_key(conference, year),
        source=source,
        more_sources=more_sources,
        line=line,
        preferred=official,
    )
    # By the track the source gives: ids of papers indexed before stay
    paper.keys = identity_keys(paper)
    paper.track = venues.track_from_title(conference, year, paper.track, paper.title)
    return paper


class _Text(TypedDict):
    """The Paper fields made from text (typed, so Paper(**...) is checked)."""

    title: str
    abstract: str
    abstract_emphasis: list[tuple[int, int, str]]
    name: str | None
    headline: str
    title_derived: bool
    tldr: str | None


class _Listing(TypedDict):
    """The Paper fields a listing gives as they are, tidied (typed, so Paper(**...) is checked)."""

    authors: list[str]
    status: str | None
    session: str | None
    area: str | None
    keywords: list[str]
    track: str | None
    institutions: list[str]
    bibtex: str | None
    license: str | None
    schedule: list[dict[str, str | None]]
    room: str | None
    poster_position: str | None
    source_id: str | None


def _cleaned_text(fields: Mapping[str, Any], code_url: str | None) -> _Text:
    """Title (derived when the source has none), abstract and its emphasis, name, headline, TL;DR: cleaned text."""
    raw_abstract = str(fields["abstract"])
    abstract, emphasis = text.to_marked_text(raw_abstract)
    raw_title = str(fields.get("title") or "").strip()
    title = text.to_plain_text(raw_title) if raw_title else ""
    name = (text.name_from_title(raw_title) if title else None) or text.derive_name(raw_abstract, code_url)
    tldr = field_values.optional_text(fields.get("tldr"))
    return _Text(
        title=title or text.derive_title(raw_abstract, name),
        abstract=abstract,
        abstract_emphasis=emphasis,
        name=name,
        headline=text.headline(raw_abstract),
        title_derived=not title,
        tldr=text.to_plain_text(tldr) if tldr else None,
    )


def _listing(fields: Mapping[str, Any]) -> _Listing:
    """Authors, status, session, area, keywords, track, institutions, BibTeX, license, schedule, room, poster
    position and the source's id, as a listing gives them (tidied)."""

    def stripped(name: str) -> str | None:
        return str(fields[name]).strip() if fields.get(name) else None

    optional = field_values.optional_text
    return _Listing(
        authors=field_values.names_or_words(fields.get("authors")),
        status=field_values.status(fields.get("status")),
        session=stripped("session"),
        area=stripped("area"),
        keywords=field_values.names_or_words(fields.get("keywords"), split="keywords"),
        track=stripped("track"),
        institutions=field_values.aligned_list(fields.get("institutions")),
        bibtex=optional(fields.get("bibtex")),
        license=optional(fields.get("license")),
        schedule=field_values.schedule(fields.get("schedule")),
        room=optional(fields.get("room")),
        poster_position=optional(fields.get("poster_position")),
        source_id=stripped("source_id"),
    )
