"""The source formats: seed text (a header, then one abstract per paragraph), JSON Lines, JSON (arrays, objects,
raw downloads of the site and OpenReview) and CSV/TSV, each read into Raw records or Skips with their lines."""

from __future__ import annotations

import codecs
import csv
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bot.papers import limits
from bot.papers.fetch import raw as raw_downloads
from bot.papers.records import Notice, Raw, Skip, SourceError

MIN_ABSTRACT_CHARS = 80
# Python's own limit on reading an int (sys.get_int_max_str_digits), said with a line
MAX_NUMBER_DIGITS = 4300
# A year a conference may have: four ASCII digits (not "²", "①" or "٢٠٢٦")
_YEAR = re.compile(r"[12][0-9]{3}")

# Field names teams' exports use, mapped onto ours; anything else is ignored.
ALIASES: dict[str, tuple[str, ...]] = {
    "source_id": ("id", "paper_id", "openreview_id", "forum", "forum_id", "uid"),
    "title": ("title", "paper_title", "name_en", "en"),
    "abstract": ("abstract", "abs", "summary", "paper_abstract"),
    "authors": ("authors", "author", "author_list", "authors_list"),
    "url": ("url", "paper_url", "link", "forum_url", "openreview_url", "site_url", "pdf_url"),
    "pdf_url": ("pdf_url", "pdf"),
    "code_url": ("code_url", "code", "github", "github_url", "repo", "repository"),
    "dataset_url": ("dataset_url", "dataset", "data_url"),
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
    "dataset_url",
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
        fields = {"abstract": para}
        cut = limits.cap(fields)
        yield Raw(fields, path.name, at, conference, year, cut=tuple(cut))
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
            yield _structured(_loads(path, f"{number}", line), path, number)


def read_json(
    path: Path, progress: Callable[[int], None] | None = None, companions: tuple[Path, ...] = ()
) -> Iterator[Raw | Skip]:
    """A JSON array of paper objects (or an object holding one under `papers`), decoded one element at a time.

    Raw downloads (the site's orals-posters and abstracts files, OpenReview notes) are recognised by their shape.
    """
    content = _decode(path)
    decoder = json.JSONDecoder(parse_int=_int)
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
        except (RecursionError, _NumberTooLong) as exc:
            raise SourceError(path, f"{line_of(pos)}", _unreadable(exc)) from None
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
    return _loads(path, "", content)


class _NumberTooLong(ValueError):
    """A JSON number with more digits than Python turns into an int (sys.get_int_max_str_digits)."""


def _int(digits: str) -> int:
    """A JSON integer, or _NumberTooLong where int() would raise a ValueError that names no line."""
    if len(digits) > MAX_NUMBER_DIGITS:
        raise _NumberTooLong(digits[:20])
    return int(digits)


def _loads(path: Path, line: str, text: str) -> Any:
    """One JSON document; SourceError naming the line (`line`, or the line in `text` when "") when it is not one."""
    try:
        return json.loads(text, parse_int=_int)
    except json.JSONDecodeError as exc:
        where = line or f"{exc.lineno}"
        raise SourceError(path, where, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except (RecursionError, _NumberTooLong) as exc:
        raise SourceError(path, line, _unreadable(exc)) from None


def _unreadable(exc: RecursionError | _NumberTooLong) -> str:
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply to read (lists or objects hundreds deep); a paper is one object of fields"
    return f"a number of more than {MAX_NUMBER_DIGITS:,} digits ({exc}…); no field of a paper holds one"


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
        if isinstance(made, Raw):
            # The site's and OpenReview's own downloads, recognised by their shape
            made.official = True
            if files:
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


def _year(value: Any, path: Path, line: int) -> int:
    """A record's year as an int, or SourceError: `²` or `①` pass str.isdigit, and 20 digits overflow SQLite."""
    written = str(value).strip() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if isinstance(value, float) and value.is_integer():
        written = str(int(value))
    if not _YEAR.fullmatch(written):
        shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:40]}…"
        raise SourceError(path, f"{line}", f"field `year` should be a year such as 2026, not {shown}")
    return int(written)


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
    for key in limits.LIST_FIELDS:
        value = fields.get(key)
        if isinstance(value, list) and not all(v is None or isinstance(v, str | int | float) for v in value):
            raise SourceError(path, f"{line}", f"field `{key}` should be a list of names, each one text")
    schedule = fields.get("schedule")
    if schedule is not None and not (
        isinstance(schedule, list)
        and all(
            isinstance(s, Mapping) and all(v is None or isinstance(v, str | int | float) for v in s.values())
            for s in schedule
        )
    ):
        raise SourceError(path, f"{line}", "field `schedule` should be a list of sessions (objects with a name)")
    if "year" in fields:
        fields["year"] = _year(fields["year"], path, line)
    if not str(fields.get("abstract") or "").strip():
        return Skip(path.name, line, "no abstract")
    conference, year = conference_of(path.name)
    cut = limits.cap(fields)
    return Raw(fields, path.name, line, conference, year, cut=tuple(cut))
