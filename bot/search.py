"""Query in, ranked results out: plain bm25 over the FTS5 index. Knows nothing of Slack."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from bot import index

WORD = re.compile(r"\w+")


@dataclass
class Result:
    """One ranked paper with the words that matched, marked in a snippet."""

    paper: dict[str, Any]
    score: float
    snippet: str
    matched: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of `icml-bot search --json`."""
        p = self.paper
        return {
            "id": p["id"], "name": p.get("name"), "title": p["title"], "headline": p.get("headline"),
            "abstract": p["abstract"], "authors": p.get("authors", []), "url": p.get("url"),
            "code_url": p.get("code_url"), "status": p.get("status"), "session": p.get("session"),
            "score": round(self.score, 4), "snippet": self.snippet, "matched": self.matched,
        }


@dataclass
class SearchResponse:
    """Results of one query, with the corrected query when typos were fixed."""

    query: str
    results: list[Result]
    total: int = 0
    offset: int = 0
    corrected: str | None = None
    suggestions: list[str] = field(default_factory=list)
    took_ms: float = 0.0


def match_expression(query: str) -> str | None:
    """User text to a safe FTS5 expression: every word quoted, joined with OR; None when no word is left."""
    words = WORD.findall(query)
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words) or None


def search(db: sqlite_utils.Database, query: str, limit: int = 5, offset: int = 0) -> SearchResponse:
    """Rank papers for a query with FTS5 bm25 (name and title weighted above abstract)."""
    started = time.perf_counter()
    expr = match_expression(query)
    results: list[Result] = []
    total = 0
    if expr:
        total = db.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?", [expr]).fetchone()[0]
        cursor = db.execute(
            "SELECT papers.*, papers_fts.rank AS score, snippet(papers_fts, 2, '*', '*', '…', 24) AS snip "
            "FROM papers_fts JOIN papers ON papers.rowid = papers_fts.rowid WHERE papers_fts MATCH ? "
            "ORDER BY papers_fts.rank LIMIT ? OFFSET ?",
            [expr, limit, offset],
        )
        cols = [c[0] for c in cursor.description]
        for values in cursor:
            row = dict(zip(cols, values, strict=True))
            score, snip = row.pop("score"), row.pop("snip")
            results.append(Result(index.decode(row), -float(score), snip))
    return SearchResponse(query, results, total, offset, took_ms=(time.perf_counter() - started) * 1000)
