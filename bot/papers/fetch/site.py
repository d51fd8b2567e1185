"""The conference site's JSON (`/static/virtual/data/<conf>-<year>-orals-posters.json`): paging, and rows → papers.

One paper can be several rows: an oral is an extra row (`eventtype: "Oral"`) linked to its poster row through
`related_events_ids`, or carrying the same OpenReview forum in its own `paper_url` with no link at all. Rows that are
not accepted papers of the venue's OpenReview tracks (journal track, CMT-hosted tracks, `Reject` decisions, no
`sourceurl`) are left out and counted. Names and institutions arrive HTML-escaped; abstracts are HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlparse, urlunparse

from bot import text
from bot.papers import venues
from bot.papers.fetch.http import FetchError, Hints, HttpStatusError, Json, JsonClient, PageCache
from bot.papers.fetch.record import SITE, Converted, Fetched, Remark, Slot
from bot.papers.venues import Status, Venue

MAX_PAGES = 10_000  # a `next` chain longer than this is a loop on the server's side
ABSTRACTS_FROM = 2026  # from this year the abstracts are in their own file
HINTS = Hints(
    html="check --site-url: it should be the conference site (e.g. https://icml.cc) or a mirror of its "
    "/static/virtual/data/ files",
    auth="the conference site refuses access; check --site-url",
    other="check the venue name and --site-url",
)
Progress = Callable[[str, int, int], None]
Row = Mapping[str, Any]

_BLOCK_BREAK = re.compile(r"(?i)</p\s*>\s*<p(?:\s[^<>]*)?>|<br\s*/?>\s*<br\s*/?>")
_LINE_BREAK = re.compile(r"(?i)<br\s*/?>|</?(?:div|li|ul|ol|h[1-6]|blockquote)(?:\s[^<>]*)?>")
_TAG = re.compile(r"(?i)</?(?:p|span|strong|b|em|i|u|code|a|sup|sub|small|font)(?:\s[^<>]*)?/?>")
_FORUM_ID = re.compile(r"openreview\.net/forum\?(?:[^#]*&)?id=([A-Za-z0-9_-]{4,40})(?:[&#]|$)")


@dataclass
class SiteResult:
    """What the site delivered for one venue."""

    url: str
    rows: list[Row] = field(default_factory=list)
    count: int | None = None
    abstracts: dict[str, str] = field(default_factory=dict)
    pages: int = 0
    cached: int = 0
    warnings: list[str] = field(default_factory=list)
    failed: str | None = None  # the page that failed after others arrived: what arrived is kept


def fetch_site(
    client: JsonClient, venue: Venue, base: str, cache: PageCache | None = None, progress: Progress | None = None
) -> SiteResult:
    """Every page of the venue's orals-posters list (following `next`) and, where needed, its abstracts file."""
    base = base.rstrip("/")
    first = base + venue.site_file("orals-posters")
    result = SiteResult(url=first)
    url: str | None = first
    seen: set[str] = set()
    while url:
        if url in seen or result.pages >= MAX_PAGES:
            result.warnings.append(f"{venue.name} site: the `next` links loop back to {url}; stopped there")
            break
        seen.add(url)
        try:
            page, cached = client.get(url, cache=cache, hints=HINTS)
        except FetchError as exc:
            if not result.pages:
                raise  # nothing arrived: the source failed
            # Sites serve the first page and refuse a continuation: keep what arrived
            result.failed = str(exc)
            break
        if not isinstance(page, dict) or not isinstance(page.get("results"), list):
            raise FetchError(url, f"{url} is not the site's orals-posters list (no `results` array): {HINTS.other}")
        result.pages += 1
        result.cached += cached
        if result.count is None and isinstance(page.get("count"), int):
            result.count = page["count"]
        result.rows.extend(row for row in page["results"] if isinstance(row, dict))
        if progress:
            progress(f"{venue.name} site", len(result.rows), max(result.count or 0, len(result.rows)))
        url = rebase(url, page.get("next"), base)
    if result.count is not None and result.count != len(result.rows) and not result.failed:
        result.warnings.append(
            f"{venue.name} site: {len(result.rows)} records arrived but the list says it has {result.count}"
        )
    if venue.year >= ABSTRACTS_FROM or any(not row.get("abstract") for row in result.rows):
        _fetch_abstracts(client, venue, base, cache, result)
    return result


def _fetch_abstracts(client: JsonClient, venue: Venue, base: str, cache: PageCache | None, result: SiteResult) -> None:
    url = base + venue.site_file("abstracts")
    try:
        value, cached = client.get(url, cache=cache, hints=HINTS)
    except HttpStatusError as exc:
        if exc.status != 404:
            raise
        if venue.year >= ABSTRACTS_FROM:
            result.warnings.append(f"{venue.name} site: no abstracts file at {url} (HTTP 404)")
        return
    if not isinstance(value, dict):
        raise FetchError(url, f"{url} is not the site's abstracts file (an object of event id → abstract)")
    result.abstracts = {str(k): v for k, v in value.items() if isinstance(v, str)}
    result.pages += 1
    result.cached += cached


def rebase(current: str, link: Json, base: str) -> str | None:
    """The `next` page's URL, on the host we were told to use: a mirror's pages may still name the real site."""
    if not isinstance(link, str) or not link.strip():
        return None
    target = urlparse(urljoin(current, link.strip()))
    home = urlparse(base)
    if target.netloc != home.netloc:
        target = target._replace(scheme=home.scheme, netloc=home.netloc)
    return urlunparse(target)


def site_papers(
    rows: Iterable[Row], abstracts: Mapping[str, str], conference: str, year: int, base: str, venue: Venue | None = None
) -> Converted:
    """One paper per group of rows of one paper (poster + oral), each row left out said why."""
    rows = [row for row in rows if isinstance(row, Mapping) and row.get("id") is not None]
    out = Converted()
    for group in _link(rows, out.warnings):
        paper = _paper(group, abstracts, conference, year, base.rstrip("/"), out.remarks)
        if paper is not None and (venue is None or venue.wants(paper.track)):
            out.papers.append(paper)
    return out


def _link(rows: list[Row], warnings: list[str]) -> list[list[Row]]:
    """Group the rows of one paper: linked by `related_events_ids` or naming the same OpenReview forum, never two
    rows that name different forums."""
    parent = {row["id"]: row["id"] for row in rows}
    forums: dict[Any, set[str]] = {row["id"]: {f} if (f := forum_id(row.get("paper_url"))) else set() for row in rows}

    def root(x: Any) -> Any:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(a: Any, b: Any) -> bool:
        a, b = root(a), root(b)
        if a != b and forums[a] and forums[b] and forums[a] != forums[b]:
            return False
        parent[b] = a
        forums[a] |= forums[b]
        return True

    for row in rows:
        for other in row.get("related_events_ids") or []:
            if other in parent and not join(row["id"], other):
                warnings.append(f"site rows {row['id']} and {other} are linked but name different papers; kept apart")
    first: dict[str, Any] = {}
    for row in rows:
        forum = forum_id(row.get("paper_url"))
        if forum:
            join(first.setdefault(forum, row["id"]), row["id"])
    groups: dict[Any, list[Row]] = {}
    for row in rows:
        groups.setdefault(root(row["id"]), []).append(row)
    return list(groups.values())


def _paper(
    group: list[Row], abstracts: Mapping[str, str], conference: str, year: int, base: str, remarks: list[Remark]
) -> Fetched | None:
    """The paper of a group of rows, or None (with a remark saying why) for rows that are not an accepted paper."""
    orals = [row for row in group if str(row.get("eventtype") or "").lower() == "oral"]
    posters = [row for row in group if row not in orals]
    main = next((row for row in posters if forum_id(row.get("paper_url"))), posters[0] if posters else group[0])
    ordered = [main] + [row for row in posters + orals if row is not main]
    why = _left_out(ordered, conference, year)
    if why:
        remarks.append(Remark(why, row_key(main)))
        return None
    track = next(t for url in _sourceurls(ordered) if (t := _own_track(url, conference, year)))
    status = Status.ORAL if orals else venues.decision_status(main.get("decision"))
    if status is None:
        decision = _text(main.get("decision"))
        what = f"decision {decision!r}" if decision else "no decision"
        remarks.append(Remark(f"status left empty: {what} is not in the status table", row_key(main), left_out=False))
    abstract = next(
        (
            value
            for row in ordered
            for value in (row.get("abstract"), abstracts.get(str(row["id"])))
            if isinstance(value, str) and value.strip()
        ),
        "",
    )
    authors = [a for a in main.get("authors") or [] if isinstance(a, Mapping)]
    forum = next((f for row in ordered if (f := forum_id(row.get("paper_url")))), None)
    site_url = _page(main, base)
    return Fetched(
        title=_text(main.get("name")),
        conference=conference,
        year=year,
        track=track,
        abstract=html_to_text(abstract),
        authors=[_text(a.get("fullname")) for a in authors],
        institutions=[_text(a.get("institution")) for a in authors],
        forum=forum,
        site_id=main["id"] if isinstance(main["id"], int) else None,
        status=status,
        schedule=[_slot(row, base) for row in ordered if _text(row.get("session"))],
        room=_text(main.get("room_name")) or None,
        poster_position=_text(main.get("poster_position")) or None,
        area=_text(main.get("topic")) or None,
        keywords=[_text(k) for k in main.get("keywords") or [] if isinstance(k, str) and k.strip()],
        url=f"https://openreview.net/forum?id={forum}" if forum else site_url,
        site_url=site_url,
        origins=[SITE],
        parts=[row_key(row) for row in ordered],
    )


def _own_track(sourceurl: str, conference: str, year: int) -> str | None:
    """The track of the venue's own OpenReview group a `sourceurl` names; None for any other group."""
    parsed = venues.parse_group(venues.source_group(sourceurl) or "")
    return parsed[2] if parsed and parsed[0].name == conference and parsed[1] == year else None


def _left_out(rows: list[Row], conference: str, year: int) -> str | None:
    """Why a paper's rows are not an accepted paper of the venue's tracks; None when they are one."""
    decisions = [_text(row.get("decision")) for row in rows]
    if any(venues.decision_rejected(d) for d in decisions) and not any(venues.decision_status(d) for d in decisions):
        return f"decision {next(d for d in decisions if venues.decision_rejected(d))!r}"
    urls = _sourceurls(rows)
    if not urls:
        return "no `sourceurl` (not from an OpenReview group of the venue)"
    if any(_own_track(url, conference, year) for url in urls):
        return None
    group = venues.source_group(urls[0])
    if group and venues.not_accepted(group):
        return f"not accepted ({group.rsplit('/', 1)[-1]})"
    other = venues.parse_group(group or "")
    if other:
        return f"from {group}: a paper of {other[0].name} {other[1]}, not of {conference} {year}"
    where = group or urlparse(urls[0]).netloc or urls[0]
    return f"from {where}: not one of the venue's tracks (a journal track, a CMT-hosted track or another list)"


def _sourceurls(rows: list[Row]) -> list[str]:
    """The rows' `sourceurl`s that are text."""
    return [url.strip() for row in rows if isinstance(url := row.get("sourceurl"), str) and url.strip()]


def row_key(row: Row) -> tuple[str, Any]:
    """What names a row in remarks and provenance: its event id."""
    return "row", row.get("id")


def _page(row: Row, base: str) -> str | None:
    """The row's page on the site, as an absolute URL."""
    page = row.get("virtualsite_url")
    if not isinstance(page, str) or not page.strip():
        return None
    return base + page.strip() if page.startswith("/") else urljoin(base + "/", page.strip())


def _slot(row: Row, base: str) -> Slot:
    return Slot(
        name=_text(row.get("session")),
        kind=_text(row.get("eventtype")) or "Poster",
        start=_text(row.get("starttime")) or None,
        end=_text(row.get("endtime")) or None,
        room=_text(row.get("room_name")) or None,
        url=_page(row, base),
    )


def _text(value: Any) -> str:
    """A site string, HTML entities undone (`Texas A&amp;M` → `Texas A&M`), whitespace collapsed."""
    return " ".join(text.unescape_html(value).split()) if isinstance(value, str) else ""


def forum_id(url: Any) -> str | None:
    """The OpenReview forum id in a `paper_url` such as `https://openreview.net/forum?id=7HVADbW8fh`."""
    m = _FORUM_ID.search(url) if isinstance(url, str) else None
    return m[1] if m else None


def html_to_text(value: str) -> str:
    """An abstract in the site's HTML as plain text: paragraphs as blank lines, formatting tags dropped.

    Only known tags are removed, so literal tokens such as `<BOS>` in an abstract survive.
    """
    if "<" not in value and "&" not in value:
        return value.strip()
    s = _BLOCK_BREAK.sub("\n\n", value)
    s = _LINE_BREAK.sub("\n", s)
    s = _TAG.sub("", s)
    s = text.unescape_html(s)
    return re.sub(r"\n{3,}", "\n\n", s).strip()
