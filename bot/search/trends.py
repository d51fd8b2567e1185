"""A topic's papers per venue: for each venue the index holds, the total the search itself reports for
`<topic> venue:<venue>`, beside the venue's own paper count (the share). One search per venue, in one snapshot of
the index, so the chart and `/icml <topic> venue:<venue>` can never disagree: there is no second matcher here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.papers import index
from bot.papers.reading import Reader
from bot.papers.venues import MAIN, venue_label
from bot.search import query as ql
from bot.search.cache import index_cache
from bot.search.engine import request_without_topic, search
from bot.search.retrieve import RELAX_BELOW

FILENAME_CHARS = 40  # of the topic in the chart's file name


class TrendError(ValueError):
    """A topic that cannot be charted across venues (empty, or naming venues itself); the message says what to do."""


@dataclass(frozen=True)
class VenueCount:
    """One venue's bar: how many of its papers the search finds for the topic, of how many it holds."""

    venue: str  # the index's key, e.g. icml2024: what venue: takes
    label: str  # ICML 2024
    conference: str  # ICML (the series a chart colours alike)
    year: int | None
    papers: int  # the venue's papers (of the tracks the topic names, if any)
    matches: int  # the search's total for `<topic> venue:<venue>`
    exact: bool = True  # False: `matches` is a lower bound, as the search says "at least"
    partial: bool = False  # the search also counts papers matching only some of the words

    @property
    def share(self) -> float:
        """The fraction of the venue's papers on the topic."""
        return self.matches / self.papers if self.papers else 0.0

    def to_json(self) -> dict[str, Any]:
        """One row of `icml-bot trend --json`."""
        return {
            "venue": self.venue,
            "label": self.label,
            "conference": self.conference,
            "year": self.year,
            "papers": self.papers,
            "matches": self.matches,
            "exact": self.exact,
            "partial": self.partial,
            "share": round(self.share, 6),
        }


@dataclass(frozen=True)
class Trend:
    """The topic's counts in every venue of the index, oldest year first; `corrected`: the topic as the search read
    it (typos fixed), when it differs; `unplaced`: papers of no venue, left out."""

    topic: str
    venues: list[VenueCount]
    corrected: str | None = None
    unplaced: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def matches(self) -> int:
        """Papers on the topic in all venues together."""
        return sum(v.matches for v in self.venues)

    @property
    def filename(self) -> str:
        """`icml-trend-kv-cache.png`: the chart's file, named by the topic's letters and digits."""
        slug = re.sub(r"[^\w]+", "-", (self.corrected or self.topic).lower(), flags=re.ASCII).strip("-")
        return f"icml-trend-{slug[:FILENAME_CHARS].rstrip('-') or 'topic'}.png"

    def to_json(self) -> dict[str, Any]:
        """What `icml-bot trend --json` prints."""
        return {
            "topic": self.topic,
            "corrected": self.corrected,
            "venues": [v.to_json() for v in self.venues],
            "unplaced": self.unplaced,
            "notes": self.notes,
        }


def share_text(share: float) -> str:
    """A share as people read it: `12.3%`, `0.45%` below one percent, `0%`."""
    if share == 0:
        return "0%"
    return f"{share:.1%}" if share >= 0.01 else f"{share:.2%}"


def count_text(venue: VenueCount) -> str:
    """A count as the search reports it: `1,000+` when it is a lower bound."""
    return f"{venue.matches:,}" if venue.exact else f"{venue.matches:,}+"


def count_label(venue: VenueCount) -> str:
    """A count as the table and the chart's bars show it: `*` after one that includes papers with some of the words."""
    return count_text(venue) + ("*" if venue.partial else "")


def share_label(venue: VenueCount) -> str:
    """A share as the table and the chart show it: `4.5%+` when its count is a lower bound."""
    return share_text(venue.share) + ("" if venue.exact else "+")


def table_lines(trend: Trend) -> list[str]:
    """The numbers as a plain table (the shell prints it, Slack shows it as code beside the chart)."""
    rows = [("venue", "papers", "on topic", "share")]
    for v in trend.venues:
        rows.append((v.label, f"{v.papers:,}", count_label(v), share_label(v)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c:>{widths[2]}}  {d:>{widths[3]}}".rstrip() for a, b, c, d in rows]
    if any(not v.exact for v in trend.venues):
        lines.append("+: at least (the search's own total is a lower bound there: it counts common words in part)")
    if any(v.partial for v in trend.venues):
        lines.append("*: few papers there have every word, so papers with some of them count too")
    return lines


def topic_trend(db: Reader, topic: str) -> Trend:
    """The topic's papers in each venue the index holds: the total of `search(<topic> venue:<venue>)`, and the
    venue's papers (of the tracks a track: in the topic names). Raises TrendError for a topic it cannot chart."""
    topic = " ".join(topic.split())
    parsed = ql.parse(topic)
    if parsed.venues or parsed.years:
        raise TrendError("A trend covers every venue and year already: leave out venue: and year:.")
    if (not parsed.terms and not parsed.has_filters and not parsed.links) or request_without_topic(topic) is not None:
        raise TrendError("Which topic? Name one, e.g. `kv cache` or `diffusion has:code`.")
    counts: list[VenueCount] = []
    corrected: str | None = None
    with index.snapshot(db):
        held = _venue_papers(db, set(parsed.tracks))
        unplaced = held.get(None, 0)
        for venue, papers in held.items():
            if venue is None:  # (venue: cannot name them)
                continue
            # A page of RELAX_BELOW: the search counts papers with only some of the words when fewer than that have
            # them all, and ranks those last, so such a page shows (partial) whether this count holds any.
            response = search(db, f"{topic} venue:{venue}", limit=RELAX_BELOW)
            if response.corrected and not corrected:
                corrected = response.corrected.removesuffix(f" venue:{venue}")
            label = venue_label(venue)
            conference, _, year = label.rpartition(" ")
            counts.append(
                VenueCount(
                    venue,
                    label,
                    conference if year.isdigit() else label,
                    int(year) if year.isdigit() else None,
                    papers,
                    response.total,
                    response.total_exact,
                    response.partial,
                )
            )
    counts.sort(key=lambda v: (v.year is None, v.year or 0, v.conference))
    return Trend(topic, counts, corrected, unplaced, list(parsed.notes))


def _venue_papers(db: Reader, tracks: set[str]) -> dict[str | None, int]:
    """Papers per venue (None: of no venue), counting only `tracks` when a topic names some."""
    out: dict[str | None, int] = {}
    for venue, track, papers in index_cache(db).venues(db):
        if not tracks or (track or MAIN) in tracks:
            out[venue] = out.get(venue, 0) + papers
    return {v: n for v, n in out.items() if n}
