"""Local fakes of the two official paper sources, built from the shapes recorded in issue 10.

`FakeSite` plays the conference site's virtual-site JSON (`/static/virtual/data/<conf>-<year>-orals-posters.json`
paged through `next`, and from 2026 `<conf>-<year>-abstracts.json`); `FakeOpenReview` plays API v2 (`POST /login`,
`GET /notes?content.venueid=…&limit=…&offset=…&count=true`, at most 1000 a page, a browser check or HTTP 403
ChallengeRequiredError without a login). Both bind to 127.0.0.1 on a free port, record every request, and get
things wrong on request (`Fault`): 5xx, 429 with `ratelimit-reset`, a truncated page, an HTML page, a hang.

`make_conference()` generates one conference both fakes serve: posters, orals (an extra site row linked through
`related_events_ids`), position papers, papers only one source has, HTML-escaped names and institutions.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.sources import seed_abstracts

USERS = {"admin@example.org": "correct horse battery staple"}
CHALLENGE_PAGE = (
    b"<!DOCTYPE html><html><head><title>Verifying your browser</title></head>"
    b"<body><p>Checking your browser before accessing openreview.net.</p></body></html>"
)
INSTITUTIONS = ("Texas A&amp;M University", "KAIST", "Universit&eacute; de Montr&eacute;al", "ETH Z&uuml;rich")


@dataclass
class Paper:
    """One generated paper, as the tests expect to find it after a fetch."""

    number: int
    title: str
    abstract: str  # what OpenReview has (the site's version differs by a marker)
    authors: list[str]
    institutions: list[str]
    forum: str | None
    poster_id: int
    status: str  # Oral, Spotlight or Poster
    track: str  # main or position
    oral_id: int | None = None
    on_site: bool = True
    on_openreview: bool = True


@dataclass
class Conference:
    """What both fakes serve: site rows (posters and oral rows), the abstracts file, OpenReview notes."""

    conf: str
    year: int
    papers: list[Paper]
    rows: list[dict[str, Any]]
    abstracts: dict[str, str]
    notes: list[dict[str, Any]]
    # group id → its title, for `/groups?parent=` listings
    titles: dict[str, str] = field(default_factory=dict)

    def paper(self, number: int) -> Paper:
        """A generated paper by its number."""
        return next(p for p in self.papers if p.number == number)


SITE_MARK = "(Site version.)"


def make_conference(
    posters: int = 30,
    orals: int = 3,
    spotlights: int = 4,
    position: int = 4,
    site_only: int = 1,
    openreview_only: int = 1,
    rejected: int = 2,
    year: int = 2026,
    conf: str = "icml",
    abstract_chars: int | None = None,
) -> Conference:
    """A conference of `posters` main-track papers (the first `orals` of them orals, the next `spotlights`
    spotlights), `position` position papers, a few papers only one source lists, and rejected notes."""
    texts = seed_abstracts()
    name = {"icml": "ICML", "neurips": "NeurIPS", "iclr": "ICLR"}[conf]
    host = f"{conf}.cc"
    # forum ids are unique
    prefix = "Fo" if (conf, year) == ("icml", 2026) else f"{conf[0].upper()}{year % 10}"
    papers: list[Paper] = []
    rows: list[dict[str, Any]] = []
    abstracts: dict[str, str] = {}
    notes: list[dict[str, Any]] = []
    total = posters + position
    for n in range(total):
        track = "main" if n < posters else "position"
        status = "Oral" if n < orals else "Spotlight" if n < orals + spotlights else "Poster"
        base = texts[n % len(texts)]
        if abstract_chars:
            base = (base + " ") * (abstract_chars // len(base) + 1)
            base = base[:abstract_chars]
        abstract = f"Study {n} of {total} on topic {n * 7919 % 1000}. {base}"
        first = f"O&#39;Neil {n}" if n % 5 == 0 else f"Ada Author{n}"
        authors_raw = [first, f"Grace Coauthor{n}", f"Alan Third{n}"]
        insts_raw = [INSTITUTIONS[(n + k) % len(INSTITUTIONS)] for k in range(3)]
        forum = f"{prefix}{n:07d}x" if not (site_only and n == total - 1) else None
        paper = Paper(
            number=n,
            title=f"Generated Paper {n}: {' '.join(base.split()[:6])}",
            abstract=abstract,
            authors=[a.replace("&#39;", "'") for a in authors_raw],
            institutions=[i.replace("&amp;", "&").replace("&eacute;", "é").replace("&uuml;", "ü") for i in insts_raw],
            forum=forum,
            poster_id=100_000 + n,
            status=status,
            track=track,
            on_openreview=forum is not None,
        )
        papers.append(paper)
        group = f"{name}.cc/{year}/{'Conference' if track == 'main' else 'Position_Paper_Track'}"
        decision = {"Oral": "Accept (spotlight)", "Spotlight": "Accept (spotlight)", "Poster": "Accept (regular)"}
        if year < 2026:
            decision = {"Oral": "Accept (oral)", "Spotlight": "Accept (spotlight)", "Poster": "Accept (poster)"}
        site_abstract = f"<p>{abstract.replace('.', '.</p><p>', 1)} {SITE_MARK}</p>"
        row = _row(
            paper, authors_raw, insts_raw, host, year, group, decision[status], "Poster", f"Poster Session {n % 4 + 1}"
        )
        if year >= 2026:
            abstracts[str(paper.poster_id)] = site_abstract
        else:
            row["abstract"] = site_abstract
        rows.append(row)
        if status == "Oral" and year >= 2026:
            paper.oral_id = 200_000 + n
            oral = _row(
                paper, authors_raw, insts_raw, host, year, group, decision[status], "Oral", f"Oral {n % 3 + 1}A"
            )
            oral.update(id=paper.oral_id, virtualsite_url=f"/virtual/{year}/oral/{paper.oral_id}", paper_url="")
            oral["related_events_ids"] = [paper.poster_id]
            row["related_events_ids"] = [paper.oral_id]
            abstracts[str(paper.oral_id)] = site_abstract
            rows.append(oral)
        if forum:
            notes.append(_note(paper, name, year, group, status))
    for k in range(openreview_only):
        n = total + k
        paper = Paper(
            number=n,
            title=f"OpenReview Only Paper {k}",
            abstract=f"Only OpenReview lists this one. {texts[n % len(texts)]}",
            authors=[f"Solo Author{n}"],
            institutions=[],
            forum=f"{prefix}{n:07d}x",
            poster_id=0,
            status="Poster",
            track="main",
            on_site=False,
        )
        papers.append(paper)
        notes.append(_note(paper, name, year, f"{name}.cc/{year}/Conference", "Poster"))
    for k in range(rejected):
        rejected_paper = Paper(
            k, f"Rejected {k}", f"Rejected work {k}. {texts[0]}", ["X"], [], f"Rj{k:07d}x", 0, "", ""
        )
        notes.append(_note(rejected_paper, name, year, f"{name}.cc/{year}/Conference/Rejected_Submission", "Poster"))
    return Conference(conf, year, papers, rows, abstracts, notes)


def _row(
    paper: Paper,
    authors: list[str],
    institutions: list[str],
    host: str,
    year: int,
    group: str,
    decision: str,
    eventtype: str,
    session: str,
) -> dict[str, Any]:
    """A site record in the shape issue 10 recorded (a NeurIPS 2025 record; the same software serves ICML)."""
    return {
        "id": paper.poster_id,
        "uid": f"{paper.poster_id:032x}",
        "name": paper.title.replace("&", "&amp;"),
        "authors": [
            {
                "id": 400_000 + paper.number * 10 + k,
                "fullname": author,
                "url": f"http://{host}/api/miniconf/users/{400_000 + paper.number * 10 + k}?format=json",
                "institution": institutions[k],
            }
            for k, author in enumerate(authors)
        ],
        "abstract": "",
        "topic": "General Machine Learning-&gt;Representation Learning",
        "keywords": [],
        "decision": decision,
        "session": session,
        "eventtype": eventtype,
        "event_type": "{location} Poster",
        "room_name": "Exhibit Hall C,D,E" if eventtype == "Poster" else "Hall A",
        "virtualsite_url": f"/virtual/{year}/poster/{paper.poster_id}",
        "url": None,
        "sourceid": paper.number,
        "sourceurl": f"https://openreview.net/group?id={group}",
        "starttime": f"{year}-07-1{paper.number % 5}T10:30:00+09:00",
        "endtime": f"{year}-07-1{paper.number % 5}T12:00:00+09:00",
        "paper_url": f"https://openreview.net/forum?id={paper.forum}" if paper.forum else "",
        "poster_position": f"#{1000 + paper.number}",
        "related_events_ids": [],
    }


def _note(paper: Paper, name: str, year: int, venueid: str, status: str) -> dict[str, Any]:
    """An API v2 note in the shape issue 10 recorded."""
    word = {"Oral": "oral", "Spotlight": "spotlight", "Poster": "regular"}[status]
    venue = f"{name} {year} {'Position Paper Track ' if 'Position' in venueid else ''}{word}"
    pdf_hash = f"{paper.number:040x}"
    value = {
        "title": paper.title,
        "authors": paper.authors,
        "authorids": [f"~{a.replace(' ', '_')}1" for a in paper.authors],
        "abstract": paper.abstract,
        "keywords": ["generated", f"topic {paper.number % 3}"],
        "primary_area": "deep_learning",
        "venue": venue,
        "venueid": venueid,
        "pdf": f"/pdf/{pdf_hash}.pdf",
        "TLDR": f"TL;DR of paper {paper.number}.",
        "link_to_code": f"https://github.com/example/paper{paper.number}",
        "_bibtex": f"@inproceedings{{paper{paper.number},\n  title={{{paper.title}}}\n}}",
    }
    return {
        "id": paper.forum,
        "forum": paper.forum,
        "number": paper.number + 1,
        "license": "CC BY 4.0",
        "content": {k: {"value": v} for k, v in value.items()},
        "cdate": 1737916211241,
        "mdate": 1753291836324,
        "pdate": 1746115429138,
    }


# ---------------------------------------------------------------------------------------------- the servers


@dataclass
class Fault:
    """Get one kind of request wrong `times` times: the first request whose path and query contain `match`.

    kind: `status` (answer `status` with `body`, `headers`), `truncate` (the real page cut in half), `html` (the
    browser-check page with HTTP 200), `hang` (wait `seconds` before answering), `drop` (close without answering).
    """

    match: str
    kind: str = "status"
    status: int = 503
    body: bytes = b'{"name": "Error", "message": "Service Unavailable"}'
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    seconds: float = 0.0


@dataclass
class Request:
    """One request as the fake received it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


class _Fake:
    """A threaded HTTP server on 127.0.0.1 that records requests and applies faults; subclasses answer."""

    def __init__(self) -> None:
        # compress answers for clients that accept gzip, as the real site's CDN does
        self.gzip = False
        self.requests: list[Request] = []
        self.faults: list[Fault] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that hung up (a killed fetch) is part of the tests, not an error

        self._stopping = threading.Event()
        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def start(self) -> _Fake:
        """Start serving."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (and end any hang at once)."""
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()

    def paths(self, contains: str = "") -> list[str]:
        """Path and query of every request received, in order (those containing `contains`)."""
        with self._lock:
            return [
                r.path + ("?" + _qs(r.query) if r.query else "")
                for r in self.requests
                if contains in r.path + _qs(r.query)
            ]

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        split = urlsplit(handler.path)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        request = Request(method, split.path, query, {k.lower(): v for k, v in handler.headers.items()}, body)
        with self._lock:
            self.requests.append(request)
            fault = next((f for f in self.faults if f.times > 0 and f.match in split.path + "?" + split.query), None)
            if fault:
                fault.times -= 1
        if fault and fault.kind == "hang":
            self._stopping.wait(fault.seconds)
        if fault and fault.kind == "drop":
            handler.close_connection = True
            return
        if fault and fault.kind == "status":
            _send(handler, fault.status, fault.body, "application/json", fault.headers)
            return
        if fault and fault.kind == "html":
            _send(handler, 200, CHALLENGE_PAGE, "text/html; charset=utf-8")
            return
        status, payload, headers = self.answer(request)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        if fault and fault.kind == "truncate":
            data = data[: len(data) // 2]
        content_type = "text/html; charset=utf-8" if isinstance(payload, bytes) else "application/json"
        if self.gzip and "gzip" in request.headers.get("accept-encoding", ""):
            data, headers = gzip.compress(data), {**headers, "Content-Encoding": "gzip"}
        _send(handler, status, data, content_type, headers)

    def answer(self, request: Request) -> tuple[int, Any, dict[str, str]]:
        """Status, JSON value (or HTML bytes) and extra headers for a request."""
        raise NotImplementedError


def _qs(query: dict[str, str]) -> str:
    return "&".join(f"{k}={v}" for k, v in query.items())


def _send(
    handler: BaseHTTPRequestHandler, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


class FakeSite(_Fake):
    """The conference site's virtual-site JSON, `page_size` rows a page, `next` as an absolute URL."""

    def __init__(
        self, conference: Conference, page_size: int = 10, count: int | None = None, next_host: str | None = None
    ) -> None:
        super().__init__()
        self.conference, self.page_size, self.count, self.next_host = conference, page_size, count, next_host

    def answer(self, request: Request) -> tuple[int, Any, dict[str, str]]:
        """The orals-posters pages and the abstracts file; 404 for anything else."""
        c = self.conference
        prefix = f"/static/virtual/data/{c.conf}-{c.year}-"
        if request.path == prefix + "abstracts.json" and c.abstracts:
            return 200, c.abstracts, {}
        if request.path != prefix + "orals-posters.json":
            return 404, {"detail": "Not found."}, {}
        page = int(request.query.get("page", "1"))
        rows = c.rows[(page - 1) * self.page_size : page * self.page_size]
        more = page * self.page_size < len(c.rows)
        host = self.next_host or self.url
        return (
            200,
            {
                "count": self.count if self.count is not None else len(c.rows),
                "next": f"{host}{request.path}?page={page + 1}" if more else None,
                "previous": f"{host}{request.path}?page={page - 1}" if page > 1 else None,
                "results": rows,
            },
            {},
        )


class FakeOpenReview(_Fake):
    """OpenReview API v2: login, notes paged by offset (at most `page_cap` a page), no data without a login.

    `no_login` says what a request without a valid token gets: `challenge` (the browser check, HTTP 200) or `403`
    (ChallengeRequiredError). `ratelimit_reset` is the `ratelimit-reset` header of every answer.
    """

    def __init__(self, conference: Conference, page_cap: int = 1000, no_login: str = "challenge") -> None:
        super().__init__()
        self.conference, self.page_cap, self.no_login = conference, page_cap, no_login
        self.tokens: set[str] = set()

    def answer(self, request: Request) -> tuple[int, Any, dict[str, str]]:
        """Login, notes, or the answers a client without a login gets."""
        if request.path == "/login" and request.method == "POST":
            body = json.loads(request.body or b"{}")
            if USERS.get(body.get("id")) != body.get("password"):
                return 400, {"name": "Error", "message": "Invalid username or password", "status": 400}, {}
            token = f"token-{len(self.tokens) + 1}"
            self.tokens.add(token)
            return 200, {"token": token, "user": {"id": body["id"], "profile": {"id": "~Admin_User1"}}}, {}
        if request.path not in ("/notes", "/groups"):
            return 404, {"name": "NotFoundError", "message": "Not Found"}, {}
        if request.headers.get("authorization", "").removeprefix("Bearer ") not in self.tokens:
            if self.no_login == "403":
                return 403, {"name": "ChallengeRequiredError", "message": "Challenge required", "status": 403}, {}
            return 200, CHALLENGE_PAGE, {}
        limit = int(request.query.get("limit", "1000"))
        if limit > 1000:
            return 400, {"name": "ValidationError", "message": "limit must be <= 1000", "status": 400}, {}
        offset = int(request.query.get("offset", "0"))
        if request.path == "/groups":
            return 200, {"groups": self._children(request.query.get("parent", ""))[offset : offset + limit]}, {}
        chosen = [
            n for n in self.conference.notes if n["content"]["venueid"]["value"] == request.query.get("content.venueid")
        ]
        page = chosen[offset : offset + min(limit, self.page_cap)]
        answer: dict[str, Any] = {"notes": page}
        if request.query.get("count") == "true":
            answer["count"] = len(chosen)
        return 200, answer, {"ratelimit-limit": "100", "ratelimit-remaining": "99", "ratelimit-reset": "60"}

    def _children(self, parent: str) -> list[dict[str, Any]]:
        """The groups right under `parent`: those the notes' venueids name and those given a title, as API v2 has
        them (the title wrapped as {"value": …})."""
        venueids = {n["content"]["venueid"]["value"] for n in self.conference.notes}
        ids = sorted(g for g in venueids | set(self.conference.titles) if g.rsplit("/", 1)[0] == parent)
        return [
            {
                "id": g,
                "parent": parent,
                **({"content": {"title": {"value": t}}} if (t := self.conference.titles.get(g)) else {}),
            }
            for g in ids
        ]


@contextmanager
def serve(fake: _Fake) -> Iterator[Any]:
    """A started fake, stopped afterwards."""
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()
