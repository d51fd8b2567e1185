"""What the index holds, in words: venues with their paper counts and tracks, and how old the index is.

`/icml stats` and `icml-bot stats` both print these lines, so the shell and Slack never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from bot.papers.venues import MAIN, venue_label


def venue_lines(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per venue, largest first: `ICML 2026: 6,341 papers (6,128 main, 213 position)`."""
    totals: dict[str | None, int] = {}
    tracks: dict[str | None, list[tuple[str, int]]] = {}
    for row in rows:
        venue, papers = row["venue"], int(row["papers"])
        totals[venue] = totals.get(venue, 0) + papers
        tracks.setdefault(venue, []).append((str(row["track"] or MAIN), papers))
    lines = []
    for venue, total in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0] or "")):
        split = tracks[venue]
        detail = f" ({', '.join(f'{n:,} {t}' for t, n in split)})" if len(split) > 1 or split[0][0] != MAIN else ""
        lines.append(f"{venue_label(venue)}: {total:,} paper{'s' if total != 1 else ''}{detail}")
    return lines


def age(stamp: str | None, now: datetime) -> str:
    """`2026-07-20T09:00:00Z (3 h ago)` from the index's last_indexed stamp; `never` without one."""
    if not stamp:
        return "never"
    try:
        when = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return stamp
    seconds = max(0, int((now - when).total_seconds()))
    if seconds < 120:
        ago = f"{seconds} s"
    elif seconds < 7200:
        ago = f"{seconds // 60} min"
    elif seconds < 2 * 86400:
        ago = f"{seconds // 3600} h"
    else:
        ago = f"{seconds // 86400} days"
    return f"{stamp} ({ago} ago)"
