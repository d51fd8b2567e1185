"""The team layer's messages: `/icml saved`, the channel's reading list, the Home tab, and the replies to Save,
Add to channel list, More/Less like this and exports. Pure builders; valid by construction like the rest of blocks."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.papers.row import PaperRow
from bot.slack.blocks.kit import (
    MAX_SECTION_TEXT,
    Block,
    Message,
    _fallback,
    actions,
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
    safe_url,
    section,
    truncate,
)
from bot.slack.blocks.papers import ACTION_ABSTRACT, ACTION_SIMILAR, display_title, paper_context, title_line
from bot.slack.blocks.team_buttons import (
    ACTION_HOME_SIMILAR,
    ACTION_LIST_PAGE,
    ACTION_LIST_REMOVE,
    ACTION_SAVED_PAGE,
    Origin,
    paper_value,
    save_button,
    unsave_button,
)
from bot.team.listing import Page
from bot.team.reading_list import ListedPaper
from bot.team.saves import SavedPaper

HOME_SAVED = 20  # newest saves on the Home tab (a Home view holds at most 100 blocks)
HOME_DIGESTS = 10
HOME_DISCUSSED = 5  # papers the workspace shared or unfurled lately
MAX_HOME_BLOCKS = 100
_CHANNEL_ID = re.compile(r"^[CG][A-Z0-9]{2,}$")
GONE_NOTE = "is no longer in the index (it was removed or replaced)"


def day(at: float) -> str:
    """`3 Mar 2026`, in UTC: when something was saved or added."""
    moment = datetime.fromtimestamp(at, UTC)
    return f"{moment.day} {moment:%b %Y}"


def paper_links(paper: PaperRow) -> str:
    """`pdf · code · data` links of a paper, when it has them."""
    pairs = ((paper.get("pdf_url"), "pdf"), (paper.get("code_url"), "code"), (paper.get("dataset_url"), "data"))
    return " · ".join(link(url, label) for url, label in pairs if safe_url(url))


def _headline(paper: PaperRow) -> str:
    return truncate(escape(one_line(paper.get("headline"))), 300)


def _pager(action_id: str, page: Page[Any], label: str) -> list[Block]:
    """`Previous` / `Next` buttons and where this page sits (`11-20 of 45 saved papers`)."""
    first, last = page.offset + 1, page.offset + len(page.items)
    buttons = []
    if page.previous_offset is not None:
        buttons.append(button("Previous", action_id, str(page.previous_offset)))
    if page.next_offset is not None:
        buttons.append(button("Next", action_id, str(page.next_offset)))
    where = context(f"{first}-{last} of {page.total} {label}")
    return [where, actions(*buttons)] if buttons else [where]


# ------------------------------------------------------------------ /icml saved


def saved_message(page: Page[SavedPaper]) -> Message:
    """One page of a user's saved papers, newest first: each linked, with Unsave, Similar and Abstract."""
    if not page.items:
        if page.total:
            return notice(f"No saved papers on this page (you have {page.total}). `/icml saved` shows the first page.")
        return notice(
            "You have no saved papers yet. Press *Save* under any paper I show (search results, similar papers, "
            "digests, thread answers), then find them here, on my Home tab and in `/icml export bibtex`."
        )
    out: list[Block] = [
        section(f"*Your saved papers* ({page.total}), newest first. Only you see them."),
        context("`/icml export bibtex` (or `csv`, `md`) sends them all as a file; my Home tab shows the newest 20."),
    ]
    origin = Origin("saved", "", page.offset)
    for item in page.items:
        out.extend(_saved_item(item, origin))
    out.extend(_pager(ACTION_SAVED_PAGE, page, "saved papers"))
    names = "; ".join(display_title(i.paper) if i.paper else i.paper_id for i in page.items)
    return message(f"Your saved papers ({page.total}): {escape(names)}", out)


def _saved_item(item: SavedPaper, origin: Origin) -> list[Block]:
    if item.paper is None:
        return [
            section(f"`{escape(item.paper_id)}` {GONE_NOTE}; saved {day(item.saved_at)}."),
            actions(unsave_button(item.paper_id, origin)),
        ]
    paper, pid = item.paper, str(item.paper["id"])
    lines = [title_line(paper), _headline(paper)]
    facts = [f"saved {day(item.saved_at)}", paper_links(paper), f"`{escape(pid)}`"]
    return [
        section("\n".join(x for x in lines if x)),
        context(" · ".join(x for x in facts if x)),
        actions(
            unsave_button(item.paper_id, origin),
            button("Similar", ACTION_SIMILAR, pid),
            button("Abstract", ACTION_ABSTRACT, pid),
        ),
    ]


# ------------------------------------------------------------------ the channel's reading list


def list_message(page: Page[ListedPaper], saved: Collection[str] = ()) -> Message:
    """One page of the channel's reading list, newest first: who added each paper and when, Save and Remove."""
    if not page.items:
        if page.total:
            return notice(f"No papers on this page (the list has {page.total}). `/icml list` shows the first page.")
        return notice(
            "This channel's reading list is empty. Add a paper with `/icml list add &lt;id or name&gt;` or the *Add to "
            "channel list* button under papers posted here."
        )
    out: list[Block] = [
        section(f"*This channel's reading list* ({page.total}), newest first. Only this channel sees it."),
        context(
            "`/icml list export bibtex` posts it here as a .bib file; `/icml list remove &lt;id&gt;` takes one off."
        ),
    ]
    origin = Origin("list", "", page.offset)
    for item in page.items:
        out.extend(_listed_item(item, origin, saved))
    out.extend(_pager(ACTION_LIST_PAGE, page, "papers on the list"))
    names = "; ".join(display_title(i.paper) if i.paper else i.paper_id for i in page.items)
    return message(f"Reading list ({page.total}): {escape(names)}", out)


def _listed_item(item: ListedPaper, origin: Origin, saved: Collection[str]) -> list[Block]:
    added = f"added by {mention(item.added_by)} on {day(item.added_at)}"
    remove = button("Remove", ACTION_LIST_REMOVE, paper_value(item.paper_id, origin))
    if item.paper is None:
        return [section(f"`{escape(item.paper_id)}` {GONE_NOTE}; {added}."), actions(remove)]
    paper, pid = item.paper, str(item.paper["id"])
    lines = [title_line(paper), _headline(paper)]
    facts = [added, paper_links(paper), f"`{escape(pid)}`"]
    return [
        section("\n".join(x for x in lines if x)),
        context(" · ".join(x for x in facts if x)),
        actions(button("Similar", ACTION_SIMILAR, pid), save_button(pid, pid in saved), remove),
    ]


def listed_message(paper: PaperRow, user: str) -> Message:
    """Posted in the channel when someone adds a paper to its reading list."""
    text = f"{mention(user)} added {title_line(paper)} to this channel's reading list (`/icml list`)."
    return message(
        _fallback(f"{mention(user)} added {escape(display_title(paper))} to the reading list"),
        [
            section(text),
            paper_context(paper),
        ],
    )


def already_listed_message(paper: PaperRow, added_by: str, added_at: float) -> Message:
    """A second add of the same paper: nothing changes, and who added it first."""
    return notice(
        f"{title_line(paper)} is already on this channel's reading list (added by {mention(added_by)} on "
        f"{day(added_at)})."
    )


# ------------------------------------------------------------------ replies to Save and the digest's buttons


def saved_reply(paper: PaperRow, created: bool, extra: str = "", digest: bool = False) -> Message:
    """Said to the reader alone after Save on a message everyone sees: saved (or already), with Unsave (which, under a
    digest, also takes back the More like this the Save counted as)."""
    pid = str(paper["id"])
    what = "Saved" if created else "Already saved:"
    text = f"{what} {title_line(paper)}. `/icml saved` lists your saved papers.{extra}"
    return message(
        _fallback(f"{what} {escape(display_title(paper))}"),
        [
            section(text, accessory=unsave_button(pid, Origin("digest") if digest else None)),
        ],
    )


def unsaved_reply(paper_id: str, paper: PaperRow | None, removed: bool, extra: str = "") -> Message:
    """Said to the reader after Unsave outside their own views: unsaved (or it was not saved), with Save again."""
    name = title_line(paper) if paper else f"`{escape(paper_id)}`"
    text = f"Unsaved {name}.{extra}" if removed else f"{name} was not in your saved papers.{extra}"
    accessory = save_button(paper_id) if paper else None
    return message(_fallback(text), [section(text, accessory=accessory)])


# ------------------------------------------------------------------ exports


def export_reply(count: int, filename: str, where: str, missing: Sequence[str], snippet: str | None) -> Message:
    """The acknowledgement of an export: how many papers go where, any left out, and a code block for a few."""
    noun = "paper" if count == 1 else "papers"
    lines = [f"Sending {count} {noun} as `{escape(filename)}` {where}."]
    if missing:
        ids = ", ".join(f"`{escape(m)}`" for m in missing[:10])
        lines.append(f"Left out {len(missing)} no longer in the index: {ids}.")
    out = [section("\n".join(lines))]
    block = code_block(snippet or "")
    if block:
        out.append(section(block))
    return message(_fallback(lines[0]), out)


def code_block(text: str) -> str | None:
    """Text as a ```code block``` Slack shows verbatim; None when data could end it early (a backtick) or it would
    not fit one section whole (cut, it would lose its closing fence)."""
    block = f"```{escape(text)}```"
    if not text or "`" in text or len(block) > MAX_SECTION_TEXT:
        return None
    return block


# ------------------------------------------------------------------ the Home tab


@dataclass(frozen=True)
class DigestLine:
    """One channel's digest as the Home tab shows it: the channel, its schedule in words and its next run."""

    channel: str
    schedule: str  # mrkdwn, escaped
    next_label: str | None


@dataclass(frozen=True)
class Discussed:
    """A paper the workspace shared or unfurled lately, and where and when (mrkdwn, bot/slack/blocks/history.py)."""

    paper: PaperRow
    line: str


def home_view(
    saved: Page[SavedPaper],
    digests: Sequence[DigestLine],
    help_lines: Sequence[tuple[str, str]],
    similar: tuple[PaperRow, Sequence[PaperRow]] | None = None,
    saved_ids: Collection[str] = (),
    memories: Mapping[str, str] | None = None,
    discussed: Sequence[Discussed] = (),
    today: Sequence[Block] = (),
) -> dict[str, Any]:
    """The Home tab: during a venue's days your plan for today (`today`, blocks/plan.py), papers similar to one you
    asked about, your newest saves (with who else saved them and where they were shared: `memories`, by paper id),
    what the workspace shared lately, its digests, /icml help."""
    out: list[Block] = [header("ICML 2026 papers"), *today]
    if similar is not None:
        out.extend(_home_similar(*similar, saved_ids=saved_ids))
    out.append(section(f"*Your saved papers* ({saved.total})" + (", newest first" if saved.total else "")))
    if not saved.items:
        out.append(context("Nothing saved yet: press *Save* under any paper I show."))
    origin = Origin("home")
    for item in saved.items[:HOME_SAVED]:
        if item.paper is None:
            out.append(section(f"`{escape(item.paper_id)}` {GONE_NOTE}.", accessory=unsave_button(item.paper_id)))
            continue
        pid = str(item.paper["id"])
        remembered = (memories or {}).get(item.paper_id, "")
        facts = " · ".join(x for x in (f"saved {day(item.saved_at)}", remembered, paper_links(item.paper)) if x)
        out.append(section(f"{title_line(item.paper)}\n{facts}"))
        out.append(actions(unsave_button(pid, origin), button("Similar", ACTION_HOME_SIMILAR, pid)))
    if saved.total > len(saved.items[:HOME_SAVED]):
        out.append(context(f"{saved.total - HOME_SAVED} more: `/icml saved`, or `/icml export bibtex` for all."))
    out.append(divider())
    if discussed:
        out.append(section("*Shared in this workspace lately*"))
        out.extend(section(f"{title_line(d.paper)}\n{d.line}") for d in discussed[:HOME_DISCUSSED])
        out.append(divider())
    out.append(section("*Daily digests in this workspace*"))
    if not digests:
        out.append(context("None yet. In a channel: `/icml digest subscribe kv cache at 09:00 Europe/Paris`."))
    for line in digests[:HOME_DIGESTS]:
        nxt = f" · next {escape(line.next_label)}" if line.next_label else ""
        where = f"<#{line.channel}>" if _CHANNEL_ID.match(line.channel) else f"`{escape(line.channel)}`"
        out.append(context(f"{where}: {line.schedule}{nxt}"))
    out.append(divider())
    lines = "\n".join(f"`{escape(usage)}`  {escape(text)}" for usage, text in help_lines)
    out.append(section(f"*How to use /icml*\n{lines}"))
    return {"type": "home", "blocks": out[:MAX_HOME_BLOCKS]}


def _home_similar(paper: PaperRow, results: Sequence[PaperRow], saved_ids: Collection[str]) -> list[Block]:
    out: list[Block] = [section(f"*Papers similar to* {title_line(paper)}")]
    if not results:
        out.append(context("I found none."))
    origin = Origin("home", str(paper["id"]))
    for found in results[:5]:
        pid = str(found["id"])
        out.append(
            section(f"{title_line(found)}\n{_headline(found)}", accessory=save_button(pid, pid in saved_ids, origin))
        )
    out.append(divider())
    return out
