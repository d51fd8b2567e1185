"""The papers a filter keeps, as rowid sets read through the index's own indexes: with code, with a status, of a
venue's track (has:code, status:, venue:/track: and ICML_BOT_VENUES)."""

from __future__ import annotations

from bot.papers.reading import Reader

_SCOPE_SQL = (  # a venue's papers in one track; those of no track are main
    "SELECT rowid FROM papers WHERE venue IS ?1 AND track = ?2 "
    "UNION ALL SELECT rowid FROM papers WHERE ?2 = 'main' AND venue IS ?1 AND track IS NULL"
)


def with_code(db: Reader) -> frozenset[int]:
    """Rowids of the papers with a code link."""
    return frozenset(r for (r,) in db.execute("SELECT rowid FROM papers WHERE code_url > ''"))


def with_status(db: Reader, status: str) -> frozenset[int]:
    """Rowids of the papers with this status (`Oral`, ...)."""
    return frozenset(r for (r,) in db.execute("SELECT rowid FROM papers WHERE status = ?", [status]))


def of_venue_track(db: Reader, venue: str | None, track: str) -> list[int]:
    """Rowids of a venue's papers in one track (a paper of no track is main), through the (venue, track) index
    (both halves search it: coalesce(track, ...) read every venue's row)."""
    return [r for (r,) in db.execute(_SCOPE_SQL, [venue, track]).fetchall()]
