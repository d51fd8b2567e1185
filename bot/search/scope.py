"""Which venues a query searches: the configured scope (ICML_BOT_VENUES), or the venue:, year: and track: it names.

A scope becomes a set of (venue, track) pairs the index holds, then one set of rowids that retrieval keeps (like
status:). When the scope covers the whole index nothing is filtered, so a one-venue index pays nothing for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.papers.reading import Reader
from bot.papers.venues import CONFERENCES, DEFAULT_VENUE, MAIN, Scope, venue_filter, venue_label
from bot.search import query as ql
from bot.search.cache import IndexCache, index_cache

# (venue, track) as the index stores them; a paper without a track is main
Key = tuple[str | None, str]


@dataclass
class Resolved:
    """A scope against one index: the pairs searched (None: every paper), notes for the user, and whether the
    query named venues that are not there (then nothing is searched)."""

    keys: frozenset[Key] | None
    # How many venues (not tracks) the scope holds: results name theirs when there are several
    venues: int
    notes: list[str] = field(default_factory=list)
    nothing: bool = False


def _year(venue: str | None) -> int | None:
    return int(venue[-4:]) if venue and venue[-4:].isdigit() else None


def _conference(venue: str | None) -> str:
    return (venue or "")[:-4] if _year(venue) else (venue or "")


def held(cache: IndexCache, db: Reader) -> str:
    """The venues the index holds with their paper counts, for answers that name a venue it lacks."""
    totals: dict[str | None, int] = {}
    tracks: dict[str | None, list[str]] = {}
    for venue, track, papers in cache.venues(db):
        totals[venue] = totals.get(venue, 0) + papers
        tracks.setdefault(venue, []).append(f"{papers:,} {track}")
    parts = []
    for venue, total in sorted(totals.items(), key=lambda kv: -kv[1]):
        split = f": {', '.join(tracks[venue])}" if len(tracks[venue]) > 1 else ""
        parts.append(f"{venue_label(venue)} ({total:,} papers{split})")
    return "; ".join(parts) or "no papers"


def resolve(db: Reader, parsed: ql.ParsedQuery, default: Scope, cache: IndexCache | None = None) -> Resolved:
    """The (venue, track) pairs this query searches: its own venue:/year:/track:, else the default scope (`cache`:
    the index's, when the caller has it already: finding it costs a statement)."""
    cache = cache or index_cache(db)
    present: set[Key] = {(venue, track) for venue, track, _ in cache.venues(db)}
    notes: list[str] = []
    if not present:  # an empty index: nothing to tell apart
        return Resolved(None, 1)
    if "all" in parsed.venues:
        keys = set(present)
    elif parsed.venues:
        keys, unknown = _named(present, parsed.venues)
        if unknown:
            notes.append(_missing(unknown, cache, db))
            if not keys:
                return Resolved(frozenset(), 0, notes, nothing=True)
    elif parsed.years:
        keys = {k for k in present if _year(k[0]) in parsed.years}
    else:
        keys = _default(present, default)
        if not keys and default.venues:
            notes.append(f"ICML_BOT_VENUES names {default.describe()}, but the index has {held(cache, db)}.")
            return Resolved(frozenset(), 0, notes, nothing=True)
    if parsed.years and parsed.venues:
        keys = {k for k in keys if _year(k[0]) in parsed.years}
    if parsed.tracks:
        keys = {k for k in keys if k[1] in parsed.tracks}
    if not keys:
        what = " ".join(
            [*(f"venue:{v}" for v in parsed.venues), *(f"year:{y}" for y in parsed.years)]
            + [f"track:{t}" for t in parsed.tracks]
        )
        notes.append(f"No papers in this index are in {what}; it has {held(cache, db)}.")
        return Resolved(frozenset(), 0, notes, nothing=True)
    venues = max(1, len({k[0] for k in keys if k[0]}))  # papers of no venue are not one
    return Resolved(None if keys >= present else frozenset(keys), venues, notes)


def _named(present: set[Key], names: tuple[str, ...]) -> tuple[set[Key], list[str]]:
    """The pairs matching venue: values (`icml2024`, `icml` for every year, `icml2026-position`), and the unknown."""
    keys: set[Key] = set()
    unknown: list[str] = []
    for name in names:
        wanted = venue_filter(name)
        found = {
            (venue, track)
            for venue, track in present
            if wanted
            and _conference(venue) == wanted[0]
            and (wanted[1] is None or _year(venue) == wanted[1])
            and (wanted[2] is None or track == wanted[2])
        }
        keys |= found
        if not found:
            unknown.append(name)
    return keys, unknown


def _missing(unknown: list[str], cache: IndexCache, db: Reader) -> str:
    """The answer to venue: values the index lacks: what it has, and how to load a known conference."""
    named = ", ".join(f"venue:{n}" for n in unknown)
    line = f"This index has no papers for {named}; it has {held(cache, db)}."
    loadable = [n for n in unknown if (w := venue_filter(n)) and w[0] in CONFERENCES and w[1]]
    if loadable:
        line += f" An admin can load them with `icml-bot fetch {' '.join(loadable)}`."
    elif not all(venue_filter(n) for n in unknown):
        line += " Use a conference and year, e.g. venue:icml2024, or venue:all."
    return line


def _default(present: set[Key], default: Scope) -> set[Key]:
    """The configured scope; automatic: when the index has ICML 2026, everything but the other years and conferences
    fetch knows (ICML 2024, NeurIPS 2025, …), so lists of no or unknown venue stay in; else everything."""
    if default.everything:
        return set(present)
    if default.venues:
        return {(v, t) for v, t in present for venue, track in default.venues if v == venue and track in (None, t)}
    if any(venue == DEFAULT_VENUE for venue, _ in present):
        return {(v, t) for v, t in present if v == DEFAULT_VENUE or _conference(v) not in CONFERENCES or not _year(v)}
    return set(present)


def label(db: Reader, resolved: Resolved) -> str:
    """The venues of a scope as a person reads them: `ICML 2026` (every track), `ICML 2024 position`, `every venue`."""
    if resolved.keys is None:
        return "every venue"
    tracks: dict[str | None, set[str]] = {}
    for venue, track, _ in index_cache(db).venues(db):
        tracks.setdefault(venue, set()).add(track)
    names = []
    for venue in sorted({k[0] for k in resolved.keys}, key=lambda v: v or ""):
        mine = {t for v, t in resolved.keys if v == venue}
        whole = mine >= tracks.get(venue, set())
        names += [venue_label(venue)] if whole else [venue_label(venue, t) for t in sorted(mine)]
    return ", ".join(names) or "nothing"


def in_scope(db: Reader, resolved: Resolved, cache: IndexCache | None = None) -> frozenset[int] | None:
    """Rowids of the papers in scope; None when that is every paper (nothing to filter)."""
    if resolved.keys is None:
        return None
    return (cache or index_cache(db)).scope_rowids(db, resolved.keys)


def venue_of(paper: Mapping[str, object]) -> str:
    """The venue a result names when several are in scope, e.g. `ICML 2024` or `ICML 2026 position`."""
    venue = paper.get("venue")
    track = paper.get("track")
    return venue_label(venue if isinstance(venue, str) else None, track if isinstance(track, str) else MAIN)


_FILTER_TOKEN = re.compile(r"(?i)(?<!\S)-?(?:venue|conf|conference|year|track):(?:\"[^\"]*\"|\S+)")


def split_topics(topics: str) -> tuple[str, str | None]:
    """A digest's topics as (the words, the venues its venue:/year:/track: name or None), for the messages that
    describe it: `kv cache venue:icml2024` → (`kv cache`, `ICML 2024`)."""
    parsed = ql.parse(topics)
    if not parsed.names_venues:
        return topics, None
    words = " ".join(_FILTER_TOKEN.sub(" ", topics).split())
    names: list[str] = []
    for value in parsed.venues:
        wanted = venue_filter(value)
        if value == "all":
            names.append("every venue")
        elif wanted is None:
            names.append(value)
        else:
            conference = CONFERENCES.get(wanted[0])
            label = conference.name if conference else wanted[0].upper()
            label = f"{label} {wanted[1]}" if wanted[1] else f"{label}, every year"
            names.append(f"{label} {wanted[2]}" if wanted[2] and wanted[2] != MAIN else label)
    if not names and parsed.years:
        names.append("every venue of " + " and ".join(str(y) for y in parsed.years))
    tracks = " and ".join(parsed.tracks)
    if tracks:
        names = [f"{n} ({tracks} track)" for n in names] or [f"the {tracks} track"]
    return words, ", ".join(names)
