"""The shell twins of `/icml similar|author|trend|related|export|plan|digest`: the same plain functions `/icml`
calls, their answers printed as text (or JSON with --json)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli_common import UserError, json_out, open_index
from bot.config import Config, ConfigError
from bot.papers.row import shown_title
from bot.text.controls import escape_controls

if TYPE_CHECKING:
    from bot.search import Result
    from bot.search.reader import Papers

# Of the text `icml-bot related` reads: a Slack message's size (the search cuts it further)
RELATED_CHARS = 40_000


def _papers(config: Config) -> Papers:
    """The index as `/icml` reads it (built from the seeds first when there is none, or one clear error)."""
    from bot import wiring

    open_index(config).conn.close()
    return wiring.papers(config)


def _results_json(query: str, results: Sequence[Result], **extra: Any) -> str:
    return json_out({"query": query, **extra, "results": [r.to_json() for r in results]})


def cmd_similar(args: argparse.Namespace, config: Config) -> int:
    """Papers like one paper, as `/icml similar` lists them (a search for the words when no paper has that name)."""
    from bot import shell

    papers = _papers(config)
    paper = papers.get(args.ref)
    if paper is None:
        response = papers.search(args.ref, limit=args.limit)
        if args.json:
            print(json_out(response.to_json()))
            return 0
        print(f"No paper has the id or name {args.ref!r}; here is what a search finds.")
        print("\n".join(shell.results_lines(args.ref, response)))
        return 0
    like = papers.similar(str(paper["id"]), k=args.limit)
    if args.json:
        print(_results_json(args.ref, like, paper=paper["id"]))
        return 0
    heading = (
        f"Papers like [{paper['id']}] {shown_title(paper)}" if like else f"No papers like {shown_title(paper)} here."
    )
    print("\n".join(shell.papers_lines(heading, like)))
    return 0


def cmd_author(args: argparse.Namespace, config: Config) -> int:
    """A person's papers with their co-authors, as `/icml author` lists them."""
    from bot import shell

    name = " ".join(args.name)
    papers = _papers(config)
    found = papers.author(name)
    response = papers.search(found.query, limit=args.limit)
    if args.json:
        card = found.card
        person = {"name": card.name, "papers": card.papers, "coauthors": card.coauthors} if card else None
        print(json_out({"author": person, **response.to_json()}))
        return 0
    if found.card is not None:
        print(escape_controls(found.coauthors))
    elif not found.common:
        print(f"No author is called {name!r}; here is what a search for {found.query!r} finds.")
    print("\n".join(shell.results_lines(found.query, response)))
    return 0


def cmd_trend(args: argparse.Namespace, config: Config) -> int:
    """The topic's papers per venue and year, as `/icml trend` counts them: the table, and the chart as a PNG."""
    from bot import charts
    from bot.search.trends import TrendError, table_lines

    topic = " ".join(args.topic)
    try:
        found = _papers(config).trend(topic)
    except TrendError as exc:
        raise UserError(str(exc).replace("`", "")) from None
    out = Path(args.out or found.filename)
    if not found.venues:
        raise UserError("the index is empty: load papers with `icml-bot index`")
    if found.matches:
        out.write_bytes(charts.draw(found))
    if args.json:
        print(json_out({**found.to_json(), "chart": str(out) if found.matches else None}))
        return 0
    if found.corrected:
        print(f"Counting {found.corrected!r} (you typed {found.topic!r})")
    print(escape_controls("\n".join(table_lines(found))))
    if found.unplaced:
        print(f"{found.unplaced:,} papers of no venue are left out.")
    print(f"Chart: {out}" if found.matches else f"No papers on {topic!r} in any venue here: no chart drawn.")
    return 0


def cmd_related(args: argparse.Namespace, config: Config) -> int:
    """Papers related to a text (a draft abstract, a review, a question), read from FILE or stdin."""
    from bot import shell

    text = _read_text(args.file)
    if not text:
        raise UserError("no text to find related papers for: give a FILE, or pipe the text in")
    response = _papers(config).search(text, limit=args.limit)
    if args.json:
        print(json_out(response.to_json()))
        return 0
    print("\n".join(shell.results_lines(textwrap.shorten(text, 60, placeholder="…"), response)))
    return 0


def _read_text(name: str) -> str:
    """At most RELATED_CHARS of a file ('-' or none: stdin), on one line; undecodable bytes replaced."""
    try:
        if name == "-":
            if sys.stdin.isatty():
                print("Paste the text, then press Ctrl-D on a line of its own:", file=sys.stderr)
            raw = sys.stdin.read(RELATED_CHARS)
        else:
            with open(name, encoding="utf-8", errors="replace") as fh:
                raw = fh.read(RELATED_CHARS)
    except OSError as exc:
        raise UserError(f"cannot read {name}: {exc.strerror}") from None
    return " ".join(raw.split())


def cmd_export(args: argparse.Namespace, config: Config) -> int:
    """Papers as BibTeX, CSV or Markdown, as `/icml export` writes them: by id or name, or a search's results."""
    from bot.team import export

    kind = export.Format.named(args.format)
    if kind is None:
        raise UserError(f"no export format {args.format!r}: use bibtex, csv or md")
    if bool(args.refs) == bool(args.search):
        raise UserError("give paper ids (or names), or --search QUERY, to export")
    papers = _papers(config)
    if args.search:
        rows = [r.paper for r in papers.search(args.search, limit=args.limit).results]
        heading = f"Papers for {args.search}"
    else:
        found = {ref: papers.get(ref) for ref in args.refs}
        unknown = [ref for ref, paper in found.items() if paper is None]
        if unknown:
            raise UserError(f"no paper with id or name {', '.join(map(repr, unknown))}; nothing exported")
        # A paper named twice: once
        rows = list({p["id"]: p for p in found.values() if p is not None}.values())
        heading = f"Papers ({len(rows)})"
    done = export.render(kind, [export.Row(p) for p in rows], "icml-papers", heading)
    if args.out:
        Path(args.out).write_text(done.content, encoding="utf-8")
        print(f"Exported {done.count} paper{'s' * (done.count != 1)} as {kind.value} to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(done.content)
    return 0


def cmd_plan(args: argparse.Namespace, config: Config) -> int:
    """A conference plan by day and session, as `/icml plan` shows it (or its calendar file, as `/icml plan ics`):
    of a person's saved papers (--team, --user), of papers by id or name, or of a search's results."""
    from bot import wiring
    from bot.team import ics, wants
    from bot.team import plan as plans

    tz = plans.zone(args.tz, "")
    if args.tz and getattr(tz, "key", "") != args.tz:
        raise UserError(f"no time zone {args.tz!r}: use an IANA name such as Asia/Seoul or America/New_York")
    papers = _papers(config)
    if args.user:
        parts = wiring.build(config)  # (the state database, as `icml-bot digest` opens it)
        try:
            wanted = wants.of_user(parts.state, papers, args.team or "", args.user)
        finally:
            parts.close()
    elif bool(args.refs) == bool(args.search):
        raise UserError("give --user (with --team: their saved papers), paper ids or names, or --search QUERY")
    elif args.search:
        found = papers.search(args.search, limit=args.limit).results
        wanted = [plans.Wanted(str(r.paper["id"]), r.paper) for r in found]
    else:
        wanted = [plans.Wanted(ref, papers.get(ref)) for ref in args.refs]
        unknown = [w.paper_id for w in wanted if w.paper is None]
        if unknown:
            raise UserError(f"no paper with id or name {', '.join(map(repr, unknown))}; nothing planned")
    made = plans.build(wanted, tz, args.venue)
    if not made.days and not made.unplaced:
        raise UserError(f"nothing to plan{f' for {args.venue}' if args.venue else ''}: no such papers")
    text = (
        ics.calendar(made, datetime.now(UTC)) if args.ics else escape_controls("\n".join(plans.text_lines(made))) + "\n"
    )
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"Wrote {len(made.sessions)} sessions to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_digest(args: argparse.Namespace, config: Config) -> int:
    """Print (--dry-run) or post one date's digest for a channel; at most once per channel and date, like the bot."""
    from bot import shell, wiring
    from bot.digest.model import OutcomeStatus, validate_channel
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
        day = args.date or service.today(service.subscriptions.subscription(channel, team), now)
        if not args.dry_run:
            outcome = service.digests.post_digest(channel, day, now, manual=True, team=team)
            ok = outcome.status in (OutcomeStatus.POSTED, OutcomeStatus.ALREADY)
            print(outcome.describe(), file=sys.stdout if ok else sys.stderr)
            return 0 if ok else 1
        digest = service.builder.plan(channel, day, team)
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
