"""The fetchers' HTTP client against a local fake: retries honour rate limits, errors are one line, pages cache.

Waits are recorded, never slept: the retry policy's `sleep` is a list's append.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.papers.fetch.http import (
    AuthError,
    BadJsonError,
    HttpStatusError,
    JsonClient,
    NotJsonError,
    PageCache,
    RateLimitedError,
    RetryPolicy,
    UnreachableError,
    retry_after,
)
from tests.support.conference_fakes import FakeSite, Fault, make_conference, serve

PAGE = "/static/virtual/data/icml-2026-orals-posters.json"
NOW = 1_780_000_000.0  # a fixed "now" for the clock: 2026-05-28T20:26:40Z


@pytest.fixture
def site() -> Iterator[FakeSite]:
    with serve(FakeSite(make_conference(posters=5, orals=0, position=0), page_size=100)) as fake:
        yield fake


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var, raising=False)


def client(waits: list[float], attempts: int = 6, max_wait: float = 300.0) -> JsonClient:
    return JsonClient(
        timeout=5, retry=RetryPolicy(attempts=attempts, max_wait=max_wait, sleep=waits.append, clock=lambda: NOW)
    )


def test_a_page_arrives_as_json(site: FakeSite) -> None:
    value, cached = client([]).get(site.url + PAGE)
    assert (value["count"], len(value["results"]), cached) == (5, 5, False)


def test_gzip_answers_are_decoded(site: FakeSite) -> None:
    site.gzip = True
    value, _ = client([]).get(site.url + PAGE)
    assert len(value["results"]) == 5


def test_429_waits_for_ratelimit_reset_then_retries(site: FakeSite) -> None:
    site.faults.append(Fault("orals", status=429, headers={"ratelimit-reset": "7"}, body=b'{"name": "RateLimitError"}'))
    waits: list[float] = []
    value, _ = client(waits).get(site.url + PAGE)
    assert waits == [7.0]
    assert len(value["results"]) == 5
    assert len(site.paths("orals")) == 2


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"ratelimit-reset": "12"}, None, 12.0),
        ({"retry-after": "3"}, None, 3.0),
        ({"retry-after": time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(NOW + 30))}, None, 30.0),
        ({}, {"name": "RateLimitError", "details": {"resetTime": "2026-05-28T20:27:00Z"}}, 20.0),
        ({}, {"name": "RateLimitError", "message": "Too many requests: try again in 45 seconds"}, 45.0),
        ({"x-ratelimit-reset": str(int(NOW + 20))}, None, 20.0),
        ({}, {"name": "RateLimitError"}, None),
    ],
)
def test_retry_after_reads_every_form_a_server_uses(
    headers: dict[str, str], body: object, expected: float | None
) -> None:
    assert retry_after(headers, body, NOW) == expected


def test_429_asking_for_too_long_a_wait_is_one_line(site: FakeSite) -> None:
    site.faults.append(Fault("orals", status=429, headers={"retry-after": "3600"}))
    waits: list[float] = []
    with pytest.raises(RateLimitedError) as err:
        client(waits, max_wait=120).get(site.url + PAGE)
    assert waits == []
    assert str(err.value).startswith(f"{site.url}{PAGE} is rate limited (HTTP 429) and asks to wait 3600 s")
    assert "run `icml-bot fetch` again later" in str(err.value)


def test_5xx_backs_off_then_succeeds(site: FakeSite) -> None:
    site.faults.append(Fault("orals", status=503, times=2))
    waits: list[float] = []
    value, _ = client(waits).get(site.url + PAGE)
    assert waits == [1.0, 2.0]
    assert len(value["results"]) == 5


def test_5xx_every_time_is_one_line_naming_the_url(site: FakeSite) -> None:
    site.faults.append(Fault("orals", status=502, times=99))
    waits: list[float] = []
    with pytest.raises(HttpStatusError) as err:
        client(waits, attempts=3).get(site.url + PAGE)
    assert str(err.value) == (
        f"{site.url}{PAGE} answered HTTP 502 Bad Gateway 3 times; run `icml-bot fetch` again later: pages fetched "
        "so far are kept and not downloaded again"
    )
    assert waits == [1.0, 2.0]


def test_a_dropped_connection_is_retried(site: FakeSite) -> None:
    site.faults.append(Fault("orals", kind="drop"))
    waits: list[float] = []
    value, _ = client(waits).get(site.url + PAGE)
    assert waits == [1.0]
    assert len(value["results"]) == 5


def test_an_unreachable_server_is_one_line() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed when the block ends: nothing listens there
    url = f"http://127.0.0.1:{port}{PAGE}"
    with pytest.raises(UnreachableError) as err:
        client([], attempts=2).get(url)
    assert str(err.value).startswith(f"cannot reach {url} (")
    assert "after 2 tries" in str(err.value)


def test_an_html_page_where_json_was_expected_names_the_page(site: FakeSite) -> None:
    site.faults.append(Fault("orals", kind="html"))
    waits: list[float] = []
    with pytest.raises(NotJsonError) as err:
        client(waits).get(site.url + PAGE)
    assert str(err.value).startswith(
        f'{site.url}{PAGE} answered with an HTML page ("Verifying your browser") where JSON was expected: '
    )
    assert waits == []  # a login wall does not go away by retrying


def test_a_truncated_page_is_fetched_again(site: FakeSite) -> None:
    site.faults.append(Fault("orals", kind="truncate"))
    waits: list[float] = []
    value, _ = client(waits).get(site.url + PAGE)
    assert len(value["results"]) == 5
    assert waits == [1.0]


def test_a_page_truncated_every_time_is_one_line(site: FakeSite) -> None:
    site.faults.append(Fault("orals", kind="truncate", times=99))
    with pytest.raises(BadJsonError) as err:
        client([], attempts=2).get(site.url + PAGE)
    message = str(err.value)
    assert message.startswith(f"{site.url}{PAGE} sent JSON that does not parse at byte ")
    assert "the page was probably cut off on the way) 2 times" in message
    assert "\n" not in message


def test_403_names_the_servers_error_and_what_to_do(site: FakeSite) -> None:
    body = json.dumps({"name": "ChallengeRequiredError", "message": "Challenge required"}).encode()
    site.faults.append(Fault("orals", status=403, body=body))
    with pytest.raises(AuthError) as err:
        client([]).get(site.url + PAGE)
    assert str(err.value).startswith(f"{site.url}{PAGE} answered HTTP 403 ChallengeRequiredError: ")


def test_404_is_not_retried(site: FakeSite) -> None:
    waits: list[float] = []
    url = site.url + "/static/virtual/data/icml-2031-orals-posters.json"
    with pytest.raises(HttpStatusError) as err:
        client(waits).get(url)
    assert err.value.status == 404
    assert str(err.value).startswith(f"{url} answered HTTP 404 Not Found")
    assert waits == []


def test_cached_pages_are_not_fetched_again(site: FakeSite, tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "pages")
    first, cached_first = client([]).get(site.url + PAGE, cache=cache)
    again, cached_again = client([]).get(site.url + PAGE, cache=cache)
    assert (cached_first, cached_again) == (False, True)
    assert again == first
    assert len(site.paths("orals")) == 1
    assert not list((tmp_path / "pages").glob("*.part"))


def test_a_damaged_or_old_cached_page_is_fetched_again(site: FakeSite, tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "pages", max_age=3600)
    client([]).get(site.url + PAGE, cache=cache)
    cache.path(site.url + PAGE).write_text('{"count": 5, "resu')  # cut off by a full disk
    value, cached = client([]).get(site.url + PAGE, cache=cache)
    assert (len(value["results"]), cached) == (5, False)
    old = time.time() - 7200
    os.utime(cache.path(site.url + PAGE), (old, old))
    _, cached = client([]).get(site.url + PAGE, cache=cache)
    assert cached is False
    assert len(site.paths("orals")) == 3


def test_errors_are_never_cached(site: FakeSite, tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "pages")
    site.faults.append(Fault("orals", kind="html"))
    with pytest.raises(NotJsonError):
        client([]).get(site.url + PAGE, cache=cache)
    assert cache.get(site.url + PAGE) is None
