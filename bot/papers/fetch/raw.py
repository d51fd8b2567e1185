"""Files an admin downloaded by hand (the site's orals-posters pages and abstracts, OpenReview notes dumps), read
together into the same merged records `icml-bot fetch` writes: the offline way in, e.g. behind a firewall."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from bot.papers.fetch import merge, openreview, site
from bot.papers.fetch.record import Converted, Remark
from bot.papers.venues import CONFERENCES

SNIFF_BYTES = 4096
# Top-level shapes only (no `[` before the key), so that a list of papers with a `notes` field is not taken for one.
_SNIFF = (
    ("site", re.compile(rb'^\s*\{[^\[]*"results"\s*:\s*\[')),
    ("notes", re.compile(rb'^\s*\{[^\[]*"notes"\s*:\s*\[|^\s*\[\s*\{.*"content"\s*:\s*\{.*"venueid"', re.DOTALL)),
    ("abstracts", re.compile(rb'^\s*\{\s*"\d+"\s*:\s*"')),
)
_GROUP = re.compile(r"id=(?P<prefix>[^/&]+)/(?P<year>\d{4})/")


class Kind(StrEnum):
    """The shapes of raw downloads."""

    SITE = "site"  # {"count", "next", "previous", "results": [event rows]}
    ABSTRACTS = "abstracts"  # {"<event id>": "<abstract>"}
    NOTES = "notes"  # {"count", "notes": [notes]} or [notes]


@dataclass
class Bundle:
    """Everything read from the raw files of one command, before merging."""

    rows: list[Mapping[str, Any]] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    abstracts: dict[str, str] = field(default_factory=dict)
    notes: list[Any] = field(default_factory=list)
    site_files: list[Path] = field(default_factory=list)
    # ("row"/"note", id) → the file that held it
    files: dict[tuple[str, Any], str] = field(default_factory=dict)

    def add(self, kind: Kind, obj: Any, path: Path) -> None:
        """Take in one parsed file of the given kind."""
        if kind is Kind.SITE:
            rows = [r for r in (obj["results"] if isinstance(obj, dict) else obj) if isinstance(r, Mapping)]
            self.rows.extend(rows)
            self.files.update((site.row_key(r), path.name) for r in rows)
            if isinstance(obj, dict) and isinstance(obj.get("count"), int):
                self.counts.append(obj["count"])
            self.site_files.append(path)
        elif kind is Kind.ABSTRACTS:
            self.abstracts.update({str(k): v for k, v in obj.items() if isinstance(v, str)})
        else:
            notes = obj["notes"] if isinstance(obj, dict) else obj
            self.notes.extend(notes)
            self.files.update((openreview.note_key(n), path.name) for n in notes if isinstance(n, Mapping))


@dataclass
class Records:
    """What raw downloads read together make: each record with the files it came from, each remark with its file,
    and the problems of the bundle as a whole."""

    records: list[tuple[dict[str, Any], list[str]]] = field(default_factory=list)
    remarks: list[tuple[Remark, str | None]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def sniff(path: Path) -> Kind | None:
    """The kind of a raw download from its first bytes (cheap; the full parse confirms it)."""
    if path.suffix.lower() != ".json":
        return None
    try:
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return None
    return next((Kind(kind) for kind, pattern in _SNIFF if pattern.search(head)), None)


def kind_of(obj: Any) -> Kind | None:
    """The kind of a parsed JSON document, None for a plain list of papers."""
    if isinstance(obj, dict):
        if isinstance(obj.get("results"), list):
            return Kind.SITE
        if isinstance(obj.get("notes"), list):
            return Kind.NOTES
        if obj and all(str(k).isdigit() and isinstance(v, str) for k, v in obj.items()):
            return Kind.ABSTRACTS
        return None
    if isinstance(obj, list) and obj and isinstance(obj[0], dict):
        if isinstance(obj[0].get("content"), dict):
            return Kind.NOTES
        if "eventtype" in obj[0] or "virtualsite_url" in obj[0]:
            return Kind.SITE
    return None


def beside(path: Path) -> Path | None:
    """The abstracts file saved next to an orals-posters file (`icml-2026-abstracts.json`), if there is one."""
    if "orals-posters" not in path.name:
        return None
    candidate = path.with_name(path.name.replace("orals-posters", "abstracts"))
    return candidate if candidate.is_file() else None


def records(bundle: Bundle, fallback: tuple[str | None, int | None]) -> Records:
    """The merged records (corpus field names), each naming its files, and what a person should know about."""
    out = Records()
    site_papers = Converted()
    if bundle.rows:
        unique = {row["id"]: row for row in bundle.rows if row.get("id") is not None}
        expected = max(bundle.counts, default=None)
        if expected is not None and len(unique) < expected:
            out.problems.append(
                f"the site's list counts {expected} records but these files hold {len(unique)}: save every page "
                "(follow `next`) and give them all"
            )
        conference, year = _venue_of(unique.values(), fallback)
        if conference is None or year is None:
            out.problems.append("cannot tell the conference and year (no `sourceurl`; name the file like icml-2026-…)")
        else:
            host = next((c.host for c in CONFERENCES.values() if c.name.lower() == conference.lower()), None)
            base = f"https://{host}" if host else ""
            site_papers = site.site_papers(unique.values(), bundle.abstracts, conference, year, base)
    notes = openreview.notes_papers(bundle.notes)
    out.problems += site_papers.warnings + notes.warnings
    out.remarks += [(r, bundle.files.get(r.key)) for r in site_papers.remarks]
    out.remarks += [(r, bundle.files.get(r.key)) for r in notes.remarks]
    for paper in merge.merge(site_papers.papers, notes.papers).papers:
        files = [bundle.files[part] for part in paper.parts if part in bundle.files]
        out.records.append((paper.to_json(), list(dict.fromkeys(files))))
    return out


def _venue_of(
    rows: Iterable[Mapping[str, Any]], fallback: tuple[str | None, int | None]
) -> tuple[str | None, int | None]:
    """Conference and year from the rows' `sourceurl` (`…group?id=ICML.cc/2026/Conference`), else the file name."""
    for row in rows:
        m = _GROUP.search(str(row.get("sourceurl") or ""))
        if m:
            conference = next((c.name for c in CONFERENCES.values() if c.openreview == m["prefix"]), None)
            if conference:
                return conference, int(m["year"])
    return fallback
