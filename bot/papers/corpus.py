"""Reads paper sources (seed text, JSON Lines, JSON arrays, CSV) into clean Paper records, one at a time."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path

from bot.papers.fetch import raw as raw_downloads
from bot.papers.records import Notice, Paper, Raw, Record, Skip, SourceError, identity_keys, make_paper
from bot.papers.source_files import ALIASES, TEXT_FIELDS, read_csv, read_json, read_jsonl, read_seed
from bot.papers.workers import STALL_SECONDS, WorkerKilled, WorkerStalled, in_workers

# What sources become lives in records.py, the formats in source_files.py; read here, as before
__all__ = [
    "ALIASES",
    "TEXT_FIELDS",
    "Notice",
    "Paper",
    "Raw",
    "Record",
    "Skip",
    "SourceError",
    "expand_sources",
    "identity_keys",
    "make_paper",
    "plan",
    "read",
]

SOURCE_SUFFIXES = (".txt", ".jsonl", ".ndjson", ".json", ".csv", ".tsv")
PARALLEL_MIN_BYTES = 2 << 20  # smaller files are cleaned faster than worker processes start


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
    official: bool = False,
) -> Generator[Record, None, None]:
    """Papers and skips from one source file, chosen by its suffix; raises SourceError on malformed input.

    With workers > 1, large files are cleaned in that many processes, a bounded batch at a time, so memory stays
    flat however long the file is. `companions` are raw downloads read together with `path` (see `plan`).
    `official`: the file is an official list `icml-bot fetch` wrote, whose records win a merge (Raw.official).
    """
    raw = _read_raw(path, progress, companions, official)
    if workers > 1 and path.stat().st_size > PARALLEL_MIN_BYTES:
        yield from _parallel(raw, workers, path)
    else:
        yield from map(_finish, raw)


def _finish(record: Raw | Skip) -> Record:
    if isinstance(record, Skip):
        return record
    return make_paper(
        record.fields, record.source, record.line, record.conference, record.year, record.more_sources, record.official
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
    path: Path, progress: Callable[[int], None] | None, companions: tuple[Path, ...] = (), official: bool = False
) -> Iterator[Raw | Skip]:
    """The records of one file, each record cut to bot.papers.limits preceded by a note per field cut."""
    for record in _read_format(path, progress, companions):
        if isinstance(record, Raw):
            record.official = record.official or official
            yield from (Notice(record.source, record.line, reason) for reason in record.cut)
        yield record


def _read_format(
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
