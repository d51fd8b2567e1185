"""`icml-bot`'s argument parser: one subcommand per job (bot/cli.py runs them; bot/docs.py writes Commands from
it)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

PUBLISH = """Put a built index in place of the served one (--db / ICML_BOT_DB): copy it beside it, then rename it
over it.

    Running bots answer all along: a query under way finishes on the old file, the next one reads the new file.
    Example, on each replica: icml-bot publish /srv/icml/incoming.db
    """
FETCH = """Fetch each VENUE's official list (conference site, OpenReview when logged in) and index it in one load.

    Example: `icml-bot fetch icml2026 icml2024`. Exit 0: everything arrived; 1: a source failed or stopped at a
    page, but what arrived was indexed (the summary names the failure); 2: nothing usable arrived, nothing indexed.
    """


def _http_url(value: str) -> str:
    if not value.startswith(("http://", "https://")) or len(value.split("/")) < 3 or not value.split("/")[2]:
        raise argparse.ArgumentTypeError(f"{value!r} is not an http(s) URL, e.g. https://icml.cc")
    return value.rstrip("/")


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return int(value)


def _worker_count(value: str) -> int:
    """`serve --workers`: a whole number, or "auto" for one per core this process may run on."""
    if value == "auto":
        return max(len(os.sched_getaffinity(0)), 1)
    return _positive(value)


def _index_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot index`'s arguments."""
    p.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="seed .txt, .jsonl, .json or .csv files or folders (default: the bundled seeds/)",
    )
    p.add_argument(
        "--workers",
        type=_positive,
        metavar="N",
        help="processes that clean the text of large files (default: one per core; 1 = none)",
    )


def _search_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot search`'s arguments."""
    p.add_argument("query", nargs="*", help='words, "phrases", -exclude, author:name, has:code, status:oral')
    p.add_argument(
        "--batch",
        metavar="FILE",
        help="one query per line ('-' for stdin); with --json, one JSON line per query, as --json prints one",
    )
    p.add_argument("--limit", type=int, default=5, help="how many results (default 5)")
    p.add_argument(
        "--json", action="store_true", help="print the answer as JSON: {query, corrected, notes, results, ...}"
    )
    p.add_argument("--blocks", action="store_true", help="print the Slack payload `/icml QUERY` would answer with")


def _stats_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot stats`'s arguments."""
    p.add_argument("--json", action="store_true", help="print JSON")


def _paper_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot paper`'s arguments."""
    p.add_argument("ref", help="paper id, OpenReview id or name")
    p.add_argument("--json", action="store_true", help="print the paper as JSON (every field the index holds)")


def _similar_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot similar`'s arguments."""
    p.add_argument("ref", help="paper id, OpenReview id or name")
    p.add_argument("--limit", type=_positive, default=5, help="how many papers (default 5)")
    p.add_argument("--json", action="store_true", help="print the papers as JSON, as search --json does")


def _author_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot author`'s arguments."""
    p.add_argument("name", nargs="+", help="the person's name, as listed, with initials or a typo")
    p.add_argument("--limit", type=_positive, default=5, help="how many papers (default 5)")
    p.add_argument("--json", action="store_true", help="print the person and the papers as JSON")


def _trend_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot trend`'s arguments."""
    p.add_argument("topic", nargs="+", help="words, as a search takes them (no venue: or year:)")
    p.add_argument("--out", metavar="FILE.png", help="where to write the chart (default: icml-trend-<topic>.png here)")
    p.add_argument("--json", action="store_true", help="print the counts as JSON (with the chart's path)")


def _related_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot related`'s arguments."""
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="the text (default, or '-': stdin)")
    p.add_argument("--limit", type=_positive, default=5, help="how many papers (default 5)")
    p.add_argument("--json", action="store_true", help="print the answer as search --json does")


def _export_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot export`'s arguments."""
    p.add_argument("format", metavar="FORMAT", help="bibtex, csv or md")
    p.add_argument("refs", nargs="*", metavar="ID", help="paper ids, OpenReview ids or names")
    p.add_argument("--search", metavar="QUERY", help="export a search's results instead of named papers")
    p.add_argument(
        "--limit", type=_positive, default=20, help="with --search: how many results (default 20, at most 50)"
    )
    p.add_argument("--out", metavar="FILE", help="write to FILE (default: stdout)")


def _plan_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot plan`'s arguments."""
    p.add_argument("refs", nargs="*", metavar="ID", help="paper ids, OpenReview ids or names")
    p.add_argument("--user", metavar="U", help="plan this Slack user's saved papers (from the state database)")
    p.add_argument("--team", metavar="T", help="with --user: their workspace (team id)")
    p.add_argument("--search", metavar="QUERY", help="plan a search's results instead of named papers")
    p.add_argument(
        "--limit", type=_positive, default=20, help="with --search: how many results (default 20, at most 50)"
    )
    p.add_argument("--venue", metavar="VENUE", help="which venue, e.g. icml2026 (default: the coming one)")
    p.add_argument("--tz", metavar="ZONE", default="UTC", help="show times in this IANA zone (default UTC)")
    p.add_argument("--ics", action="store_true", help="write an iCalendar file (as /icml plan ics sends)")
    p.add_argument("--out", metavar="FILE", help="write to FILE (default: stdout)")


def _publish_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot publish`'s arguments."""
    p.add_argument("source", help="the built index file (e.g. copied from the machine that ran `icml-bot fetch`)")


def _serve_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot serve`'s arguments."""
    p.add_argument("--http", action="store_true", help="serve Slack's HTTP requests (needs SLACK_SIGNING_SECRET)")
    p.add_argument("--host", default="0.0.0.0", help="HTTP address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=3000, help="HTTP port (default 3000; 0 picks a free one)")
    p.add_argument(
        "--workers",
        type=_worker_count,
        default=1,
        metavar="N",
        help="processes serving Slack (default 1; auto: one per core); in Socket Mode each opens its own connection",
    )


def _digest_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot digest`'s arguments."""
    p.add_argument("--channel", metavar="C", help="channel id (default: $ICML_DIGEST_CHANNEL)")
    p.add_argument("--team", metavar="T", help="the workspace whose digest, in a channel shared by several")
    p.add_argument("--date", type=_iso_date, metavar="YYYY-MM-DD", help="digest date (default: today there)")
    p.add_argument("--dry-run", action="store_true", help="print the message instead of posting it")
    p.add_argument("--json", action="store_true", help="with --dry-run: print the Slack payload as JSON")


def _fetch_arguments(p: argparse.ArgumentParser) -> None:
    """`icml-bot fetch`'s arguments."""
    p.add_argument(
        "venues",
        nargs="*",
        metavar="VENUE",
        help="icml2026 (default: every track), icml2025, neurips2025, iclr2026, …; one track: icml2026-main, "
        "icml2026-position, icml2026-workshop, neurips2025-datasets",
    )
    p.add_argument(
        "--site-url", type=_http_url, metavar="URL", help="a mirror of the conference site (default: its own)"
    )
    p.add_argument(
        "--openreview-url", type=_http_url, metavar="URL", help="OpenReview API (default: $OPENREVIEW_BASEURL)"
    )
    p.add_argument("--cache-dir", metavar="PATH", help="downloaded pages and lists (default: $ICML_BOT_CACHE)")
    p.add_argument("--workers", type=_positive, metavar="N", help="text-cleaning processes (default: one per core)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


@dataclass(frozen=True)
class Subcommand:
    """One `icml-bot` subcommand: its name, its line in --help, what adds its arguments, its longer description."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    description: str | None = None


SUBCOMMANDS = (
    Subcommand("index", "build or extend the index from paper sources", _index_arguments),
    Subcommand("search", "search papers", _search_arguments),
    Subcommand("stats", "what the index holds", _stats_arguments),
    Subcommand("paper", "show one paper by id or name", _paper_arguments),
    Subcommand("similar", "papers like one paper (as /icml similar)", _similar_arguments),
    Subcommand("author", "a person's papers and co-authors (as /icml author)", _author_arguments),
    Subcommand(
        "trend", "a topic's papers per venue and year: a table and a PNG chart (as /icml trend)", _trend_arguments
    ),
    Subcommand("related", "papers related to a text: a draft, a review, a question", _related_arguments),
    Subcommand("export", "papers as BibTeX, CSV or Markdown (as /icml export)", _export_arguments),
    Subcommand("plan", "a conference plan by day and session (as /icml plan)", _plan_arguments),
    Subcommand(
        "publish",
        "put a built index in place of the served one (copy, then an atomic rename)",
        _publish_arguments,
        PUBLISH,
    ),
    Subcommand("serve", "run the Slack app (Socket Mode; --http for HTTP mode)", _serve_arguments),
    Subcommand("digest", "print or post one date's daily digest for a channel", _digest_arguments),
    Subcommand(
        "fetch", "fetch and index the official paper lists (conference site, OpenReview)", _fetch_arguments, FETCH
    ),
)


def build_parser() -> argparse.ArgumentParser:
    """The command line, one subcommand per job (SUBCOMMANDS, in the order --help lists them)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="PATH",
        help="paper index (default: $ICML_BOT_DB or ~/.local/share/icml-bot/papers.db)",
    )
    parser = argparse.ArgumentParser(
        prog="icml-bot", parents=[common], description="Search ICML 2026 papers from the shell or from Slack."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in SUBCOMMANDS:
        p = sub.add_parser(command.name, parents=[common], help=command.help, description=command.description)
        command.add_arguments(p)
    return parser


def _iso_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date: use YYYY-MM-DD") from None
