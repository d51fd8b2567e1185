"""What search returns: ranked papers with their snippets, and the response around them (totals, notes, fixes)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from bot.papers.row import PaperRow
from bot.text.marked import Marked


class Evidence(Enum):
    """Where a result holds what the query asked: each entry of Result.matched is one kind and what it found there
    (`title:kv cache`, `meaning:0.61`), the text `icml-bot search --json` prints and Slack's blocks read."""

    TITLE = "title"
    ABSTRACT = "abstract"
    MEANING = "meaning"
    AUTHOR = "author"
    STATUS = "status"
    HAS = "has"

    def of(self, found: str) -> str:
        """The matched entry for `found` in this place."""
        return f"{self.value}:{found}"


MAX_LIMIT = 50  # results per call, for search and similar alike
# The index's emphasis kinds (bot.text.cleanup), as JSON names them
EMPHASIS_KINDS = {"b": "bold", "i": "italic"}


@dataclass
class Result:
    """One ranked paper with the words that matched, marked in a snippet."""

    paper: PaperRow
    score: float
    snippet: Marked
    matched: list[str] = field(default_factory=list)
    # Its authors the query named (a person, author:), as listed
    named: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """One result in the JSON of `icml-bot search --json`: plain text; the matched words and the abstract's emphasis
        as offsets."""
        p = self.paper
        return {
            "id": p["id"],
            "name": p.get("name"),
            "title": p["title"],
            "headline": p.get("headline"),
            "abstract": p["abstract"],
            # [start, end, "bold" or "italic"] in the abstract, as its source stressed it
            "abstract_emphasis": [
                [start, end, EMPHASIS_KINDS.get(kind, kind)] for start, end, kind in p.get("abstract_emphasis") or []
            ],
            "authors": p.get("authors", []),
            "url": p.get("url"),
            "code_url": p.get("code_url"),
            "dataset_url": p.get("dataset_url"),
            "status": p.get("status"),
            "session": p.get("session"),
            "venue": p.get("venue"),
            "track": p.get("track"),
            "score": round(self.score, 4),
            "snippet": self.snippet.text,
            # (start, end) in the snippet of each matched word
            "snippet_matches": self.snippet.spans(),
            "matched": self.matched,
            "named_authors": self.named,
        }


@dataclass
class SearchResponse:
    """Results of one query, with the corrected query when typos were fixed and notes the UI may show."""

    query: str
    results: list[Result]
    total: int = 0
    offset: int = 0
    corrected: str | None = None
    suggestions: list[str] = field(default_factory=list)
    took_ms: float = 0.0
    # e.g. the query was cut to its first 32 terms
    notes: list[Marked] = field(default_factory=list)
    truncated: bool = False  # the input was longer than the parser takes (see notes)
    total_exact: bool = True  # False: `total` is a lower bound (very common words)
    partial: bool = False  # some results match only some of the words
    # The author the query named (`Mohit Bansal`), as the index lists them
    person: str | None = None
    venues: int = 1  # venues in the searched scope: with several, each result names its own
    # ms per stage, parse to snippets (engine._run)
    stages: dict[str, float] = field(default_factory=dict)
    # False: nothing was searched ("who works on": no topic), and the notes say what to type
    searched: bool = True

    def to_json(self) -> dict[str, Any]:
        """What `icml-bot search --json` prints, and each line of `--batch --json`: one shape, no Slack markup."""
        return {
            "query": self.query,
            "corrected": self.corrected,
            "took_ms": round(self.took_ms, 3),
            "total": self.total,
            "total_exact": self.total_exact,
            "offset": self.offset,
            "partial": self.partial,
            "person": self.person,
            "suggestions": self.suggestions,
            "notes": [note.text for note in self.notes],
            "results": [r.to_json() for r in self.results],
        }


class Stages:
    """Milliseconds per stage of one search, so the bench can say where the time goes."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into, self.last = into, time.perf_counter()

    def lap(self, stage: str, apart: tuple[str, float] | None = None) -> None:
        """Close a stage: the time since the last lap is its, less the milliseconds of a part counted `apart`."""
        now = time.perf_counter()
        spent = (now - self.last) * 1000
        if apart is not None:
            part, ms = apart
            self.into[part] = self.into.get(part, 0.0) + ms
            spent -= ms
        self.into[stage] = self.into.get(stage, 0.0) + spent
        self.last = now
