"""Search results and digests as terminal text: plain in a pipe or a file, the stressed words in ANSI bold on a
terminal; never Slack's markup, and never a control character from a paper or a query (written as `\x1b`)."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Collection, Sequence

from bot.digest.model import Digest
from bot.digest.words import OPENING_CHARS, footer, heading, opening, round_done, topics_note
from bot.papers.row import PaperRow, shown_title
from bot.search.results import Result, SearchResponse
from bot.search.scope import venue_of
from bot.text.controls import escape_controls, json_escape_controls
from bot.text.marked import Marked, Strong, marked
from bot.text.person_names import shown_authors

ANSI_BOLD, ANSI_RESET = "\x1b[1m", "\x1b[0m"  # what stresses a word on a terminal
AUTHORS_SHOWN = 4  # authors on a paper's line before "et al." (the named ones after "…")


def shell_text(text: Marked) -> str:
    """Marked text for the shell: its Strong pieces in ANSI bold on a terminal, plain text in a pipe or a file."""
    if not sys.stdout.isatty():
        return escape_controls(text.text)
    return text.render(lambda piece: f"{ANSI_BOLD}{escape_controls(piece)}{ANSI_RESET}", escape_controls)


def json_text(value: object, indent: int | None = 2) -> str:
    """`--json` output and `icml-bot paper`: JSON as written (not ASCII-escaped), but control, bidi and tag characters
    as JSON escapes, so the terminal shows them instead of obeying them."""
    return json_escape_controls(json.dumps(value, ensure_ascii=False, indent=indent))


def batch_heading(query: str) -> str:
    """`## query`: the line before each answer of `icml-bot search --batch`."""
    return f"## {escape_controls(query)}"


def results_lines(query: str, results: SearchResponse) -> list[str]:
    """`icml-bot search`: the correction and notes, then number, id, title, authors, snippet, links per paper."""
    corrected, typed = escape_controls(results.corrected or ""), escape_controls(query)
    lines = [f"Showing results for {corrected} (you typed {typed})"] if results.corrected else []
    lines += [shell_text(note) for note in results.notes]
    if not results.results:
        hint = f" Try: {escape_controls(', '.join(results.suggestions))}" if results.suggestions else ""
        if results.searched:  # (else the notes said what to type instead)
            # repr() writes controls as escapes too
            lines.append(f"No papers match {query!r}.{hint}")
        return lines
    for n, r in enumerate(results.results, 1):
        lines += paper_lines(n, r.paper, [shell_text(r.snippet)], results.venues > 1, r.named)
    return lines


def digest_lines(digest: Digest) -> list[str]:
    """`icml-bot digest --dry-run`: the date, what the topics did, each paper numbered in its round, the position."""
    title = escape_controls(heading(digest))
    lines = [title, "=" * len(title)]
    note = topics_note(digest)
    if note is not None:
        lines.append(shell_text(note))
    several = len({venue_of(p) for p in digest.papers}) > 1
    for n, paper in enumerate(digest.papers, digest.first):
        headline = " ".join((paper.get("headline") or "").split())
        text = opening(" ".join((paper.get("abstract") or "").split()), headline)
        said = [
            escape_controls(line) for line in (headline, textwrap.shorten(text, OPENING_CHARS, placeholder="…")) if line
        ]
        lines += ["", *paper_lines(n, paper, said, several, digest.named.get(str(paper["id"]), ()))]
    lines.append("")
    if digest.round_done:
        lines.append(escape_controls(round_done(digest)))
    lines.append(escape_controls(footer(digest)))
    return lines


def paper_lines(n: int, paper: PaperRow, said: list[str], venue: bool, named: Collection[str]) -> list[str]:
    """One paper: `n. [id] title (venue)`, its authors (those `named` stressed, after "…" when listed later), the
    lines `said` about it, its links."""
    where = f" ({venue_of(paper)})" if venue else ""
    lines = [escape_controls(f"{n}. [{paper['id']}] {shown_title(paper)}{where}")]
    if paper.get("authors"):
        line, more = shown_authors(paper["authors"], AUTHORS_SHOWN, named)
        names = [
            (", " if i else "", "… " if gap else "", Strong(name) if stressed else name)
            for i, (name, stressed, gap) in enumerate(line)
        ]
        lines.append(
            f"   {shell_text(marked(*(piece for name in names for piece in name)))}{' et al.' if more else ''}"
        )
    lines += [f"   {text}" for text in said]
    links = "  ".join(x for x in (paper.get("url"), paper.get("code_url"), paper.get("dataset_url")) if x)
    return lines + ([f"   {escape_controls(links)}"] if links else [])


PAPER_WIDTH = 100  # columns an abstract wraps at in `icml-bot paper`


def paper_text(paper: PaperRow) -> list[str]:
    """`icml-bot paper`: one paper in full, as `/icml paper` shows it: title, headline, every author, venue and
    status, links, the whole abstract."""
    title = f"[{paper['id']}] {shown_title(paper)}"
    lines = [shell_text(marked(Strong(title))), "=" * len(title)]
    headline = " ".join((paper.get("headline") or "").split())
    if headline:
        lines.append(headline)
    if paper.get("authors"):
        lines.append(", ".join(paper["authors"]))
    facts = [venue_of(paper)] if paper.get("venue") else []
    facts += [" ".join(str(v).split()) for v in (paper.get("status"), paper.get("session"), paper.get("area")) if v]
    if facts:
        lines.append(" · ".join(facts))
    for label, key in (("paper", "url"), ("pdf", "pdf_url"), ("code", "code_url"), ("data", "dataset_url")):
        if paper.get(key):
            lines.append(f"{label}: {paper.get(key)}")
    abstract = " ".join((paper.get("abstract") or "").split())
    return [escape_controls(line) for line in [*lines, "", *textwrap.wrap(abstract, PAPER_WIDTH)]]


def papers_lines(heading: str, results: Sequence[Result]) -> list[str]:
    """`icml-bot similar`: a heading, then each paper as search results show it (its snippet, its venue when they
    come from several)."""
    several = len({venue_of(r.paper) for r in results}) > 1
    lines = [heading]
    for n, r in enumerate(results, 1):
        lines += paper_lines(n, r.paper, [shell_text(r.snippet)], several, r.named)
    return lines
