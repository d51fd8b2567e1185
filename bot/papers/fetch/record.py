"""One paper as a fetcher delivers it, and the JSON Lines record it becomes for the corpus reader."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.papers.venues import Status

SITE = "site"
OPENREVIEW = "openreview"


@dataclass
class Slot:
    """One presentation of a paper: a poster session or an oral, with its time and room."""

    name: str
    kind: str
    start: str | None = None
    end: str | None = None
    room: str | None = None
    url: str | None = None

    def to_json(self) -> dict[str, str | None]:
        """The `schedule` entry the index stores."""
        return {
            "name": self.name,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "room": self.room,
            "url": self.url,
        }


@dataclass
class Fetched:
    """A paper from the site, from OpenReview, or merged from both (see merge.py)."""

    title: str
    conference: str
    year: int
    track: str
    abstract: str = ""
    authors: list[str] = field(default_factory=list)
    institutions: list[str] = field(default_factory=list)
    forum: str | None = None  # OpenReview forum id: the id the JSONL lists use too
    site_id: int | None = None  # the site's event id of the poster row
    status: Status | None = None
    schedule: list[Slot] = field(default_factory=list)
    room: str | None = None
    poster_position: str | None = None
    area: str | None = None
    keywords: list[str] = field(default_factory=list)
    url: str | None = None
    pdf_url: str | None = None
    code_url: str | None = None
    dataset_url: str | None = None
    site_url: str | None = None
    tldr: str | None = None
    bibtex: str | None = None
    license: str | None = None
    origins: list[str] = field(default_factory=list)
    # ("row"/"note", id) of what it was made from
    parts: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def venue(self) -> str:
        """Conference and year as the index's `venue` column holds them, e.g. `icml2026`."""
        return f"{self.conference.lower()}{self.year}"

    @property
    def source_id(self) -> str | None:
        """The identity the index merges on: the OpenReview forum id, else the site's id as the lists spell it."""
        if self.forum:
            return self.forum
        return f"{self.venue}-virtual-{self.site_id}" if self.site_id is not None else None

    def to_json(self) -> dict[str, Any]:
        """The JSON Lines record, in the field names corpus.ALIASES reads."""
        return {
            "id": self.source_id,
            "title": self.title,
            "abstract": self.abstract,
            "authors": self.authors,
            "institutions": self.institutions,
            "url": self.url or self.site_url,
            "pdf_url": self.pdf_url,
            "code_url": self.code_url,
            "dataset_url": self.dataset_url,
            "site_url": self.site_url,
            "status": str(self.status) if self.status else None,
            "session": "; ".join(slot.name for slot in self.schedule) or None,
            "schedule": [slot.to_json() for slot in self.schedule],
            "room": self.room,
            "poster_position": self.poster_position,
            "area": self.area,
            "keywords": self.keywords,
            "conference": self.conference,
            "year": self.year,
            "track": self.track,
            "tldr": self.tldr,
            "bibtex": self.bibtex,
            "license": self.license,
            "origins": self.origins,
        }


@dataclass(frozen=True)
class Remark:
    """What a person should hear about one site row or note: left out (not an accepted paper of the venue's tracks)
    or kept with a gap; `key` names the row or note, so that raw downloads can name the file it came from."""

    reason: str
    key: tuple[str, Any]
    left_out: bool = True


@dataclass
class Converted:
    """Papers made from a source's rows or notes, with what was left out and why."""

    papers: list[Fetched] = field(default_factory=list)
    remarks: list[Remark] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # about the list as a whole, not one row

    def lines(self, what: str) -> list[str]:
        """The warnings, then one line per reason with its count (`what`: rows or notes)."""
        counts = Counter((r.left_out, r.reason) for r in self.remarks)
        return self.warnings + [
            f"{n} {what} left out: {reason}" if left_out else f"{n} papers kept, {reason}"
            for (left_out, reason), n in sorted(counts.items())
        ]

    def tracks(self) -> dict[str, int]:
        """Papers per track, in the order they first arrived."""
        return dict(Counter(p.track for p in self.papers))
