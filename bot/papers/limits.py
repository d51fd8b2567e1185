"""The most each field of a record may hold: an oversized record is cut as it is read, before any cleaning, and
`icml-bot index` names the record and the field, so that one record cannot stall cleaning, the index, search or Slack.

Every cap is several times the largest value in the shared lists (noted beside it), so real papers are never cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ELLIPSIS = "…"
# Prose is cut at the last space after this share of its cap (a word is not split)
CUT_AT_SPACE = 0.9
LINK_FIELDS = frozenset({"url", "pdf_url", "code_url", "dataset_url", "site_url"})
LIST_FIELDS = frozenset({"authors", "keywords", "institutions"})


@dataclass(frozen=True)
class Caps:
    """Characters per field (text fields not named: `text`), entries per list and per schedule."""

    fields: Mapping[str, int] = field(
        default_factory=lambda: {
            "abstract": 20_000,  # longest: 3,074
            "title": 1_000,  # 178
            "tldr": 2_000,  # 250
            "bibtex": 20_000,
            # Slack's longest link; a longer one is left out, not cut
            **dict.fromkeys(LINK_FIELDS, 3_000),
        }
    )
    text: int = 1_000  # status, session (418), area (418), track, ids, room, licence
    entries: int = 1_000  # authors (84), keywords (40), institutions
    entry: int = 500  # one author (44) or keyword (187)
    listed: int = 100_000  # a list given as one text: "A; B; C"
    sessions: int = 100  # schedule entries

    def of(self, name: str) -> int:
        """The cap on one text field."""
        return self.fields.get(name, self.text)


CAPS = Caps()
# Bench
UNCAPPED = Caps(fields={}, text=1 << 62, entries=1 << 62, entry=1 << 62, listed=1 << 62, sessions=1 << 62)


def cap(fields: dict[str, Any], caps: Caps | None = None) -> list[str]:
    """Cut `fields` (a record's fields, as read) to the caps in place; returns one reason per field cut."""
    caps = caps or CAPS
    cut: list[str] = []
    for name, value in list(fields.items()):
        if name in LIST_FIELDS and isinstance(value, list):
            limit = caps.entries
            if len(value) > limit:
                fields[name] = value = value[:limit]
                cut.append(f"`{name}` has more than {limit:,} entries: the rest left out")
            if any(isinstance(v, str) and len(v) > caps.entry for v in value):
                fields[name] = [_cut(v, caps.entry) if isinstance(v, str) else v for v in value]
                cut.append(f"`{name}` has an entry longer than {caps.entry:,} characters: cut there")
        elif name == "schedule" and isinstance(value, list):
            sessions, most = value[: caps.sessions], caps.text
            if len(value) > caps.sessions:
                cut.append(f"`schedule` has more than {caps.sessions:,} sessions: the rest left out")
            if any(isinstance(v, str) and len(v) > most for s in sessions for v in s.values()):
                sessions = [{k: _cut(v, most) if isinstance(v, str) else v for k, v in s.items()} for s in sessions]
                cut.append(f"`schedule` has a value longer than {most:,} characters: cut there")
            fields[name] = sessions
        elif isinstance(value, str):
            limit = caps.listed if name in LIST_FIELDS else caps.of(name)
            if len(value) <= limit:
                continue
            if name in LINK_FIELDS:
                del fields[name]
                cut.append(f"`{name}` longer than {limit:,} characters: left out")
            else:
                fields[name] = _cut(value, limit)
                cut.append(f"`{name}` longer than {limit:,} characters: cut there")
    return cut


def _cut(value: str, limit: int) -> str:
    """`value` in at most `limit` characters ending in "…", at a space when one is near the end."""
    if len(value) <= limit:
        return value
    kept = value[: limit - len(ELLIPSIS)]
    space = kept.rfind(" ", int(limit * CUT_AT_SPACE))
    return (kept[:space] if space > 0 else kept).rstrip() + ELLIPSIS
