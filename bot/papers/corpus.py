"""Reads paper sources (seed text, JSON Lines, JSON arrays, CSV) into clean Paper records, one at a time."""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
import re
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot import text
from bot.papers import field_values, venues
from bot.papers.fetch import raw as raw_downloads
from bot.papers.workers import STALL_SECONDS, WorkerKilled, WorkerStalled, in_workers

SOURCE_SUFFIXES = (".txt", ".jsonl", ".ndjson", ".json", ".csv", ".tsv")
MIN_ABSTRACT_CHARS = 80
PARALLEL_MIN_BYTES = 2 << 20  # smaller files are cleaned faster than worker processes start

# Field names teams' exports use, mapped onto ours; anything else is ignored.
ALIASES: dict[str, tuple[str, ...]] = {
    "source_id": ("id", "paper_id", "openreview_id", "forum", "forum_id", "uid"),
    "title": ("title", "paper_title", "name_en", "en"),
    "abstract": ("abstract", "abs", "summary", "paper_abstract"),
    "authors": ("authors", "author", "author_list", "authors_list"),
    "url": ("url", "paper_url", "link", "forum_url", "openreview_url", "site_url", "pdf_url"),
    "pdf_url": ("pdf_url", "pdf"),
    "code_url": ("code_url", "code", "github", "github_url", "repo", "repository"),
    "status": ("status", "decision", "type", "presentation"),
    "session": ("session", "sessions", "poster_session"),
    "area": ("area", "topic", "primary_area", "track_area", "subject_area"),
    "conference": ("conference", "venue_name"),
    "year": ("year",),
    "track": ("track",),
    "keywords": ("keywords", "tags"),
    "institutions": ("institutions", "affiliations"),
    "site_url": ("site_url",),
    "tldr": ("tldr", "tl;dr"),
    "bibtex": ("bibtex", "_bibtex"),
    "license": ("license", "licence"),
    "schedule": ("schedule",),
    "room": ("room", "room_name"),
    "poster_position": ("poster_position", "board"),
    "preferred": ("preferred",),
}
TEXT_FIELDS = (
    "title",
    "abstract",
    "status",
    "session",
    "area",
    "url",
    "pdf_url",
    "code_url",
    "conference",
    "track",
    "source_id",
    "site_url",
    "tldr",
    "bibtex",
    "license",
    "room",
    "poster_position",
)


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
    schedule: list[dict[str, str | None]] = field(default_factory=list)  # sessions: name, kind, start, end, room, url
    room: str | None = None
    poster_position: str | None = None
    abstract_emphasis: list[tuple[int, int, str]] = field(default_factory=list)  # bold/italic spans (text.cleanup)
    source: str = ""
    more_sources: tuple[str, ...] = ()  # the other files of raw downloads its record was merged from
    source_id: str | None = None
    line: int = 0
    preferred: bool = False  # an official source (`icml-bot fetch`, raw downloads): its fields win in a merge

    keys: list[str] = field(default_factory=list)  # identity_keys(), computed where the text is cleaned


def identity_keys(paper: Paper) -> list[str]:
    """Stable identities of a record, strongest first: the same paper loaded again maps to the same row.

    Title and abstract keys hold the conference and track, so a workshop paper never merges with the main-track
    paper of the same title (or abstract). ICML main-track keys are as they were before, so ids and indexes built
    before stay the same."""
    keys = []
    if paper.source_id:
        keys.append(f"id:{paper.source_id}")
    where = _where(paper)
    if not paper.title_derived:
        keys.append(f"title:{paper.year or ''}:{where}{text.normalize_title(paper.title)}")
    digest = hashlib.sha1(" ".join(text.tokenize(paper.abstract)[:80]).encode()).hexdigest()[:16]
    keys.append(f"abs:{where}{digest}")
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


def expand_sources(paths: Iterable[str | Path]) -> list[Path]:
    """Files named directly plus the readable files inside named folders, in a stable order."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() in SOURCE_SUFFIXES and p.is_file())
            if not found:
                raise SourceError(path, "", f"no paper files ({', '.join(SOURCE_SUFFIXES)}) in this folder")
            out.extend(found)
        elif path.is_file():
            out.append(path)
        else:
            raise SourceError(path, "", "no such file or folder")
    return out


def read(
    path: Path,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    companions: tuple[Path, ...] = (),
) -> Generator[Record, None, None]:
    """Papers and skips from one source file, chosen by its suffix; raises SourceError on malformed input.

    With workers > 1, large files are cleaned in that many processes, a bounded batch at a time, so memory stays
    flat however long the file is. `companions` are raw downloads read together with `path` (see `plan`).
    """
    raw = _read_raw(path, progress, companions)
    if workers > 1 and path.stat().st_size > PARALLEL_MIN_BYTES:
        yield from _parallel(raw, workers, path)
    else:
        yield from map(_finish, raw)


@dataclass
class Raw:
    """A record as read, before cleaning: cheap to produce in the reading process and to send to a worker."""

    fields: dict[str, Any]
    source: str
    line: int
    conference: str | None
    year: int | None
    more_sources: tuple[str, ...] = ()


def _finish(record: Raw | Skip) -> Record:
    return (
        make_paper(record.fields, record.source, record.line, record.conference, record.year, record.more_sources)
        if isinstance(record, Raw)
        else record
    )


def _parallel(
    raw: Iterator[Raw | Skip],
    workers: int,
    path: Path,
    work: Callable[[list[Raw | Skip]], list[Record]] | None = None,
    stall: float = STALL_SECONDS,
) -> Iterator[Record]:
    """Clean records in worker processes (see bot.papers.workers); a killed worker is one line naming the file, a
    stalled one names the lines of the records it was cleaning. `work`: _finish_chunk unless a test says otherwise."""
    try:
        yield from in_workers(raw, work or _finish_chunk, workers, stall)
    except WorkerKilled:
        raise SourceError(
            path,
            "",
            "a text-cleaning worker process was killed (out of memory, or a signal); nothing "
            "was indexed, run `icml-bot index` again",
        ) from None
    except WorkerStalled as stalled:
        lines = [record.line for record in stalled.chunk]
        raise SourceError(
            path,
            f"{min(lines)}-{max(lines)}",
            f"cleaning the records on these lines took more than {stalled.waited} and was "
            "stopped; nothing was indexed. Please report the file; to index the rest now, move those records "
            "to a file of their own and run `icml-bot index` without it",
        ) from None


def _finish_chunk(chunk: list[Raw | Skip]) -> list[Record]:
    return [_finish(record) for record in chunk]


def plan(files: list[Path]) -> list[tuple[Path, tuple[Path, ...]]]:
    """The files to read, each with its companions: the raw downloads of one command are read together.

    The site's orals-posters pages, its abstracts file and OpenReview notes dumps only make whole papers together
    (an oral row points at its poster row, abstracts live apart from 2026, OpenReview has the PDF and BibTeX), so
    the first of them is read with all the others as companions.
    """
    downloads = [path for path in files if raw_downloads.sniff(path)]
    if len(downloads) < 2:
        return [(path, ()) for path in files]
    first = downloads[0]
    return [
        (path, tuple(downloads[1:]) if path == first else ())
        for path in files
        if path == first or path not in downloads
    ]


def _read_raw(
    path: Path, progress: Callable[[int], None] | None, companions: tuple[Path, ...] = ()
) -> Iterator[Raw | Skip]:
    suffix = path.suffix.lower()
    if suffix == ".txt":
        yield from read_seed(path)
    elif suffix in (".jsonl", ".ndjson"):
        yield from read_jsonl(path, progress)
    elif suffix == ".json":
        yield from read_json(path, progress, companions)
    elif suffix in (".csv", ".tsv"):
        yield from read_csv(path, progress)
    else:
        raise SourceError(path, "", f"unknown source type {suffix!r}; use .txt, .jsonl, .json or .csv")


# ---------------------------------------------------------------- seed text

_HEADER = re.compile(r"^\s*(?P<conf>[A-Za-z][A-Za-z-]{1,20})\s*'?(?P<year>(?:19|20)\d\d)\b")
_FILENAME = re.compile(r"(?P<conf>[a-z]{2,10})[_-]?(?P<year>(?:19|20)\d\d)", re.IGNORECASE)


def _decode(path: Path) -> str:
    """The whole file as text with `\n` line ends, for formats read at once (seed text, JSON arrays)."""
    data = path.read_bytes()
    if not data.strip():
        raise SourceError(path, "", "the file is empty; expected a header line, then one abstract per paragraph")
    _decode_check(path)
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


def conference_of(name: str) -> tuple[str | None, int | None]:
    """Conference and year from a header line or file name such as `ICML 2026 论文列表` or `icml2026_x.txt`."""
    m = _HEADER.match(name) or _FILENAME.search(name)
    return (m["conf"].upper(), int(m["year"])) if m else (None, None)


def read_seed(path: Path) -> Iterator[Raw | Skip]:
    """The seed format: an optional header line naming the list, then one abstract per blank-line paragraph."""
    content = _decode(path)
    lines = content.split("\n")
    conference, year = conference_of(path.name)
    first = next((n for n, line in enumerate(lines) if line.strip()), 0)
    if _is_header(lines[first]):
        if _HEADER.match(lines[first]):
            conference, year = conference_of(lines[first])
        lines[first] = ""
    paragraphs: list[tuple[int, str]] = []
    start, buf = 0, list[str]()
    for number, line in enumerate(lines, 1):
        if line.strip():
            if not buf:
                start = number
            buf.append(line.strip())
        elif buf:
            paragraphs.append((start, " ".join(buf)))
            buf = []
    if buf:
        paragraphs.append((start, " ".join(buf)))
    found = 0
    for at, para in paragraphs:
        if len(para) < MIN_ABSTRACT_CHARS:
            yield Skip(path.name, at, f"too short for an abstract ({len(para)} characters)")
            continue
        found += 1
        yield Raw({"abstract": para}, path.name, at, conference, year)
    if not found:
        raise SourceError(
            path,
            "",
            "no abstracts found; expected a header line, then one abstract per paragraph, "
            "paragraphs separated by blank lines",
        )


def _is_header(line: str) -> bool:
    return len(line.strip()) < 120 and not line.rstrip().endswith(".")


# ---------------------------------------------------------------- structured sources


def read_jsonl(path: Path, progress: Callable[[int], None] | None = None) -> Iterator[Raw | Skip]:
    """JSON Lines: one paper object per line; blank lines are allowed."""
    _decode_check(path)
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            if progress:
                progress(len(raw))
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8", errors="strict").strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SourceError(path, f"{number}", f"not valid JSON ({exc.msg} at column {exc.colno})") from None
            yield _structured(obj, path, number)


def read_json(
    path: Path, progress: Callable[[int], None] | None = None, companions: tuple[Path, ...] = ()
) -> Iterator[Raw | Skip]:
    """A JSON array of paper objects (or an object holding one under `papers`), decoded one element at a time.

    Raw downloads (the site's orals-posters and abstracts files, OpenReview notes) are recognised by their shape.
    """
    content = _decode(path)
    decoder = json.JSONDecoder()
    pos = _skip_ws(content, 0)
    line_of = _LineCounter(content)
    if companions or raw_downloads.sniff(path):
        obj = _parse(path, content)
        if raw_downloads.kind_of(obj) or companions:
            if progress:
                progress(len(content))
            yield from _read_downloads(path, obj, companions)
            return
    if content.startswith("{", pos):
        obj = _parse(path, content)
        items = obj.get("papers") if isinstance(obj, dict) else None
        if not isinstance(items, list):
            raise SourceError(path, "1", "expected a JSON array of papers (or an object with a `papers` array)")
        for item in items:
            yield _structured(item, path, 0)
        return
    if not content.startswith("[", pos):
        raise SourceError(path, f"{line_of(pos)}", "expected a JSON array of papers")
    pos = _skip_ws(content, pos + 1)
    if content.startswith("]", pos):
        return
    while True:
        try:
            obj, end = decoder.raw_decode(content, pos)
        except json.JSONDecodeError as exc:
            raise SourceError(path, f"{exc.lineno}", f"not valid JSON ({exc.msg})") from None
        if progress:
            progress(end - pos)
        yield _structured(obj, path, line_of(pos))
        pos = _skip_ws(content, end)
        if content.startswith(",", pos):
            pos = _skip_ws(content, pos + 1)
        elif content.startswith("]", pos):
            break
        else:
            raise SourceError(path, f"{line_of(pos)}", "expected `,` or `]` between papers")


def _parse(path: Path, content: str) -> Any:
    try:
        return json.loads(content)
    except json.JSONDecodeError as exc:
        raise SourceError(path, f"{exc.lineno}", f"not valid JSON ({exc.msg} at column {exc.colno})") from None


def _read_downloads(path: Path, obj: Any, companions: tuple[Path, ...]) -> Iterator[Raw | Skip]:
    """Records from raw downloads read together: merged exactly as `icml-bot fetch` merges what it fetches."""
    bundle = raw_downloads.Bundle()
    for name, value in [(path, obj), *((c, _parse(c, _decode(c))) for c in companions)]:
        kind = raw_downloads.kind_of(value)
        if kind is None:
            raise SourceError(
                name,
                "1",
                "given with raw downloads but is none: expected the site's orals-posters or abstracts JSON, or "
                "OpenReview notes",
            )
        bundle.add(kind, value, name)
    if not bundle.abstracts and bundle.rows:
        for site_file in bundle.site_files:
            if (found := raw_downloads.beside(site_file)) is not None:
                bundle.add(raw_downloads.Kind.ABSTRACTS, _parse(found, _decode(found)), found)
    if not bundle.rows and not bundle.notes:
        if bundle.abstracts:
            raise SourceError(
                path,
                "",
                "this is the site's abstracts file (event id → abstract) on its own; index it together with its "
                "orals-posters file, e.g. `icml-bot index icml-2026-orals-posters.json icml-2026-abstracts.json`",
            )
        raise SourceError(path, "", "no papers in this download (empty `results` or `notes`)")
    read = raw_downloads.records(bundle, conference_of(path.name))
    for problem in read.problems:
        yield Notice(path.name, 0, problem)
    for remark, file in read.remarks:
        yield (Skip if remark.left_out else Notice)(file or path.name, 0, remark.reason)
    for number, (record, files) in enumerate(read.records, 1):
        made = _structured(record, path, number)
        if isinstance(made, Raw) and files:
            made.source, made.more_sources = files[0], tuple(files[1:])
        yield made


def read_csv(path: Path, progress: Callable[[int], None] | None = None) -> Iterator[Raw | Skip]:
    """CSV (or TSV) with a header row naming the fields."""
    _decode_check(path)
    with path.open(newline="", encoding="utf-8-sig") as fh:
        sample = fh.read(65536)
        fh.seek(0)
        delimiter = "\t" if path.suffix.lower() == ".tsv" or sample.count("\t") > sample.count(",") else ","
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
        reader = csv.DictReader(fh, delimiter=delimiter)
        if not reader.fieldnames:
            raise SourceError(path, "1", "no header row; the first line must name the fields (title,abstract,…)")
        try:
            for row in reader:
                if progress:
                    progress(sum(len(v) for v in row.values() if isinstance(v, str)))
                if None in row:
                    raise SourceError(
                        path,
                        f"{reader.line_num}",
                        f"{len(reader.fieldnames) + len(row[None])} fields where the header has "
                        f"{len(reader.fieldnames)}; quote fields that contain `{delimiter}`",
                    )
                yield _structured(row, path, reader.line_num)
        except csv.Error as exc:
            raise SourceError(path, f"{reader.line_num}", f"malformed CSV ({exc})") from None


def _decode_check(path: Path) -> None:
    """Fail early, with a byte offset, on an empty or non-UTF-8 file before anything is indexed."""
    size = path.stat().st_size
    if size == 0:
        raise SourceError(path, "", "the file is empty")
    with path.open("rb") as fh:
        offset, line = 0, 1
        decoder = codecs.getincrementaldecoder("utf-8")()
        while chunk := fh.read(1 << 20):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                bad = offset + exc.start
                line += chunk.count(b"\n", 0, exc.start)
                raise SourceError(
                    path,
                    f"{line}",
                    f"not UTF-8 text (byte 0x{chunk[exc.start]:02x} at offset {bad}); save the file as UTF-8",
                ) from None
            offset += len(chunk)
            line += chunk.count(b"\n")
        try:
            decoder.decode(b"", final=True)  # a multi-byte character cut off at the end of the file
        except UnicodeDecodeError:
            raise SourceError(
                path,
                f"{line}",
                f"not UTF-8 text (the file ends in the middle of a character, at "
                f"offset {offset}); save the file as UTF-8",
            ) from None


class _LineCounter:
    """Line numbers for positions that only move forward, without rescanning the text."""

    def __init__(self, content: str) -> None:
        self.content, self.pos, self.line = content, 0, 1

    def __call__(self, pos: int) -> int:
        self.line += self.content.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _skip_ws(content: str, pos: int) -> int:
    while pos < len(content) and content[pos] in " \t\n":
        pos += 1
    return pos


def _structured(obj: Any, path: Path, line: int) -> Raw | Skip:
    if not isinstance(obj, Mapping):
        raise SourceError(path, f"{line}", f"expected an object with title, abstract, … but found {type(obj).__name__}")
    fields: dict[str, Any] = {}
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    for ours, names in ALIASES.items():
        for name in names:
            value = lowered.get(name)
            if value not in (None, "", []):
                fields[ours] = value
                break
    for key in TEXT_FIELDS:
        value = fields.get(key)
        if value is not None and not isinstance(value, str | int | float):
            raise SourceError(path, f"{line}", f"field `{key}` should be text, not {type(value).__name__}")
    schedule = fields.get("schedule")
    if schedule is not None and not (isinstance(schedule, list) and all(isinstance(s, Mapping) for s in schedule)):
        raise SourceError(path, f"{line}", "field `schedule` should be a list of sessions (objects with a name)")
    if not str(fields.get("abstract") or "").strip():
        return Skip(path.name, line, "no abstract")
    conference, year = conference_of(path.name)
    return Raw(fields, path.name, line, conference, year)


def make_paper(
    fields: Mapping[str, Any],
    source: str,
    line: int,
    conference: str | None = None,
    year: int | None = None,
    more_sources: tuple[str, ...] = (),
) -> Paper:
    """One Paper from raw fields: clean text, find code links, and derive a name and title where a source has none."""
    raw_abstract = str(fields["abstract"])
    abstract, emphasis = text.to_marked_text(raw_abstract)
    raw_title = str(fields.get("title") or "").strip()
    code_url = field_values.first_url(fields.get("code_url")) or text.code_url(raw_abstract)
    title = text.to_plain_text(raw_title) if raw_title else ""
    name = (text.name_from_title(raw_title) if title else None) or text.derive_name(raw_abstract, code_url)
    year_value = str(fields.get("year") or "").strip()
    if year_value.isdigit():
        year = int(year_value)
    if fields.get("conference"):
        conference = str(fields["conference"]).strip().upper()
    tldr = field_values.optional_text(fields.get("tldr"))
    paper = Paper(
        title=title or text.derive_title(raw_abstract, name),
        abstract=abstract,
        abstract_emphasis=emphasis,
        name=name,
        headline=text.headline(raw_abstract),
        title_derived=not title,
        authors=field_values.names_or_words(fields.get("authors")),
        url=field_values.first_url(fields.get("url")),
        pdf_url=field_values.first_url(fields.get("pdf_url")),
        code_url=code_url,
        status=field_values.status(fields.get("status")),
        session=str(fields["session"]).strip() if fields.get("session") else None,
        area=str(fields["area"]).strip() if fields.get("area") else None,
        keywords=field_values.names_or_words(fields.get("keywords"), split="keywords"),
        conference=conference,
        year=year,
        track=str(fields["track"]).strip() if fields.get("track") else None,
        venue=venues.venue_key(conference, year),
        institutions=field_values.aligned_list(fields.get("institutions")),
        site_url=field_values.first_url(fields.get("site_url")),
        tldr=text.to_plain_text(tldr) if tldr else None,
        bibtex=field_values.optional_text(fields.get("bibtex")),
        license=field_values.optional_text(fields.get("license")),
        schedule=field_values.schedule(fields.get("schedule")),
        room=field_values.optional_text(fields.get("room")),
        poster_position=field_values.optional_text(fields.get("poster_position")),
        source=source,
        more_sources=more_sources,
        source_id=str(fields["source_id"]).strip() if fields.get("source_id") else None,
        line=line,
        preferred=fields.get("preferred") is True,
    )
    paper.keys = identity_keys(paper)
    return paper
