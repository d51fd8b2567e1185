"""`icml-bot index|search|stats|paper|similar|author|trend|related|export|plan|serve|digest`: parses arguments, calls
the modules (the same plain functions `/icml` calls), prints."""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import logs
from bot.cli_common import UserError, json_out, not_a_folder, open_index, seeds_dir
from bot.config import Config, ConfigError
from bot.papers import index
from bot.papers.reading import Reader
from bot.state import postgres
from bot.state.sqlite import is_locked, path_problem
from bot.twins import cmd_author, cmd_export, cmd_plan, cmd_related, cmd_similar, cmd_trend

if TYPE_CHECKING:
    pass

EXIT_USAGE = 2


class _NeverRaised(Exception):
    """Stands for the error class of a module a command did not import: nothing can have raised it."""


def _raised_by(module: str, name: str) -> type[BaseException]:
    """The error class `module.name` if the command imported `module`, else _NeverRaised: naming the class outright
    would import psycopg, the state store or the fetchers into every command, which most do not use."""
    found = getattr(sys.modules.get(module), name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else _NeverRaised


class Terminated(KeyboardInterrupt):
    """SIGTERM as an exception, so a command stops the way Ctrl-C stops it: cleanly, with one line."""


def cmd_index(args: argparse.Namespace, config: Config) -> int:
    """Load sources into the index and print what happened."""
    sources = args.sources or [seeds_dir()]
    not_a_folder(config.db_path)
    fresh = not config.db_path.exists()
    try:
        with index.removed_if_failed(config.db_path, fresh):
            db = index.connect(config.db_path)
            try:
                report = index.load(
                    db, sources, progress=_progress_bar() if sys.stderr.isatty() else None, workers=args.workers
                )
            finally:
                db.conn.close()
    except sqlite3.OperationalError as exc:
        if is_locked(exc):
            raise UserError(
                f"the index at {config.db_path} is being written by another process ({exc}); run "
                "`icml-bot index` again when that has finished (nothing was changed)"
            ) from None
        raise index.IndexUnavailable(f"cannot write the index at {config.db_path} ({exc})") from None
    except sqlite3.DatabaseError as exc:
        raise index.IndexUnavailable(
            f"{config.db_path} is not an icml-bot index or is damaged ({exc}); move it "
            "away (the index is rebuildable) and run `icml-bot index` again"
        ) from None
    except OSError as exc:
        if str(exc.filename) not in {str(p) for p in (config.db_path, *config.db_path.parents)}:
            raise  # a source file: main() names it
        raise UserError(
            f"cannot create the index at {config.db_path} ({path_problem(config.db_path, exc)}); set "
            "ICML_BOT_DB (or --db) to a path in a writable folder"
        ) from None
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(
        f"Indexed {report.papers} papers into {config.db_path} in {report.seconds:.1f} s: "
        f"{report.added} added, {report.merged} merged, {report.updated} updated, {report.unchanged} unchanged, "
        f"{len(report.skipped)} skipped."
    )
    for label, records, counts in (
        ("skipped", report.skipped, report.skip_reasons()),
        ("note", report.notices, report.notice_reasons()),
    ):
        for reason, count in sorted(counts.items()):
            example = next(s for s in records if s.reason == reason)
            where = f"{example.source}:{example.line}" if example.line else example.source
            print(f"  {label} {count}: {reason} (first at {where})")
    return 0


def _progress_bar() -> Callable[[str, int, int], None]:
    """A one-line percentage bar on stderr, redrawn only when the percentage changes."""
    state = {"last": -1}

    def show(name: str, done: int, total: int) -> None:
        pct = int(100 * done / total) if total else 100
        if pct != state["last"]:
            state["last"] = pct
            bar = "#" * (pct // 4)
            print(f"\r{name[:30]:30} [{bar:25}] {pct:3d}%", end="", file=sys.stderr, flush=True)

    return show


def cmd_search(args: argparse.Namespace, config: Config) -> int:
    """Search the index and print results, as text or JSON; --batch runs one query per line of a file."""
    from bot import search, shell

    if args.batch and args.query:
        raise UserError("give either a QUERY or --batch FILE, not both")
    if not args.batch and not args.query:
        raise UserError("nothing to search for: give a QUERY, or --batch FILE with one query per line")
    db = open_index(config)
    if args.batch:
        return search_batch(db, args, config)
    query = " ".join(args.query)
    if getattr(args, "blocks", False):
        return print_blocks(query, config)
    results = search.search(db, query, limit=args.limit, scope=config.venues)
    if args.json:
        print(shell.json_text(results.to_json()))  # (the shape of each --batch line)
        return 0
    print("\n".join(shell.results_lines(query, results)))
    return 0


def search_batch(db: Reader, args: argparse.Namespace, config: Config) -> int:
    """One query per line in, one answer per line out, in order (a JSON line each with --json; blank lines too)."""
    from bot import search, shell

    try:
        fh = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError as exc:
        raise UserError(f"cannot read the batch file {args.batch}: {exc.strerror}") from None
    try:
        for line in fh:
            query = line.rstrip("\r\n")
            response = search.search(db, query, limit=args.limit, scope=config.venues)
            if args.json:
                print(shell.json_text(response.to_json(), indent=None))
            else:
                print("\n".join([shell.batch_heading(query), *shell.results_lines(query, response), ""]))
    finally:
        if fh is not sys.stdin:
            fh.close()
    return 0


def cmd_publish(args: argparse.Namespace, config: Config) -> int:
    """Put a built index in place of the served one (--db / ICML_BOT_DB): copy it beside it, then rename it over it.

    Running bots answer all along: a query under way finishes on the old file, the next one reads the new file.
    Example, on each replica: icml-bot publish /srv/icml/incoming.db
    """
    from bot.papers.publish import publish

    source = Path(args.source).expanduser()
    if source.is_dir():
        raise UserError(f"{source} is a folder; give the built index file, e.g. {source / 'papers.db'}")
    try:
        db = index.connect(source, readonly=True)
        papers = int(db.execute("SELECT count(*) FROM papers").fetchone()[0])
        db.conn.close()
    except sqlite3.DatabaseError as exc:
        raise index.IndexUnavailable(f"{source} cannot be published ({exc}); build it with `icml-bot index`") from None
    if source.resolve() == config.db_path.resolve():
        raise UserError(f"{source} is the served index itself; publish a copy built elsewhere")
    try:
        publish(source, config.db_path)
    except OSError as exc:
        raise UserError(f"cannot write next to {config.db_path} ({exc.strerror or exc}); nothing was changed") from None
    print(f"published {papers:,} papers from {source} to {config.db_path}")
    return 0


def cmd_stats(args: argparse.Namespace, config: Config) -> int:
    """Print what the index holds."""
    from bot import wiring
    from bot.papers import summary

    open_index(config).conn.close()  # builds it from the seeds when there is none, or says why it is unusable
    stats = wiring.papers(config).stats()
    if args.json:
        print(json_out(stats))
        return 0
    built = summary.age(stats["last_indexed"], datetime.now(UTC))
    print(f"{stats['papers']} papers, {stats['vocabulary']} words, last indexed {built}")
    for line in summary.venue_lines(stats["venues"]):
        print(f"  {line}")
    print(f"Searched unless a query names venues: {stats['searched']}")
    meaning = stats["meaning"]
    if meaning["usable"]:
        print(f"Meaning vectors: {meaning['papers']} papers ({meaning['model']})")
    else:
        print("Meaning vectors: none this version can use; run `icml-bot index` to add them (until then, by words)")
    print("Sources:")
    for s in stats["sources"]:
        print(
            f"  {s['name']}: {s['records']} records ({s['added']} added, {s['merged']} merged, "
            f"{s['skipped']} skipped) at {s['indexed_at']}"
        )
    return 0


def cmd_paper(args: argparse.Namespace, config: Config) -> int:
    """Print one paper by id or name: readable text, or JSON with --json."""
    from bot import shell

    paper = index.get_paper(open_index(config), args.ref)
    if paper is None:
        raise UserError(f"no paper with id or name {args.ref!r}; try `icml-bot search {args.ref}`")
    if args.json:
        print(shell.json_text(paper))
    else:
        print("\n".join(shell.paper_text(paper)))
    return 0


def print_blocks(text: str, config: Config) -> int:
    """Print the exact JSON payload `/icml <text>` acknowledges with (blocks, fallback text, response_type)."""
    from bot import wiring
    from bot.slack import commands

    print(json_out(commands.preview(wiring.papers(config), text)))
    return 0


def cmd_serve(args: argparse.Namespace, config: Config) -> int:
    """Run the Slack app: Socket Mode by default, HTTP with --http."""
    from bot.serve.run import serve
    from bot.serve.tokens import check_tokens

    check_tokens(config, http=args.http)  # before building an index: a missing token is the likelier mistake
    open_index(config).conn.close()
    return serve(config, http=args.http, host=args.host, port=args.port, workers=args.workers)


# ------------------------------------------------------------------ digest


def cmd_digest(args: argparse.Namespace, config: Config) -> int:
    """Print (--dry-run) or post one date's digest for a channel; at most once per channel and date, like the bot."""
    from bot import shell, wiring
    from bot.digest.model import validate_channel
    from bot.slack.blocks import digest as digest_blocks

    open_index(config).conn.close()
    if not (args.channel or config.digest_channel):
        raise ConfigError("no channel: pass --channel C0123456789 or set ICML_DIGEST_CHANNEL")
    channel = validate_channel(
        args.channel or config.digest_channel, "--channel" if args.channel else "ICML_DIGEST_CHANNEL"
    )
    if not args.dry_run and not config.bot_token:
        raise ConfigError("SLACK_BOT_TOKEN is not set: it is needed to post the digest (or use --dry-run to print it)")
    parts = wiring.build(config)
    service = parts.digests
    try:
        team = _digest_team(parts.state, channel, args.team)
        now = service.clock()
        day = args.date or service.today(service.digests.subscription(channel, team), now)
        if not args.dry_run:
            outcome = service.digests.post_digest(channel, day, now, manual=True, team=team)
            ok = outcome.status in ("posted", "already")
            print(outcome.describe(), file=sys.stdout if ok else sys.stderr)
            return 0 if ok else 1
        digest = service.digests.plan(channel, day, team)
        if not digest.papers:
            print("The paper index is empty: load papers with `icml-bot index`.", file=sys.stderr)
            return 1
        if args.json:
            msg = digest_blocks.digest_message(digest)
            body = {"channel": channel, **msg, "metadata": digest_blocks.metadata(digest)}
            print(json_out(body))
        else:
            print(f"Digest for {channel} on {day.isoformat()} (dry run: nothing posted)\n")
            print("\n".join(shell.digest_lines(digest)))
        return 0
    finally:
        parts.close()


def _digest_team(state: Any, channel: str, team: str | None) -> str:
    """The workspace whose digest in `channel` is meant: --team, else the one workspace with a digest there."""
    if team is not None:
        return team
    teams = sorted({r.team for r in state.digests.subscriptions(channel, active=False)})
    if len(teams) > 1:
        raise ConfigError(
            f"{channel} is shared: workspaces {', '.join(t or '(none)' for t in teams)} each have a digest there; "
            "pass --team with one of them"
        )
    return teams[0] if teams else ""


def _iso_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date: use YYYY-MM-DD") from None


# ------------------------------------------------------------------ (end of digest)


def cmd_fetch(args: argparse.Namespace, config: Config) -> int:
    """Fetch each VENUE's official list (conference site, OpenReview when logged in) and index it in one load.

    Example: `icml-bot fetch icml2026 icml2024`. Exit 0: everything arrived; 1: a source failed or stopped at a
    page, but what arrived was indexed (the summary names the failure); 2: nothing usable arrived, nothing indexed.
    """
    from bot.papers import fetching
    from bot.papers.fetch.openreview import Credentials
    from bot.papers.venues import VenueError, parse_venue

    try:
        venues = list(dict.fromkeys(parse_venue(name) for name in args.venues or ["icml2026"]))
    except VenueError as exc:
        raise UserError(str(exc)) from None
    not_a_folder(config.db_path)
    user, password = config.openreview_username, config.openreview_password
    settings = fetching.Settings(
        cache_dir=Path(args.cache_dir).expanduser() if args.cache_dir else config.cache_dir,
        site_url=args.site_url or config.site_url or None,
        openreview_url=args.openreview_url or config.openreview_url,
        credentials=Credentials(user, password) if user and password else None,
        missing=tuple(name for name, v in (("OPENREVIEW_USERNAME", user), ("OPENREVIEW_PASSWORD", password)) if not v),
        workers=args.workers,
    )
    report = fetching.fetch_venues(config.db_path, venues, settings, _progress_bar() if sys.stderr.isatty() else None)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        print(json_out(report.to_json()))
    else:
        print("\n".join(report.lines()))
    if report.index is None:
        raise UserError(report.nothing_usable())
    return 1 if report.failed else 0


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


def build_parser() -> argparse.ArgumentParser:
    """The command line, one subcommand per job."""
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

    p = sub.add_parser("index", parents=[common], help="build or extend the index from paper sources")
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
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", parents=[common], help="search papers")
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
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("stats", parents=[common], help="what the index holds")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("paper", parents=[common], help="show one paper by id or name")
    p.add_argument("ref", help="paper id, OpenReview id or name")
    p.add_argument("--json", action="store_true", help="print the paper as JSON (every field the index holds)")
    p.set_defaults(func=cmd_paper)

    p = sub.add_parser("similar", parents=[common], help="papers like one paper (as /icml similar)")
    p.add_argument("ref", help="paper id, OpenReview id or name")
    p.add_argument("--limit", type=_positive, default=5, help="how many papers (default 5)")
    p.add_argument("--json", action="store_true", help="print the papers as JSON, as search --json does")
    p.set_defaults(func=cmd_similar)

    p = sub.add_parser("author", parents=[common], help="a person's papers and co-authors (as /icml author)")
    p.add_argument("name", nargs="+", help="the person's name, as listed, with initials or a typo")
    p.add_argument("--limit", type=_positive, default=5, help="how many papers (default 5)")
    p.add_argument("--json", action="store_true", help="print the person and the papers as JSON")
    p.set_defaults(func=cmd_author)

    p = sub.add_parser(
        "trend", parents=[common], help="a topic's papers per venue and year: a table and a PNG chart (as /icml trend)"
    )
    p.add_argument("topic", nargs="+", help="words, as a search takes them (no venue: or year:)")
    p.add_argument("--out", metavar="FILE.png", help="where to write the chart (default: icml-trend-<topic>.png here)")
    p.add_argument("--json", action="store_true", help="print the counts as JSON (with the chart's path)")
    p.set_defaults(func=cmd_trend)

    p = sub.add_parser("related", parents=[common], help="papers related to a text: a draft, a review, a question")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="the text (default, or '-': stdin)")
    p.add_argument("--limit", type=_positive, default=5, help="how many papers (default 5)")
    p.add_argument("--json", action="store_true", help="print the answer as search --json does")
    p.set_defaults(func=cmd_related)

    p = sub.add_parser("export", parents=[common], help="papers as BibTeX, CSV or Markdown (as /icml export)")
    p.add_argument("format", metavar="FORMAT", help="bibtex, csv or md")
    p.add_argument("refs", nargs="*", metavar="ID", help="paper ids, OpenReview ids or names")
    p.add_argument("--search", metavar="QUERY", help="export a search's results instead of named papers")
    p.add_argument(
        "--limit", type=_positive, default=20, help="with --search: how many results (default 20, at most 50)"
    )
    p.add_argument("--out", metavar="FILE", help="write to FILE (default: stdout)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("plan", parents=[common], help="a conference plan by day and session (as /icml plan)")
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
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser(
        "publish",
        parents=[common],
        help="put a built index in place of the served one (copy, then an atomic rename)",
        description=cmd_publish.__doc__,
    )
    p.add_argument("source", help="the built index file (e.g. copied from the machine that ran `icml-bot fetch`)")
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser("serve", parents=[common], help="run the Slack app (Socket Mode; --http for HTTP mode)")
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
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("digest", parents=[common], help="print or post one date's daily digest for a channel")
    p.add_argument("--channel", metavar="C", help="channel id (default: $ICML_DIGEST_CHANNEL)")
    p.add_argument("--team", metavar="T", help="the workspace whose digest, in a channel shared by several")
    p.add_argument("--date", type=_iso_date, metavar="YYYY-MM-DD", help="digest date (default: today there)")
    p.add_argument("--dry-run", action="store_true", help="print the message instead of posting it")
    p.add_argument("--json", action="store_true", help="with --dry-run: print the Slack payload as JSON")
    p.set_defaults(func=cmd_digest)

    p = sub.add_parser(
        "fetch",
        parents=[common],
        help="fetch and index the official paper lists (conference site, OpenReview)",
        description=cmd_fetch.__doc__,
    )
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
    p.set_defaults(func=cmd_fetch)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; user errors are one line on stderr with exit status 2, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    config: Config | None = None
    previous = _catch_sigterm() if args.command != "serve" else None  # serve stops gracefully by itself
    try:
        config = Config.from_env(db=getattr(args, "db", None))
        logs.setup_logging(config)  # every command: `icml-bot digest` posts to Slack too, and its logs need redaction
        status: int = args.func(args, config)
        return status
    except (
        ConfigError,
        UserError,
        index.IndexUnavailable,
        _raised_by("bot.papers.records", "SourceError"),
        _raised_by("bot.state.store", "StateUnavailable"),
    ) as exc:
        print(f"icml-bot: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except sqlite3.DatabaseError as exc:
        where = f"the index {config.db_path} or the state database {config.state_path}" if config else "a database"
        advice = (
            "another process is writing it; try again in a minute"
            if "locked" in str(exc)
            else "rebuild the index with `icml-bot index`; restore the state database from a backup"
        )
        print(f"icml-bot: error: {where} cannot be used ({exc}): {advice}", file=sys.stderr)
        return EXIT_USAGE
    except _raised_by("psycopg", "Error") as exc:
        print(f"icml-bot: error: {postgres.problem(config.state_url if config else '', exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except OSError as exc:
        print(f"icml-bot: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return EXIT_USAGE
    except Terminated:
        print("icml-bot: stopped by SIGTERM", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _catch_sigterm() -> Any:
    """Turn SIGTERM into Terminated while a command runs (main thread only); returns the handler to restore."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def terminate(signum: int, frame: object) -> None:
        raise Terminated()

    return signal.signal(signal.SIGTERM, terminate)


if __name__ == "__main__":
    sys.exit(main())
