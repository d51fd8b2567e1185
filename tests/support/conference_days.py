"""A fetched venue with real session shapes for the plan, calendar and reminder tests: ICML 2026 in Seoul as the fake
conference site serves it (times with a +09:00 offset, rooms, poster numbers, an oral with no poster row, a poster
whose session has no time yet, a paper only OpenReview lists), fetched by `icml-bot fetch` into an index.

Papers (make_conference's numbering): poster session n % 4 + 1, poster number #(1000 + n); papers 0-2 are orals
(Oral 1A, 2A, 3A); paper 2 has no poster row; paper 11's session has no time; paper 12 is only on OpenReview.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.papers import fetching
from bot.papers.fetch.http import JsonClient, RetryPolicy
from tests.support.conference_fakes import USERS, Conference, FakeOpenReview, FakeSite, make_conference, serve

OFFSET = "+09:00"
# session → (day, start, end, room) at the venue
SESSIONS: dict[str, tuple[str, str, str, str]] = {
    "Oral 1A": ("2026-07-14", "10:00", "11:00", "Hall A"),
    "Poster Session 1": ("2026-07-14", "11:00", "12:30", "Hall B"),
    "Poster Session 2": ("2026-07-14", "16:30", "18:00", "Hall B"),
    "Oral 2A": ("2026-07-15", "10:00", "11:00", "Hall A"),
    "Oral 3A": ("2026-07-15", "11:00", "12:00", "Hall A"),
    "Poster Session 3": ("2026-07-15", "11:00", "12:30", "Hall B"),
    "Poster Session 4": ("2026-07-15", "16:30", "18:00", "Hall C"),
}
ORAL_ONLY = 2  # an oral with no poster row
UNTIMED = 11  # its poster session has no time in the list yet
OPENREVIEW_ONLY = 12


def days_conference(moved: dict[str, tuple[str, str, str, str]] | None = None) -> Conference:
    """ICML 2026 with the sessions above (`moved`: sessions given another day, time or room, as a re-fetch finds)."""
    sessions = {**SESSIONS, **(moved or {})}
    conference = make_conference(posters=12, orals=3, spotlights=2, position=0, site_only=0, rejected=0)
    rows: list[dict[str, Any]] = []
    for row in conference.rows:
        number = int(row["sourceid"])
        if number == ORAL_ONLY and row["eventtype"] == "Poster":
            continue
        row = copy.deepcopy(row)
        if row["eventtype"] == "Oral":
            row["poster_position"] = None  # talks have no board
        if number == ORAL_ONLY:  # the oral row alone carries the paper: its OpenReview link too
            row["paper_url"] = f"https://openreview.net/forum?id={conference.paper(number).forum}"
            row["related_events_ids"] = []
        day, start, end, room = sessions[row["session"]]
        row.update(starttime=f"{day}T{start}:00{OFFSET}", endtime=f"{day}T{end}:00{OFFSET}", room_name=room)
        if number == UNTIMED:
            row.update(starttime=None, endtime=None)
        rows.append(row)
    conference.rows = rows
    return conference


def fetch_index(conference: Conference, path: Path, cache: Path) -> Path:
    """The index `icml-bot fetch icml2026` builds from the fakes of the site and OpenReview serving `conference`."""
    user, password = next(iter(USERS.items()))
    with pytest.MonkeyPatch.context() as env:
        for var in ("ICML_BOT_STATE", "OPENREVIEW_BASEURL", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
            env.delenv(var, raising=False)
        env.setenv("ICML_BOT_CACHE", str(cache))
        env.setenv("OPENREVIEW_USERNAME", user)
        env.setenv("OPENREVIEW_PASSWORD", password)
        env.setattr(fetching, "JsonClient", lambda: JsonClient(timeout=10, retry=RetryPolicy(sleep=lambda _: None)))
        with serve(FakeSite(conference)) as site, serve(FakeOpenReview(conference)) as openreview:
            args = ["fetch", "icml2026", "--db", str(path), "--site-url", site.url, "--openreview-url", openreview.url]
            assert main(args) == 0
    return path
