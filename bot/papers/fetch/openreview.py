"""OpenReview API v2: log in, page through a venue's accepted papers, and turn notes into papers.

`POST /login` gives a token for `Authorization: Bearer`; `GET /notes?content.venueid=<group>&limit=1000&offset=N`
pages (more than 1000 per page is HTTP 400); `GET /groups?parent=<group>` lists a group's children (each workshop of
a year is a child of `<conference>/<year>/Workshop`, its accepted papers' venueid). Without a login the API answers
with a browser check (an HTML page with HTTP 200) or HTTP 403 ChallengeRequiredError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from bot.papers import venues
from bot.papers.fetch.http import AuthError, FetchError, Hints, HttpStatusError, JsonClient, NotJsonError, PageCache
from bot.papers.fetch.record import OPENREVIEW, Converted, Fetched, Remark
from bot.papers.venues import Venue

DEFAULT_URL = "https://api2.openreview.net"
SITE = "https://openreview.net"
PAGE_LIMIT = 1000  # the API's maximum; more is HTTP 400
CREDENTIALS = "set OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD (an OpenReview account; free at openreview.net)"
OFFLINE = "or download the notes in a browser and run `icml-bot index FILE`"
ANONYMOUS = Hints(
    html=f"OpenReview shows a browser check instead of data: it wants a login; {CREDENTIALS}",
    auth=f"OpenReview wants a login; {CREDENTIALS}",
    other="check --openreview-url (or OPENREVIEW_BASEURL)",
)
LOGGED_IN = Hints(
    html=f"OpenReview shows a browser check even after logging in; try again later, {OFFLINE}",
    auth=f"OpenReview refuses this account's access; check OPENREVIEW_USERNAME, {OFFLINE}",
    other="check --openreview-url (or OPENREVIEW_BASEURL)",
)
Progress = Callable[[str, int, int], None]
Note = Mapping[str, Any]
LISTED_NAMES = 5  # empty workshops named in the summary's warning; the rest are counted
CODE_FIELDS = ("link_to_code", "code", "code_URL")  # `code_URL`: Datasets & Benchmarks notes
DATASET_FIELDS = ("dataset_URL", "dataset")  # Datasets & Benchmarks notes: where the data is


class LoginError(FetchError):
    """OpenReview refused the username or password."""


@dataclass(frozen=True)
class Credentials:
    """An OpenReview account; the password never appears in a repr or a message."""

    username: str
    password: str = field(repr=False)


@dataclass
class NotesResult:
    """What OpenReview delivered for one venue: accepted notes per group, and what to tell the admin."""

    url: str
    notes: list[Note] = field(default_factory=list)
    count: int = 0
    pages: int = 0
    cached: int = 0
    warnings: list[str] = field(default_factory=list)
    failed: str | None = None  # the page that failed after others arrived: what arrived is kept
    # A workshop's venueid → its name, as the listing gave it
    names: dict[str, str] = field(default_factory=dict)


class OpenReview:
    """A reader of OpenReview notes; logs in (when it has credentials) only once a page is not in the cache."""

    def __init__(
        self, client: JsonClient, base: str, credentials: Credentials | None, cache: PageCache | None = None
    ) -> None:
        self.client, self.base, self.credentials, self.cache = client, base.rstrip("/"), credentials, cache
        self.token: str | None = None

    def login(self) -> str:
        """A fresh token; LoginError (one line naming the URL and what to do) when the account is refused."""
        assert self.credentials is not None
        url = f"{self.base}/login"
        body = {"id": self.credentials.username, "password": self.credentials.password}
        who = f"the login of {self.credentials.username!r} at {url}"
        try:
            answer = self.client.post(url, body, hints=ANONYMOUS)
        except (AuthError, HttpStatusError) as exc:
            if exc.status not in (400, 401, 403, 422):
                raise
            name = _error_text(exc.body)
            raise LoginError(
                url,
                f"OpenReview refused {who} (HTTP {exc.status}{': ' + name if name else ''}): check "
                "OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD",
                exc.status,
            ) from None
        token = answer.get("token") if isinstance(answer, dict) else None
        if not isinstance(token, str) or not token:
            raise LoginError(url, f"OpenReview answered {who} without a token: check --openreview-url")
        self.token = token
        return token

    def _headers(self) -> dict[str, str]:
        if self.credentials is None:
            return {}
        return {"Authorization": f"Bearer {self.token or self.login()}"}

    def notes(self, venue: Venue, progress: Progress | None = None) -> NotesResult:
        """Every accepted paper of the venue's groups (main conference, position papers, each workshop, …)."""
        result = NotesResult(url=f"{self.base}/notes")
        for group, track in venue.groups():
            try:
                if group.endswith("/"):
                    self._children(venue, group.rstrip("/"), track, result, progress)
                else:
                    self._group(venue, group, track, result, progress)
            except FetchError as exc:
                if not result.pages:
                    raise  # nothing arrived: the source failed
                result.failed = str(exc)  # a later page failed: keep the pages that arrived
                break
        return result

    def _children(self, venue: Venue, parent: str, track: str, result: NotesResult, progress: Progress | None) -> None:
        """The accepted papers of every child group of `parent` (each workshop); one line for those with none."""
        children = self._list_groups(parent, result)
        if not children:
            result.warnings.append(
                f"{venue.name} OpenReview ({track}): no groups listed under {parent}: not published yet, or named "
                "otherwise this year (the venue table is in bot/papers/venues.py)"
            )
        empty = []
        for group, name in children.items():
            result.names[group] = name
            if not self._group(venue, group, track, result, progress, quiet=True):
                empty.append(name)
        if empty:
            shown = ", ".join(empty[:LISTED_NAMES]) + (
                f" and {len(empty) - LISTED_NAMES} more" if len(empty) > LISTED_NAMES else ""
            )
            result.warnings.append(
                f"{venue.name} OpenReview ({track}): {len(empty)} of {len(children)} listed under {parent} have no "
                f"accepted papers (yet): {shown}"
            )

    def _list_groups(self, parent: str, result: NotesResult) -> dict[str, str]:
        """The child groups of `parent` (id → name: its title, else the id's last part), page by page."""
        found: dict[str, str] = {}
        offset = 0
        while True:
            url = f"{self.base}/groups?{urlencode({'parent': parent, 'limit': PAGE_LIMIT, 'offset': offset}, safe='/')}"
            page, cached = self._get(url)
            groups = page.get("groups") if isinstance(page, dict) else None
            if not isinstance(groups, list):
                raise FetchError(url, f"{url} is not a list of groups (no `groups` array): {ANONYMOUS.other}")
            result.pages += 1
            result.cached += cached
            known = len(found)
            for group in groups:
                gid = group.get("id") if isinstance(group, Mapping) else None
                if isinstance(gid, str) and gid.startswith(parent + "/") and "/" not in gid[len(parent) + 1 :]:
                    found[gid] = _group_name(group) or gid.rsplit("/", 1)[-1]
            offset += len(groups)
            # The last page, or one that repeats the last
            if len(groups) < PAGE_LIMIT or len(found) == known:
                return found

    def _group(
        self,
        venue: Venue,
        group: str,
        track: str,
        result: NotesResult,
        progress: Progress | None,
        quiet: bool = False,
    ) -> int:
        """Page through one group's accepted notes into `result`; how many arrived. `quiet`: no line if none did."""
        offset, count, arrived, label = 0, None, 0, f"{venue.name} OpenReview ({track})"
        while True:
            params = {"content.venueid": group, "limit": PAGE_LIMIT, "offset": offset, "count": "true"}
            url = f"{self.base}/notes?{urlencode(params, safe='/')}"
            page, cached = self._get(url)
            notes = page.get("notes") if isinstance(page, dict) else None
            if not isinstance(notes, list):
                raise FetchError(url, f"{url} is not a list of notes (no `notes` array): {ANONYMOUS.other}")
            if count is None and isinstance(page.get("count"), int):
                count = page["count"]
                result.count += count
            result.pages += 1
            result.cached += cached
            arrived += len(notes)
            offset += len(notes)
            result.notes.extend(n for n in notes if isinstance(n, Mapping) and _value(n, "venueid") == group)
            if progress:
                progress(label, arrived, max(count or 0, arrived))
            if not notes or (count is not None and offset >= count):
                break
        result.count += arrived if count is None else 0
        if not arrived and not count and not quiet:
            result.warnings.append(
                f"{venue.name} OpenReview ({track}): no notes for venueid {group}: not published yet, or named "
                "otherwise this year (the venue table is in bot/papers/venues.py)"
            )
        elif count is not None and arrived != count:
            result.warnings.append(f"{venue.name} OpenReview {group}: {arrived} notes arrived but it says {count}")
        return arrived

    def _get(self, url: str) -> tuple[Any, bool]:
        """A page from the cache, or from OpenReview (logging in first, and once more if the token expired)."""
        if self.cache is not None and self.cache.get(url) is not None:
            return self.client.get(url, cache=self.cache)
        hints = ANONYMOUS if self.credentials is None else LOGGED_IN
        had_token = self.token is not None
        try:
            return self.client.get(url, headers=self._headers(), cache=self.cache, hints=hints)
        except (AuthError, NotJsonError):
            if not had_token:
                raise
            self.token = None  # an expired token looks like no login at all: log in again, once
            return self.client.get(url, headers=self._headers(), cache=self.cache, hints=hints)


def _error_text(body: Any) -> str:
    """`name: message` of an OpenReview JSON error, short."""
    if not isinstance(body, Mapping):
        return ""
    parts = [str(body.get(k)) for k in ("name", "message") if isinstance(body.get(k), str) and body.get(k)]
    return " ".join(": ".join(parts).split())[:160]


def _group_name(group: Mapping[str, Any]) -> str | None:
    """A venue group's title (`content.title`, wrapped as {"value": …} like a note's fields), one line."""
    title = _value(group, "title")
    return " ".join(title.split()) if isinstance(title, str) and title.strip() else None


def _value(note: Note, key: str) -> Any:
    """A content field of an API v2 note (`{"value": …}`) or of an older flat note."""
    content = note.get("content")
    if not isinstance(content, Mapping):
        return None
    value = content.get(key)
    return value.get("value") if isinstance(value, Mapping) else value


def _str(note: Note, key: str) -> str | None:
    value = _value(note, key)
    return " ".join(value.split()) if isinstance(value, str) and value.strip() else None


def _block(note: Note, key: str) -> str | None:
    """A multi-line content field (abstract, BibTeX), line breaks kept."""
    value = _value(note, key)
    return value.strip() or None if isinstance(value, str) else None


def _strs(note: Note, key: str) -> list[str]:
    value = _value(note, key)
    if isinstance(value, str):
        value = [value]
    return [" ".join(v.split()) for v in value or [] if isinstance(v, str) and v.strip()]


def note_paper(note: Note, names: Mapping[str, str] | None = None) -> Fetched | str:
    """A paper from an accepted note, or why the note is not one (rejected, withdrawn, a venueid no table names).

    A workshop paper's area is its workshop: the name the group listing gave (`names`), else the venueid's last part.
    """
    venueid = _str(note, "venueid") or ""
    group = venues.parse_group(venueid)
    title = _str(note, "title")
    if group is None:
        if venues.not_accepted(venueid):
            return f"not accepted ({venueid.rsplit('/', 1)[-1]})"
        return f"venueid {venueid!r} is in no track of the venue table" if venueid else "no venueid"
    if not title:
        return "no title"
    conference, year, track = group
    status, _ = venues.venue_string(_str(note, "venue") or "")
    forum = str(note.get("forum") or note.get("id") or "") or None
    pdf = _str(note, "pdf")
    return Fetched(
        title=title,
        conference=conference.name,
        year=year,
        track=track,
        abstract=_block(note, "abstract") or "",
        authors=_strs(note, "authors"),
        forum=forum,
        status=status,
        area=_workshop(venueid, names or {}) if track == venues.WORKSHOPS.name else _str(note, "primary_area"),
        keywords=_strs(note, "keywords"),
        url=f"{SITE}/forum?id={forum}" if forum else None,
        pdf_url=(SITE + pdf if pdf.startswith("/") else pdf) if pdf else None,
        code_url=next((url for key in CODE_FIELDS if (url := _str(note, key))), None),
        dataset_url=next((url for key in DATASET_FIELDS if (url := _str(note, key))), None),
        tldr=_str(note, "TLDR") or _str(note, "TL;DR") or _str(note, "tldr"),
        bibtex=_block(note, "_bibtex"),
        license=str(note["license"]) if note.get("license") else None,
        origins=[OPENREVIEW],
        parts=[note_key(note)],
    )


def notes_papers(notes: Iterable[Any], names: Mapping[str, str] | None = None) -> Converted:
    """Papers from notes; each note left out, or kept with a `venue` string the status table lacks, is remarked (a
    workshop paper without a presentation word is not: most workshops name none). `names`: workshops' names."""
    out = Converted()
    for note in notes:
        if not isinstance(note, Mapping):
            out.remarks.append(Remark("not a note (no object)", ("note", None)))
            continue
        paper = note_paper(note, names)
        if isinstance(paper, str):
            out.remarks.append(Remark(paper, note_key(note)))
            continue
        if paper.status is None and paper.track != venues.WORKSHOPS.name:
            venue = _str(note, "venue") or "no venue"
            why = f"status left empty: venue {venue!r} is not in the status table"
            out.remarks.append(Remark(why, note_key(note), left_out=False))
        out.papers.append(paper)
    return out


def _workshop(venueid: str, names: Mapping[str, str]) -> str:
    """How a workshop paper's area reads: the workshop's name, saying "workshop" when the name does not."""
    name = names.get(venueid) or venueid.rsplit("/", 1)[-1]
    return name if "workshop" in name.lower() else f"{name} workshop"


def note_key(note: Note) -> tuple[str, Any]:
    """What names a note in remarks and provenance: its id (its forum for older dumps)."""
    return "note", note.get("id") or note.get("forum")
