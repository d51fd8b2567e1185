"""`icml-bot fetch` of an ICML-2026-sized conference from the local fakes, beside `icml-bot index` of the same papers.

Run: python -m bench fetch [--papers N]   (default 6,841: 6,628 main-track papers, 168 of them orals with an
extra site row, and 213 position papers, as ICML 2026 has; about 7,000 site records and 6,800 OpenReview notes)

Both fakes (tests/support/conference_fakes.py) serve on 127.0.0.1, 1,000 records a page, with abstracts of about
1,300 characters. The baseline indexes the very records the fetch wrote, as a plain JSON Lines file, into a fresh
index in the same process: the difference is what fetching, paging, joining orals and merging cost. Target: the
whole fetch and index under 60 s plus network time (here the network is a loopback, so it is all counted).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bot.papers import fetching as run
from bot.papers import index
from bot.papers.fetch.http import JsonClient, RetryPolicy
from bot.papers.fetch.openreview import Credentials
from bot.papers.venues import parse_venue
from tests.support.conference_fakes import USERS, FakeOpenReview, FakeSite, make_conference, serve

TARGET_SECONDS = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=6841, help="accepted papers (default: ICML 2026's 6,841)")
    args = parser.parse_args()
    position = round(args.papers * 213 / 6841)
    conference = make_conference(
        posters=args.papers - position,
        orals=round(args.papers * 168 / 6841),
        spotlights=round(args.papers * 367 / 6841),
        position=position,
        site_only=1,
        openreview_only=1,
        rejected=20,
    )
    user, password = next(iter(USERS.items()))
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        with serve(FakeSite(conference, page_size=1000)) as site, serve(FakeOpenReview(conference)) as openreview:
            site.gzip = openreview.gzip = True
            settings = run.Settings(
                cache_dir=tmp / "cache",
                site_url=site.url,
                openreview_url=openreview.url,
                credentials=Credentials(user, password),
                client=JsonClient(retry=RetryPolicy(sleep=lambda s: None)),
            )
            started = time.perf_counter()
            report = run.fetch_venues(tmp / "fetched.db", [parse_venue("icml2026")], settings)
            total = time.perf_counter() - started
            requests = len(site.requests) + len(openreview.requests)
        if report.index is None:
            sys.exit("the fetch delivered nothing: " + report.nothing_usable())
        fetched = Path(report.venues[0].file or "")
        plain = tmp / "icml2026.jsonl"
        shutil.copy(fetched, plain)
        started = time.perf_counter()
        db = index.connect(tmp / "baseline.db")
        baseline = index.load(db, [plain])
        db.conn.close()
        baseline_seconds = time.perf_counter() - started
        size_mb = fetched.stat().st_size / 2**20

    site_source, or_source = report.sources
    print(f"served: {len(conference.rows)} site records, {len(conference.notes)} OpenReview notes, {requests} requests")
    print(f"{'step':42} {'seconds':>8}")
    print(f"{'site: pages, oral rows joined':42} {site_source.seconds:>8.1f}")
    print(f"{'OpenReview: login, pages':42} {or_source.seconds:>8.1f}")
    print(f"{'index: merged list (' + f'{size_mb:.1f} MB' + ')':42} {report.index.seconds:>8.1f}")
    print(f"{'icml-bot fetch, in all':42} {total:>8.1f}")
    print(f"{'baseline: icml-bot index of the same list':42} {baseline_seconds:>8.1f}")
    verdict = "ok" if total < TARGET_SECONDS else f"over the {TARGET_SECONDS:.0f} s target"
    print(
        f"{report.index.papers} papers indexed by the fetch, {baseline.papers} by the baseline; fetch / baseline = "
        f"{total / baseline_seconds:.2f}; target {TARGET_SECONDS:.0f} s: {verdict}"
    )


if __name__ == "__main__":
    main()
