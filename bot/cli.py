"""`icml-bot index|search|stats|paper|similar|author|trend|related|export|plan|serve|digest`: parses arguments, calls
the modules (the same plain functions `/icml` calls), prints."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import logs
from bot.cli_common import UserError, json_out, not_a_folder, open_index, seeds_dir
from bot.cli_parser import build_parser
from bot.config import Config, ConfigError
from bot.papers import index
from bot.papers.lookup import paper_count
from bot.papers.reading import DatabaseError, OperationalError, Reader
from bot.state import postgres
from bot.state.sqlite import is_locked, path_problem
from bot.twins import cmd_author, cmd_digest, cmd_export, cmd_plan, cmd_related, cmd_similar, cmd_trend

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
    except OperationalError as exc:
        if is_locked(exc):
            raise UserError(
                f"the index at {config.db_path} is being written by another process ({exc}); run "
                "`icml-bot index` again when that has finished (nothing was changed)"
            ) from None
        raise index.IndexUnavailable(f"cannot write the index at {config.db_path} ({exc})") from None
    except DatabaseError as exc:
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
    """`icml-bot publish`: bot.cli_parser.PUBLISH says what it does."""
    from bot.papers.publish import publish

    source = Path(args.source).expanduser()
    if source.is_dir():
        raise UserError(f"{source} is a folder; give the built index file, e.g. {source / 'papers.db'}")
    try:
        db = index.connect(source, readonly=True)
        papers = paper_count(db)
        db.conn.close()
    except DatabaseError as exc:
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

    # Builds it from the seeds when there is none, or says why it is unusable
    open_index(config).conn.close()
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

    # Before building an index: a missing token is the likelier mistake
    check_tokens(config, http=args.http)
    open_index(config).conn.close()
    return serve(config, http=args.http, host=args.host, port=args.port, workers=args.workers)


def cmd_fetch(args: argparse.Namespace, config: Config) -> int:
    """`icml-bot fetch`: bot.cli_parser.FETCH says what it does."""
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


COMMANDS: dict[str, Callable[[argparse.Namespace, Config], int]] = {
    "index": cmd_index,
    "search": cmd_search,
    "stats": cmd_stats,
    "paper": cmd_paper,
    "similar": cmd_similar,
    "author": cmd_author,
    "trend": cmd_trend,
    "related": cmd_related,
    "export": cmd_export,
    "plan": cmd_plan,
    "publish": cmd_publish,
    "serve": cmd_serve,
    "digest": cmd_digest,
    "fetch": cmd_fetch,
}  # what each subcommand of bot.cli_parser runs


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; user errors are one line on stderr with exit status 2, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    config: Config | None = None
    # serve stops gracefully by itself
    previous = _catch_sigterm() if args.command != "serve" else None
    try:
        config = Config.from_env(db=getattr(args, "db", None))
        # Every command: `icml-bot digest` posts to Slack too, and its logs need redaction
        logs.setup_logging(config)
        status: int = COMMANDS[args.command](args, config)
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
    except DatabaseError as exc:
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
