"""A paper as the index gives it out: one decoded row of `papers`, what search, blocks, digests and exports read."""

from __future__ import annotations

from typing import TypedDict


class PaperRow(TypedDict):
    """One row of `papers` as index.decode returns it: JSON columns as lists; columns added after 0.1.0 may be None."""

    id: str
    seq: int
    name: str | None  # the short name the paper introduces (``Vegas``), when it has one
    title: str
    # True when the title was derived from the abstract (seed abstracts have none)
    title_derived: bool
    headline: str
    abstract: str
    authors: list[str]
    url: str | None
    pdf_url: str | None
    code_url: str | None
    dataset_url: str | None  # a Datasets & Benchmarks paper's data; None in an index built before
    status: str | None  # Oral, Spotlight, Poster, …
    session: str | None
    area: str | None  # the ICML topic area
    keywords: list[str]
    conference: str | None
    year: int | None
    track: str | None  # main, position, datasets, workshop; None for the seeds
    sources: list[str]  # the files or fetches the paper came from
    source_id: str | None
    venue: str | None  # e.g. icml2026
    institutions: list[str] | None  # aligned with authors
    site_url: str | None
    tldr: str | None
    bibtex: str | None
    license: str | None
    schedule: list[dict[str, str | None]] | None  # sessions with times and rooms
    room: str | None
    poster_position: str | None
    # (start, end, "b" or "i"); None in an index built before
    abstract_emphasis: list[tuple[int, int, str]] | None


def shown_title(paper: PaperRow) -> str:
    """The title people see: an official title as it was published; for a paper whose title was derived from its
    abstract (the seeds), its name before it ("Name: derived title"), as people call such papers."""
    title = " ".join((paper.get("title") or "").split())
    name = " ".join((paper.get("name") or "").split())
    if not title:
        return name or "Untitled"
    if paper.get("title_derived") and name and not title.lower().startswith(name.lower()):
        return f"{name}: {title}"
    return title
