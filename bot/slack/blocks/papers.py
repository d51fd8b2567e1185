"""The messages about papers: search results, similar papers, one paper, its abstract, help and stats."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from bot.papers import summary
from bot.papers.row import PaperRow, shown_title
from bot.papers.venues import MAIN, venue_label
from bot.search import Result, SearchResponse
from bot.slack.blocks.abstracts import abstract_mrkdwn
from bot.slack.blocks.kit import (
    ELLIPSIS,
    MAX_BLOCKS,
    MAX_BUTTON_VALUE,
    Block,
    Message,
    _fallback,
    actions,
    as_mrkdwn,
    bold,
    button,
    context,
    divider,
    escape,
    header,
    link,
    mention,
    message,
    notice,
    one_line,
    plain_truncate,
    safe_url,
    section,
    split_text,
    truncate,
)
from bot.slack.blocks.team_buttons import Origin, list_add_button, save_button
from bot.text.person_names import shown_authors

# Display budgets, well inside the limits above.
TITLE_CHARS = 250
HEADLINE_CHARS = 250
SNIPPET_CHARS = 700
AUTHORS_SHOWN = 3
AUTHORS_IN_DETAIL = 30
PAGE_SIZE = 5

# Button action ids; bot/slack/actions.py registers one listener for each.
ACTION_PAGE = "results_page"
ACTION_SIMILAR = "paper_similar"
ACTION_SHARE = "paper_share"
ACTION_ABSTRACT = "paper_abstract"
ACTION_RANDOM = "paper_random"
ACTION_IDS = (ACTION_PAGE, ACTION_SIMILAR, ACTION_SHARE, ACTION_ABSTRACT, ACTION_RANDOM)

# ------------------------------------------------------------------ button values


def page_value(query: str, offset: int, replace: bool = True) -> str:
    """The More-results button value: query and offset as JSON, the query cut so it fits Slack's 2,000 characters."""
    q = query
    while True:
        value = json.dumps({"q": q, "o": offset, "r": int(replace)}, ensure_ascii=False, separators=(",", ":"))
        if len(value) <= MAX_BUTTON_VALUE:
            return value
        q = q[: len(q) - (len(value) - MAX_BUTTON_VALUE) - 1]


def parse_page_value(value: str) -> tuple[str, int, bool] | None:
    """Query, offset and replace flag from a More-results button value; None if it isn't one of ours."""
    try:
        data = json.loads(value)
        query, offset, replace = str(data["q"]), int(data["o"]), bool(data.get("r", 1))
    except (ValueError, TypeError, KeyError):
        return None
    return (query, offset, replace) if offset >= 0 else None


# ------------------------------------------------------------------ papers


def display_title(paper: PaperRow) -> str:
    """The title as published (a derived one after the paper's name: bot.papers.row.shown_title), on one line."""
    return one_line(shown_title(paper)) or "Untitled"


def title_line(paper: PaperRow) -> str:
    """The bold title, linked to the paper page when it has an http(s) URL."""
    label = plain_truncate(display_title(paper), TITLE_CHARS)
    return f"*{link(paper.get('url') or paper.get('pdf_url'), label)}*"


def authors_text(authors: Iterable[str] | None, shown: int = AUTHORS_SHOWN, named: Collection[str] = ()) -> str:
    """Up to `shown` author names and "et al.", escaped; the `named` ones (the person a search found) in bold, and
    shown after "…" when they come later in the list (A, B, C, … *Yoshua Bengio* et al.)."""
    listed = [one_line(a) for a in authors or [] if one_line(a)]
    line, more = shown_authors(listed, shown, {one_line(a) for a in named})
    text = ""
    for name, marked, after_gap in line:
        shown_name = f"*{escape(name.replace('*', ''))}*" if marked else escape(name)
        text += (", … " if after_gap else ", ") + shown_name if text else shown_name
    return truncate(text + (" et al." if more else ""), 600)


def meta_parts(paper: PaperRow) -> list[str]:
    """Status, session and code and data links, when known, as short mrkdwn pieces."""
    parts = [escape(one_line(value)) for value in (paper.get("status"), paper.get("session")) if value]
    for url, label in ((paper.get("code_url"), "code"), (paper.get("dataset_url"), "data")):
        if url and safe_url(url):
            parts.append(link(url, label))
    return parts


def venue_name(paper: PaperRow) -> str:
    """The paper's venue as people say it: `ICML 2024`, `ICML 2026 position` (the track unless main)."""
    return venue_label(paper.get("venue"), paper.get("track") or MAIN)


def paper_context(paper: PaperRow, show_venue: bool = False, named: Collection[str] = ()) -> Block:
    """One context line under a paper: authors · venue · status · session · code · id (at most 10 elements).

    The venue only when results come from several (ICML 2026 beside ICML 2024); `named`: authors to show in bold."""
    venue = [escape(venue_name(paper))] if show_venue else []
    authors = authors_text(paper.get("authors"), named=named)
    pieces = [authors, *venue, *meta_parts(paper), f"`{escape(paper.get('id'))}`"]
    return context(" · ".join(p for p in pieces if p))


def paper_buttons(paper_id: str, public: bool = False, saved: bool = False, origin: Origin | None = None) -> Block:
    """Similar / Share to channel / Abstract / Save for one paper; on messages everyone sees, no Share (they see it
    already) and Add to channel list instead; `origin` lets a Save rebuild the reader's own view in place."""
    elements = [button("Similar", ACTION_SIMILAR, paper_id)]
    if not public:
        elements.append(button("Share to channel", ACTION_SHARE, paper_id))
    elements.append(button("Abstract", ACTION_ABSTRACT, paper_id))
    elements.append(save_button(paper_id, saved, None if public else origin))
    if public:
        elements.append(list_add_button(paper_id))
    return actions(*elements)


def result_blocks(
    result: Result,
    public: bool = False,
    saved: Collection[str] = (),
    origin: Origin | None = None,
    show_venue: bool = False,
) -> list[Block]:
    """A search hit: linked title, headline, snippet with matched words in bold, authors/meta, buttons."""
    paper = result.paper
    lines = [title_line(paper)]
    headline = one_line(paper.get("headline"))
    if headline:
        lines.append(truncate(escape(headline), HEADLINE_CHARS))
    snippet = one_line(as_mrkdwn(result.snippet))
    if snippet and snippet.strip(ELLIPSIS + " ").lower() not in headline.lower():
        lines.append(truncate(escape(snippet), SNIPPET_CHARS))
    pid = str(paper["id"])
    context_line = paper_context(paper, show_venue, result.named)
    return [section("\n".join(lines)), context_line, paper_buttons(pid, public, pid in saved, origin)]


def results_message(
    response: SearchResponse, public: bool = False, intro: str | None = None, saved: Collection[str] = ()
) -> Message:
    """One page of search results with the typo notice, a "1-5 of N" footer and a More-results button; `saved`: the
    reader's saved ids among them (their Save buttons say Saved)."""
    query = response.query
    if not response.results:
        return no_results_message(response, intro, public)
    blocks: list[Block] = []
    if intro:
        blocks.append(context(intro))
    if response.corrected:
        blocks.append(context(f"Showing results for {bold(response.corrected)} (you typed {bold(query)})"))
    blocks.extend(_notes(response))
    origin = Origin("search", query, response.offset)
    for result in response.results:
        blocks.extend(result_blocks(result, public, saved, origin, show_venue=response.venues > 1))
        blocks.append(divider())
    first, last = response.offset + 1, response.offset + len(response.results)
    total = max(response.total, last)
    # Past a lower bound: paging has found the end
    exact = response.total_exact or last > response.total
    # a lower bound for very common words ("400+" read as a typo)
    of = f"{total:,}" if exact else f"at least {total:,}"
    footer = f"{first}-{last} of {of} for {bold(response.corrected or query)}"
    more = None
    if last < total or not exact:
        more = button("More results", ACTION_PAGE, page_value(query, last, replace=not public))
    blocks.append(section(footer, accessory=more))
    titles = "; ".join(display_title(r.paper) for r in response.results)
    return message(f"{first}-{last} of {of} papers for “{escape(one_line(query))}”: {escape(titles)}", blocks)


def _notes(response: SearchResponse) -> list[Block]:
    """The search's remarks about the query (a filter it ignored, words only some papers have), escaped."""
    notes = [
        truncate(escape(one_line(as_mrkdwn(n))), 500) for n in getattr(response, "notes", None) or [] if n.text.strip()
    ]
    return [context(*notes[:3])] if notes else []


def no_results_message(response: SearchResponse, intro: str | None = None, public: bool = False) -> Message:
    """No papers matched: say so, and offer the search's suggestions as one-click buttons (when nothing was searched,
    what to type instead is the answer: "Which topic? Name one, as in ...")."""
    blocks: list[Block] = [context(intro)] if intro else []
    said = one_line(" ".join(as_mrkdwn(n) for n in response.notes))
    if not response.searched and said:
        text = truncate(escape(said), 500)
        return message(_fallback(text), [*blocks, section(text)])
    blocks.extend(_notes(response))
    if response.offset and response.total:
        # Past a lower bound ("120+"), the pages before this one held them all: the offset is the count.
        count = response.total if response.total_exact else max(response.total, response.offset)
        text = f"No more papers for {bold(response.query)} ({count:,} in all)."
    else:
        text = f"No papers match {bold(response.query)}."
    suggestions = [one_line(s) for s in response.suggestions if one_line(s)][:5]
    if suggestions:
        text += " Did you mean " + " or ".join(bold(s) for s in suggestions) + "?"
    else:
        text += " Try fewer or different words, an acronym (`MoE`) or a paper name."
    blocks.append(section(text))
    if suggestions:
        blocks.append(actions(*(button(s, ACTION_PAGE, page_value(s, 0, replace=not public)) for s in suggestions)))
    return message(_fallback(text), blocks)


def similar_message(
    paper: PaperRow, results: Sequence[Result], public: bool = False, saved: Collection[str] = ()
) -> Message:
    """Papers like `paper`, each with its buttons."""
    title = link(paper.get("url"), display_title(paper))
    if not results:
        return notice(f"I found no papers similar to *{title}*.")
    blocks: list[Block] = [section(f"Papers similar to *{title}*")]
    origin = Origin("similar", str(paper["id"]))
    several = len({venue_name(p) for p in (paper, *(r.paper for r in results))}) > 1
    for result in results:
        blocks.extend(result_blocks(result, public, saved, origin, show_venue=several))
        blocks.append(divider())
    names = "; ".join(display_title(r.paper) for r in results)
    return message(f"Papers similar to {escape(display_title(paper))}: {escape(names)}", blocks[:-1])


def paper_message(
    paper: PaperRow, note: str | None = None, another: bool = False, saved: bool = False, memory: Sequence[str] = ()
) -> Message:
    """One paper in full: title, headline, authors, status/session/area, links, the workspace's memory of it (mrkdwn
    lines, bot/slack/blocks/history.py), the whole abstract, buttons."""
    blocks: list[Block] = []
    if note:
        blocks.append(context(note))
    blocks.append(header(display_title(paper)))
    lines = []
    if paper.get("headline"):
        lines.append(f"_{escape(one_line(paper['headline']).replace('_', ' '))}_")
    authors = authors_text(paper.get("authors"), AUTHORS_IN_DETAIL)
    if authors:
        lines.append(authors)
    links = [
        link(url, label)
        for url, label in (
            (paper.get("url"), "paper"),
            (paper.get("pdf_url"), "pdf"),
            (paper.get("code_url"), "code"),
            (paper.get("dataset_url"), "data"),
        )
        if safe_url(url)
    ]
    if links:
        lines.append(" · ".join(links))
    if lines:
        blocks.append(section("\n".join(lines)))
    facts = [escape(venue_name(paper))] if paper.get("venue") else []
    facts += [
        escape(one_line(value)) for value in (paper.get("status"), paper.get("session"), paper.get("area")) if value
    ]
    blocks.append(context(*facts, f"id `{escape(paper.get('id'))}`"))
    if memory:
        blocks.append(context(*memory))
    blocks.extend(section(piece) for piece in split_text(escape(abstract_mrkdwn(paper)), most=20))
    elements = [
        button("Similar", ACTION_SIMILAR, str(paper["id"])),
        button("Share to channel", ACTION_SHARE, str(paper["id"])),
        save_button(str(paper["id"]), saved, Origin("random" if another else "paper", str(paper["id"]))),
    ]
    if another:
        elements.append(button("Another one", ACTION_RANDOM, "random"))
    blocks.append(actions(*elements))
    return message(f"{escape(display_title(paper))}: {escape(one_line(paper.get('headline')))}", blocks)


def abstract_message(paper: PaperRow, saved: bool = False) -> Message:
    """The whole abstract of one paper (split over sections when longer than 3,000 characters), and Save."""
    blocks = [section(title_line(paper))]
    blocks.extend(section(piece) for piece in split_text(escape(abstract_mrkdwn(paper)), most=MAX_BLOCKS - 3))
    blocks.append(actions(save_button(str(paper["id"]), saved, Origin("abstract", str(paper["id"])))))
    return message(f"Abstract of {escape(display_title(paper))}", blocks)


def shared_message(paper: PaperRow, user_id: str | None) -> Message:
    """A paper posted for the whole channel, attributed to who shared it."""
    blocks: list[Block] = [
        section(f"{title_line(paper)}\n{truncate(escape(one_line(paper.get('headline'))), 600)}"),
        paper_context(paper),
        context(f"Shared by {mention(user_id)} with `/icml`"),
        paper_buttons(str(paper["id"]), public=True),
    ]
    return message(f"{mention(user_id)} shared {escape(display_title(paper))}", blocks)


def help_message(command: str, entries: Sequence[tuple[str, str]]) -> Message:
    """Usage from the command table: one line per (usage, help) pair."""
    lines = [f"`{escape(' '.join(filter(None, (command, usage))))}`  {escape(text)}" for usage, text in entries]
    body = "*Search ICML 2026 papers*\n" + "\n".join(lines)
    body += "\nMention me in a thread (`@icml-bot`) to get papers related to the discussion."
    body += "\nOn any message, *Find related papers* (its ⋯ menu) answers with papers related to it, in its thread."
    return message(_fallback(body), [section(body)])


def stats_message(stats: dict[str, Any], now: datetime | None = None) -> Message:
    """What the index holds: papers, words, venues, what a search covers, sources and how old the index is."""
    built = summary.age(stats.get("last_indexed"), now or datetime.now(UTC))
    lines = [
        f"*{stats.get('papers', 0):,} papers* and {stats.get('vocabulary', 0):,} words indexed, "
        f"last indexed {escape(built)}."
    ]
    lines += [f"• {escape(line)}" for line in summary.venue_lines(stats.get("venues") or [])[:20]]
    if stats.get("searched"):
        lines.append(f"Searched unless a query names venues: {escape(str(stats['searched']))}")
    lines.append("Sources:")
    for source in list(stats.get("sources") or [])[:20]:
        lines.append(
            f"• {escape(str(source.get('name')))}: {int(source.get('records') or 0):,} records "
            f"({int(source.get('added') or 0):,} added, {int(source.get('merged') or 0):,} merged, "
            f"{int(source.get('skipped') or 0):,} skipped)"
        )
    text = "\n".join(lines)
    return message(_fallback(lines[0]), [section(text)])
