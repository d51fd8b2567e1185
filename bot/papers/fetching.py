"""`icml-bot fetch`: both official sources for each venue, merged, written as JSON Lines, indexed in one load.

Each source fails on its own (one line naming the URL and what to do); a source whose later page fails keeps the
pages that arrived and says which page failed. What did arrive is indexed in one transaction, so readers never see
half a load and nothing already indexed is lost when a fetch fails. Pages already downloaded stay in the cache until
the list they belong to is indexed whole, so a fetch that stopped half way resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bot.papers import index
from bot.papers.fetch import merge, openreview, site
from bot.papers.fetch.http import FetchError, JsonClient, PageCache
from bot.papers.fetch.openreview import Credentials
from bot.papers.fetch.record import Converted, Fetched
from bot.papers.venues import Venue

Progress = Callable[[str, int, int], None]
SITE, OPENREVIEW = "site", "OpenReview"


@dataclass
class Settings:
    """Where to fetch from and where to keep what arrived; the CLI builds it from Config and its flags."""

    cache_dir: Path
    site_url: str | None = None  # None: each venue's own site (https://icml.cc, …)
    openreview_url: str = openreview.DEFAULT_URL
    credentials: Credentials | None = None
    # Which credentials are not set
    missing: tuple[str, ...] = ("OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD")
    client: JsonClient | None = None  # None: a JsonClient with the default timeouts and retries
    workers: int | None = None


@dataclass
class SourceReport:
    """What one source delivered for one venue, or why it delivered nothing."""

    venue: str
    source: str
    url: str
    papers: int = 0
    arrived: int = 0  # rows or notes as they arrived, before orals were joined to their posters
    expected: int | None = None  # what the source said it holds (`count`)
    pages: int = 0
    cached_pages: int = 0
    skipped: str | None = None
    error: str | None = None
    partial: str | None = None  # why the pages after those that arrived are missing
    tracks: dict[str, int] = field(default_factory=dict)  # papers per track
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """One line for the summary."""
        head = f"{self.venue} {self.source}"
        if self.skipped:
            return f"{head}: skipped: {self.skipped}"
        if self.error:
            return f"{head}: failed: {self.error}"
        count = f" of {self.expected} counted" if self.expected is not None else ""
        cache = f", {self.cached_pages} from the cache" if self.cached_pages else ""
        tracks = ", ".join(f"{track} {n}" for track, n in self.tracks.items())
        partial = f"; partial: kept the {self.pages} pages that arrived, then {self.partial}" if self.partial else ""
        return (
            f"{head}: {self.papers} papers from {self.arrived} records{count} "
            f"({self.pages} pages{cache}, {self.seconds:.1f} s); by track: {tracks or 'none'}{partial}"
        )

    def finish(self, got: site.SiteResult | openreview.NotesResult, converted: Converted, venue: Venue) -> None:
        """Take in what arrived and the papers made of it."""
        self.papers, self.expected = len(converted.papers), got.count
        self.pages, self.cached_pages, self.partial = got.pages, got.cached, got.failed
        self.tracks = dict.fromkeys(venue.tracks(on_site=self.source == SITE), 0) | converted.tracks()
        self.warnings = got.warnings + converted.lines("rows" if self.source == SITE else "notes")


@dataclass
class VenueReport:
    """The merged list of one venue."""

    venue: str
    papers: int = 0
    with_abstract: int = 0
    both: int = 0
    site_only: int = 0
    openreview_only: int = 0
    file: str | None = None

    def line(self) -> str:
        """One line for the summary."""
        where = f" → {self.file}" if self.file else ""
        return (
            f"{self.venue}: {self.papers} papers ({self.both} in both sources, {self.site_only} only on the site, "
            f"{self.openreview_only} only on OpenReview; {self.papers - self.with_abstract} without an abstract){where}"
        )


@dataclass
class FetchReport:
    """What a fetch did: per source, per venue, and the index load (None when nothing usable arrived)."""

    sources: list[SourceReport] = field(default_factory=list)
    venues: list[VenueReport] = field(default_factory=list)
    index: index.Report | None = None

    @property
    def usable(self) -> int:
        """Papers that can be indexed (a paper needs an abstract)."""
        return sum(v.with_abstract for v in self.venues)

    @property
    def failed(self) -> list[SourceReport]:
        """Sources that failed or stopped part way (not those skipped on purpose)."""
        return [s for s in self.sources if s.error or s.partial]

    def nothing_usable(self) -> str:
        """The one line that says why nothing could be indexed."""
        why = "; ".join(
            s.line()
            if s.error or s.skipped
            else f"{s.venue} {s.source}: {s.papers} papers, none with an abstract"
            + "".join(f" ({w})" for w in s.warnings[:1])
            for s in self.sources
        )
        return f"nothing usable arrived, nothing was indexed: {why}"

    def lines(self) -> list[str]:
        """The summary for a person: each source, its warnings, each venue, then the index load."""
        out: list[str] = []
        for source in self.sources:
            out.append(source.line())
            out.extend(f"  warning: {w}" for w in source.warnings)
        out.extend(v.line() for v in self.venues)
        if self.index is not None:
            r = self.index
            out.append(
                f"Indexed {r.papers} papers in {r.seconds:.1f} s: {r.added} added, {r.merged} merged, "
                f"{r.updated} updated, {r.unchanged} unchanged, {len(r.skipped)} skipped."
            )
            for reason, count in sorted(r.skip_reasons().items()):
                out.append(f"  skipped {count}: {reason}")
            for reason, count in sorted(r.notice_reasons().items()):
                out.append(f"  note {count}: {reason}")
        return out

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON (`icml-bot fetch --json`)."""
        loaded = None
        if self.index is not None:
            loaded = {k: v for k, v in asdict(self.index).items() if k not in ("skipped", "notices")}
            loaded["skipped"] = dict(self.index.skip_reasons())
            loaded["notices"] = dict(self.index.notice_reasons())
        return {
            "sources": [asdict(s) for s in self.sources],
            "venues": [asdict(v) for v in self.venues],
            "index": loaded,
        }


def fetch_venues(
    db_path: Path, venues: Sequence[Venue], settings: Settings, progress: Progress | None = None
) -> FetchReport:
    """Fetch every venue from both sources, merge, write `<venue>.fetched.jsonl` and index them in one load.

    A venue that only one source delivered is written as `<venue>.site.jsonl` (or `.openreview.jsonl`): loading it
    fills in and updates, but never replaces what an earlier fetch from both sources brought. The index is opened
    only when something usable arrived, so a failed first fetch leaves no empty index behind.
    """
    report = FetchReport()
    client = settings.client or JsonClient()
    files: list[Path] = []
    finished: list[PageCache] = []
    for venue in venues:
        site_papers, site_cache = _site(venue, settings, client, report, progress)
        or_papers, or_cache = _openreview(venue, settings, client, report, progress)
        delivered = zip((site_papers, or_papers), (site_cache, or_cache), report.sources[-2:], strict=True)
        finished += [cache for papers, cache, source in delivered if papers is not None and not source.partial]
        merged = merge.merge(site_papers or [], or_papers or [])
        summary = VenueReport(
            venue.name,
            papers=len(merged.papers),
            with_abstract=sum(1 for p in merged.papers if p.abstract.strip()),
            both=merged.matched,
            site_only=merged.site_only,
            openreview_only=merged.openreview_only,
        )
        report.venues.append(summary)
        if summary.with_abstract:
            # Named by what delivered: a site-only list must not replace one that had OpenReview's fields too.
            kind = (
                "fetched"
                if site_papers is not None and or_papers is not None
                else SITE
                if or_papers is None
                else "openreview"
            )
            path = settings.cache_dir / f"{venue.name}.{kind}.jsonl"
            write_jsonl(path, merged.papers)
            summary.file = str(path)
            files.append(path)
    if files:
        with index.removed_if_failed(db_path, fresh=not db_path.exists()):
            db = index.connect(db_path)
            try:
                report.index = index.load(db, files, workers=settings.workers, official=True)
            finally:
                db.conn.close()
        for cache in finished:
            cache.clear()  # indexed: the next fetch downloads fresh pages
    return report


def _site(
    venue: Venue, settings: Settings, client: JsonClient, report: FetchReport, progress: Progress | None
) -> tuple[list[Fetched] | None, PageCache]:
    base = (settings.site_url or venue.site_url).rstrip("/")
    cache = PageCache(settings.cache_dir / "pages" / venue.name / "site")
    source = SourceReport(venue.name, SITE, base + venue.site_file("orals-posters"))
    report.sources.append(source)
    started = time.perf_counter()
    try:
        got = site.fetch_site(client, venue, base, cache, progress)
    except FetchError as exc:
        source.error = str(exc)
        return None, cache
    finally:
        source.seconds = time.perf_counter() - started
    converted = site.site_papers(got.rows, got.abstracts, venue.conference.name, venue.year, base, venue)
    source.seconds = time.perf_counter() - started
    source.arrived = len(got.rows)
    source.finish(got, converted, venue)
    return converted.papers, cache


def _openreview(
    venue: Venue, settings: Settings, client: JsonClient, report: FetchReport, progress: Progress | None
) -> tuple[list[Fetched] | None, PageCache]:
    base = settings.openreview_url.rstrip("/")
    cache = PageCache(settings.cache_dir / "pages" / venue.name / "openreview")
    source = SourceReport(venue.name, OPENREVIEW, f"{base}/notes")
    report.sources.append(source)
    if settings.credentials is None and base == openreview.DEFAULT_URL:
        source.skipped = (
            f"{' and '.join(settings.missing)} {'is' if len(settings.missing) == 1 else 'are'} not set, and "
            "OpenReview answers only logged-in clients; so no PDFs, TL;DRs or BibTeX, and abstracts come from the "
            "site alone (set both to fetch them too)"
        )
        return None, cache
    started = time.perf_counter()
    try:
        reader = openreview.OpenReview(client, base, settings.credentials, cache)
        got = reader.notes(venue, progress)
    except FetchError as exc:
        source.error = str(exc)
        return None, cache
    finally:
        source.seconds = time.perf_counter() - started
    converted = openreview.notes_papers(got.notes, got.names)
    source.seconds = time.perf_counter() - started
    source.arrived = len(got.notes)
    source.finish(got, converted, venue)
    return converted.papers, cache


def write_jsonl(path: Path, papers: Sequence[Fetched]) -> None:
    """The merged records as JSON Lines, written atomically: a kill leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for paper in papers:
                fh.write(json.dumps(paper.to_json(), ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
