"""Exports of a user's saved papers or a channel's list as BibTeX, CSV or Markdown, ready to send as a file."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from bot.state import State
from bot.team import bibtex, reading_list, saves
from bot.team.links import web_url
from bot.team.listing import PaperLookup


class Format(StrEnum):
    """The export formats, by the word users type after `/icml export`."""

    BIBTEX = "bibtex"
    CSV = "csv"
    MARKDOWN = "md"

    @property
    def extension(self) -> str:
        """The file name's ending."""
        return {Format.BIBTEX: "bib", Format.CSV: "csv", Format.MARKDOWN: "md"}[self]

    @property
    def mimetype(self) -> str:
        """The file's media type."""
        return {Format.BIBTEX: "application/x-bibtex", Format.CSV: "text/csv", Format.MARKDOWN: "text/markdown"}[self]

    @classmethod
    def named(cls, word: str) -> Format | None:
        """The format a user means by `word` (bibtex, bib, csv, md, markdown; any case), None for anything else."""
        aliases = {"bib": cls.BIBTEX, "markdown": cls.MARKDOWN}
        word = word.strip().lower()
        return aliases.get(word) or next((f for f in cls if f.value == word), None)


@dataclass(frozen=True)
class Row:
    """One exported paper and what the list knows about it (when it was saved, or who added it and when)."""

    paper: Mapping[str, Any]
    saved_at: float | None = None
    added_by: str | None = None
    added_at: float | None = None


@dataclass(frozen=True)
class Export:
    """A finished export: the file's text and name, how many papers it holds, and the ids left out (gone from the
    index)."""

    format: Format
    content: str
    filename: str
    count: int
    missing: tuple[str, ...] = ()


CSV_COLUMNS = ("id", "title", "authors", "year", "venue", "status", "url", "pdf_url", "code_url", "dataset_url")
AUTHOR_SEPARATOR = "; "  # names hold commas ("Smith, Jr."), never semicolons
_TRACKS = {"position": "Position Paper Track", "datasets": "Datasets and Benchmarks Track", "workshop": "Workshop"}
# a spreadsheet runs a cell that starts so as a formula
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# ( ) ! # only matter next to these, or at a line's start
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&$])")


def when(at: float) -> str:
    """A stored time as ISO 8601 in UTC (the export cannot know each reader's time zone)."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def venue(paper: Mapping[str, Any]) -> str:
    """Where a paper appears, in words: `ICML 2026`, `ICML 2026 Position Paper Track`, `ICML 2026 Workshop`."""
    words = [str(paper.get(k) or "").strip() for k in ("conference", "year")]
    track = _TRACKS.get(str(paper.get("track") or ""))
    return " ".join(w for w in [*words, track or ""] if w)


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def to_csv(rows: Sequence[Row], extra: Sequence[str] = ()) -> str:
    """CSV with a header row; `extra` adds list columns (saved_at, or added_by and added_at); formulas are defused."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([*CSV_COLUMNS, *extra])
    for row in rows:
        p = row.paper
        fields: dict[str, object] = {
            "id": p.get("id"),
            "title": p.get("title"),
            "authors": AUTHOR_SEPARATOR.join(str(a) for a in p.get("authors") or []),
            "year": p.get("year"),
            "venue": venue(p),
            "status": p.get("status"),
            "url": web_url(p.get("url")),
            "pdf_url": web_url(p.get("pdf_url")),
            "code_url": web_url(p.get("code_url")),
            "dataset_url": web_url(p.get("dataset_url")),
            "saved_at": when(row.saved_at) if row.saved_at is not None else None,
            "added_by": row.added_by,
            "added_at": when(row.added_at) if row.added_at is not None else None,
        }
        writer.writerow([_cell(fields[c]) for c in (*CSV_COLUMNS, *extra)])
    return out.getvalue()


def markdown_text(text: str) -> str:
    """Text shown literally in Markdown: every character that could start markup is backslash-escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _link(label: str, url: str | None) -> str:
    return f"[{label}](<{url}>)" if url else markdown_text(label)


def to_markdown(rows: Sequence[Row], heading: str) -> str:
    """A Markdown list: each title linked, then authors, venue and status, PDF and code links, and who added it."""
    lines = [f"# {markdown_text(heading)}", ""]
    for row in rows:
        p = row.paper
        title = markdown_text(str(p.get("title") or p.get("id") or ""))
        url = web_url(p.get("url")) or web_url(p.get("pdf_url"))
        parts = [f"**[{title}](<{url}>)**" if url else f"**{title}**"]
        authors = ", ".join(str(a) for a in p.get("authors") or [])
        if authors:
            parts.append(markdown_text(authors))
        where = " ".join(w for w in (venue(p), str(p.get("status") or "")) if w)
        if where:
            parts.append(markdown_text(where))
        for label, key in (("PDF", "pdf_url"), ("Code", "code_url"), ("Data", "dataset_url")):
            link = web_url(p.get(key))
            if link and link != url:
                parts.append(_link(label, link))
        if row.added_by is not None and row.added_at is not None:
            parts.append(f"added by {markdown_text(row.added_by)} on {when(row.added_at)[:10]}")
        elif row.saved_at is not None:
            parts.append(f"saved {when(row.saved_at)[:10]}")
        lines.append("- " + " · ".join(parts))
    if not rows:
        lines.append("_No papers yet._")
    return "\n".join(lines) + "\n"


def render(kind: Format, rows: Sequence[Row], name: str, heading: str, extra: Sequence[str] = ()) -> Export:
    """One export of these rows: `name` is the file name without its extension, `heading` the Markdown title."""
    if kind is Format.BIBTEX:
        content = bibtex.bibliography([row.paper for row in rows])
    elif kind is Format.CSV:
        content = to_csv(rows, extra)
    else:
        content = to_markdown(rows, heading)
    return Export(kind, content, f"{name}.{kind.extension}", len(rows))


def saved_papers(state: State, papers: PaperLookup, team: str, user: str, kind: Format) -> Export:
    """All of a user's saved papers, newest first; saves whose paper left the index are left out and named."""
    page = saves.saved(state, papers, team, user, limit=None)
    rows = [Row(item.paper, saved_at=item.saved_at) for item in page.items if item.paper is not None]
    done = render(kind, rows, "icml-saved-papers", f"Saved papers ({len(rows)})", extra=("saved_at",))
    return Export(done.format, done.content, done.filename, done.count, page.missing)


def channel_list(state: State, papers: PaperLookup, team: str, channel: str, kind: Format) -> Export:
    """A channel's whole reading list, newest first; papers that left the index are left out and named."""
    page = reading_list.listed(state, papers, team, channel, limit=None)
    rows = [
        Row(item.paper, added_by=item.added_by, added_at=item.added_at) for item in page.items if item.paper is not None
    ]
    done = render(kind, rows, "icml-reading-list", f"Reading list ({len(rows)})", extra=("added_by", "added_at"))
    return Export(done.format, done.content, done.filename, done.count, page.missing)
