"""JSON over HTTP for the fetchers: timeouts, retries that honour rate limits, one-line errors, a page cache."""

from __future__ import annotations

import contextlib
import email.utils
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

USER_AGENT = "icml-bot (+https://github.com/; paper search for Slack)"
RESUME_HINT = "run `icml-bot fetch` again later: pages fetched so far are kept and not downloaded again"
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_WAIT_IN_TEXT = re.compile(r"(?:in|after|wait)\s+(\d+(?:\.\d+)?)\s*(?:s\b|sec|second)", re.IGNORECASE)

# A JSON value as json.loads returns it.
Json = Any


class FetchError(Exception):
    """A source could not be fetched; str() is one line naming the URL and what to do."""

    def __init__(self, url: str, message: str, status: int | None = None, body: Json = None) -> None:
        super().__init__(message)
        self.url, self.status, self.body = url, status, body


class NotJsonError(FetchError):
    """An HTML page (a login wall, a bot check such as "Verifying your browser") where JSON was expected."""


class BadJsonError(FetchError):
    """JSON that does not parse, usually a page cut off on the way."""


class AuthError(FetchError):
    """HTTP 401 or 403: the server wants a login (OpenReview: ChallengeRequiredError)."""


class HttpStatusError(FetchError):
    """Any other HTTP error status, after retries where retrying makes sense."""


class RateLimitedError(FetchError):
    """HTTP 429 asking for a longer wait than we accept, or still 429 after every retry."""


class UnreachableError(FetchError):
    """No HTTP answer at all (refused, reset, timed out, DNS) after every retry."""


@dataclass
class RetryPolicy:
    """How often and how long to retry; `sleep` and `clock` are injectable so tests never wait."""

    attempts: int = 6
    backoff: float = 1.0  # first wait after a 5xx or a dropped connection; doubled each time
    max_backoff: float = 30.0
    # The longest wait a rate limit may ask for; longer is an error, not a silent hang
    max_wait: float = 300.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time
    # Every wait taken, for the report and for tests
    waits: list[float] = field(default_factory=list)

    def wait(self, seconds: float) -> None:
        """Sleep, and remember it."""
        self.waits.append(seconds)
        self.sleep(seconds)

    def backoff_for(self, attempt: int) -> float:
        """Exponential backoff for the attempt that just failed (1-based)."""
        return float(min(self.max_backoff, self.backoff * 2.0 ** (attempt - 1)))


class PageCache:
    """Pages already downloaded, one file each, so a fetch that stopped half way resumes where it stopped.

    Writes are atomic (temporary file, then rename): a kill never leaves half a page. Pages older than `max_age`
    are fetched again.
    """

    def __init__(self, folder: Path, max_age: float = 24 * 3600, clock: Callable[[], float] = time.time) -> None:
        self.folder, self.max_age, self.clock = folder, max_age, clock

    def path(self, url: str) -> Path:
        """The file that holds a URL's page."""
        return self.folder / f"{hashlib.sha256(url.encode()).hexdigest()[:32]}.json"

    def get(self, url: str) -> bytes | None:
        """The cached page, or None if there is none or it is too old."""
        path = self.path(url)
        try:
            if self.clock() - path.stat().st_mtime > self.max_age:
                return None
            return path.read_bytes()
        except OSError:
            return None

    def put(self, url: str, data: bytes) -> None:
        """Keep a page (atomically)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, self.path(url))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def clear(self) -> None:
        """Forget every page (after the fetched list was indexed)."""
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Hints:
    """What to tell the admin when a source answers with a login wall or refuses access."""

    html: str = "check that the URL serves the JSON file (a proxy or a login page may be in the way)"
    auth: str = "the server refuses access; check the URL"
    other: str = "check the URL"


class JsonClient:
    """GET and POST JSON with urllib (no extra dependency): gzip, timeouts, retries, clear errors."""

    def __init__(
        self,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        opener: urllib.request.OpenerDirector | None = None,
    ) -> None:
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.opener = opener or urllib.request.build_opener()
        self.requests = 0

    def get(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        cache: PageCache | None = None,
        hints: Hints | None = None,
    ) -> tuple[Json, bool]:
        """The JSON at `url` and whether it came from the cache; only valid JSON is ever cached."""
        if cache is not None and (data := cache.get(url)) is not None:
            try:
                return json.loads(data), True
            except ValueError:
                pass  # a damaged cache file: fetch the page again
        value, data = self._request("GET", url, None, headers or {}, hints or Hints())
        if cache is not None:
            cache.put(url, data)
        return value, False

    def post(
        self, url: str, body: Json, *, headers: Mapping[str, str] | None = None, hints: Hints | None = None
    ) -> Json:
        """POST a JSON body and return the JSON answer (never cached)."""
        return self._request("POST", url, json.dumps(body).encode(), headers or {}, hints or Hints())[0]

    def _request(
        self, method: str, url: str, body: bytes | None, headers: Mapping[str, str], hints: Hints
    ) -> tuple[Json, bytes]:
        for attempt in range(1, self.retry.attempts + 1):
            got = self._attempt(method, url, body, headers, hints, attempt)
            if got is not None:
                return got
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _attempt(
        self, method: str, url: str, body: bytes | None, headers: Mapping[str, str], hints: Hints, attempt: int
    ) -> tuple[Json, bytes] | None:
        """One try: the JSON and its bytes, or None after waiting to try again; raises a FetchError on the last
        try, or when trying again cannot help."""
        policy = self.retry
        last = attempt == policy.attempts
        try:
            status, reply_headers, data = self._once(method, url, body, headers)
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            if last:
                reason = getattr(exc, "reason", None) or exc
                raise UnreachableError(
                    url,
                    f"cannot reach {url} ({reason}) after {attempt} tries: check the network, a proxy "
                    f"(HTTPS_PROXY) or the URL; {RESUME_HINT}",
                ) from None
            policy.wait(policy.backoff_for(attempt))
            return None
        if status == 429 or status >= 500:
            policy.wait(self._retry_wait(url, status, reply_headers, data, attempt))
            return None
        _refuse(url, status, reply_headers, data, hints)
        try:
            return json.loads(data), data
        except ValueError as exc:
            if last:
                where = f" at byte {exc.pos} of {len(data)}" if isinstance(exc, json.JSONDecodeError) else ""
                raise BadJsonError(
                    url,
                    f"{url} sent JSON that does not parse{where} ({getattr(exc, 'msg', exc)}; the page was "
                    f"probably cut off on the way) {attempt} times; {RESUME_HINT}",
                ) from None
            policy.wait(policy.backoff_for(attempt))
            return None

    def _retry_wait(self, url: str, status: int, reply_headers: Mapping[str, str], data: bytes, attempt: int) -> float:
        """How long to wait after a rate limit (429: what it asks) or a server error (5xx: the backoff); raises when
        this was the last try or the wait asked for is too long."""
        policy = self.retry
        last = attempt == policy.attempts
        if status >= 500:
            if last:
                raise HttpStatusError(
                    url, f"{url} answered HTTP {status} {_reason(status)} {attempt} times; {RESUME_HINT}", status
                )
            return policy.backoff_for(attempt)
        wait = retry_after(reply_headers, _maybe_json(data), policy.clock())
        if wait is not None and wait > policy.max_wait:
            raise RateLimitedError(
                url,
                f"{url} is rate limited (HTTP 429) and asks to wait {wait:.0f} s, more than "
                f"{policy.max_wait:.0f} s; {RESUME_HINT}",
            )
        if last:
            raise RateLimitedError(url, f"{url} is still rate limited (HTTP 429) after {attempt} tries; {RESUME_HINT}")
        return policy.backoff_for(attempt) if wait is None else max(wait, 0.0)

    def _once(
        self, method: str, url: str, body: bytes | None, headers: Mapping[str, str]
    ) -> tuple[int, Mapping[str, str], bytes]:
        """One HTTP exchange: status, headers (lower-case names) and the decoded body; raises on no answer."""
        self.requests += 1
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("User-Agent", USER_AGENT)
        request.add_header("Accept", "application/json")
        request.add_header("Accept-Encoding", "gzip")
        if body is not None:
            request.add_header("Content-Type", "application/json")
        for name, value in headers.items():
            request.add_header(name, value)
        try:
            response = self.opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as err:
            response = err
        with response:
            data = response.read()  # IncompleteRead (a cut connection) propagates and is retried
            status = response.status if response.status is not None else 0
            reply = {k.lower(): v for k, v in response.headers.items()}
        if reply.get("content-encoding") == "gzip":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as exc:
                raise http.client.HTTPException(f"damaged gzip body: {exc}") from None
        return status, reply, data


def retry_after(headers: Mapping[str, str], body: Json, now: float) -> float | None:
    """Seconds a rate-limited server asks us to wait: `ratelimit-reset`, `Retry-After`, or its JSON error's time."""
    for name in ("ratelimit-reset", "retry-after", "x-ratelimit-reset"):
        value = headers.get(name)
        if value:
            seconds = _seconds(value.strip(), now)
            if seconds is not None:
                return seconds
    if isinstance(body, dict):
        details = body["details"] if isinstance(body.get("details"), dict) else {}
        for value in (details.get("resetTime"), details.get("retryAfter"), body.get("retryAfter")):
            if isinstance(value, int | float | str) and (seconds := _seconds(str(value), now)) is not None:
                return seconds
        m = _WAIT_IN_TEXT.search(str(body.get("message") or ""))
        if m:
            return float(m[1])
    return None


def _seconds(value: str, now: float) -> float | None:
    """A delay in seconds, an epoch time (s or ms), an ISO time or an HTTP date, as seconds from `now`."""
    try:
        number = float(value)
    except ValueError:
        pass
    else:
        if number > 1e12:  # epoch milliseconds
            return max(0.0, number / 1000 - now)
        if number > 1e9:  # epoch seconds
            return max(0.0, number - now)
        return max(0.0, number)
    try:
        return max(0.0, datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() - now)
    except ValueError:
        pass
    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - now)
    except (TypeError, ValueError):
        return None


def _maybe_json(data: bytes) -> Json:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _error_name(data: bytes, message: bool = False) -> str:
    """The `name` (and with `message`, the message) of a JSON error body such as OpenReview's."""
    body = _maybe_json(data)
    if not isinstance(body, dict):
        return ""
    name = str(body.get("name") or "")
    if not message:
        return name
    text = body.get("message")
    return " ".join(f"{name} {text if isinstance(text, str) else ''}".split())[:200]


def _looks_like_html(headers: Mapping[str, str], data: bytes) -> bool:
    if "html" in headers.get("content-type", ""):
        return True
    return data.lstrip()[:15].lower().startswith((b"<!doctype", b"<html"))


def _reason(status: int) -> str:
    return http.client.responses.get(status, "")


def _refuse(url: str, status: int, reply_headers: Mapping[str, str], data: bytes, hints: Hints) -> None:
    """Raise for an answer that no retry can mend: refused credentials, another 4xx, an HTML page for JSON."""
    if status in (401, 403):
        name = _error_name(data)
        raise AuthError(
            url,
            f"{url} answered HTTP {status} {name or _reason(status)}: {hints.auth}",
            status,
            _maybe_json(data),
        )
    if status >= 400:
        detail = _error_name(data, message=True)
        raise HttpStatusError(
            url,
            f"{url} answered HTTP {status} {_reason(status)}{': ' + detail if detail else ''}: {hints.other}",
            status,
            _maybe_json(data),
        )
    if _looks_like_html(reply_headers, data):
        title = _TITLE.search(data[:65536])
        seen = f' ("{" ".join(title[1].decode("utf-8", "replace").split())[:80]}")' if title else ""
        raise NotJsonError(url, f"{url} answered with an HTML page{seen} where JSON was expected: {hints.html}")
