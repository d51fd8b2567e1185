"""Pure Block Kit builders for every message the bot sends: mrkdwn escaping, safe links and Slack's size limits.

Nothing here talks to Slack or the index: functions take papers and search results and return message dicts
(``{"text": fallback, "blocks": [...]}``) that are valid by construction, so Slack never rejects one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.search import Result, SearchResponse

Message = dict[str, Any]
Block = dict[str, Any]

# Slack's limits (docs.slack.dev/reference/block-kit; slack_sdk.models.blocks enforces the same numbers).
MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_ACTION_ID = 255
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS_ELEMENTS = 25
MAX_TEXT_OBJECT = 3000
MAX_URL = 3000
# Our own cap on the notification/fallback text (Slack truncates message text only at 40,000 characters).
MAX_FALLBACK_TEXT = 3000

# Display budgets, well inside the limits above.
TITLE_CHARS = 250
HEADLINE_CHARS = 250
SNIPPET_CHARS = 700
AUTHORS_SHOWN = 3
AUTHORS_IN_DETAIL = 30
PAGE_SIZE = 5
QUERY_SHOWN = 200

# Button action ids; bot/slack/actions.py registers one listener for each.
ACTION_PAGE = "results_page"
ACTION_SIMILAR = "paper_similar"
ACTION_SHARE = "paper_share"
ACTION_ABSTRACT = "paper_abstract"
ACTION_RANDOM = "paper_random"
ACTION_IDS = (ACTION_PAGE, ACTION_SIMILAR, ACTION_SHARE, ACTION_ABSTRACT, ACTION_RANDOM)

ELLIPSIS = "…"
_LABEL_JUNK = re.compile(r"[|<>*]")
_SPACES = re.compile(r"\s+")
_SAFE_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$", re.I)
_USER_ID = re.compile(r"^[UW][A-Z0-9]+$")
_ENTITY_TAIL = re.compile(r"&[a-z]{0,4}$")
# Whether Slack decodes entities in plain_text is undocumented; look-alike characters are unambiguous.
_ANGLES = str.maketrans({"<": "‹", ">": "›"})


# ------------------------------------------------------------------ text


def escape(text: str | None) -> str:
    """Escape Slack's three control characters so paper or user text can never ping (`<!channel>`) or link."""
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def one_line(text: str | None) -> str:
    """Collapse all whitespace (newlines included) to single spaces."""
    return _SPACES.sub(" ", text or "").strip()


def truncate(text: str, limit: int) -> str:
    """Cut already-escaped mrkdwn to `limit` characters with "…", never inside an entity, a link or a bold span."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    cut = _ENTITY_TAIL.sub("", cut)  # "&am" left over from "&amp;"
    opened, closed = cut.rfind("<"), cut.rfind(">")
    if opened > closed:  # half a link: drop it
        cut = cut[:opened]
    if cut.count("*") % 2:  # half a bold span: drop the dangling marker
        i = cut.rfind("*")
        cut = cut[:i] + cut[i + 1 :]
    return cut.rstrip() + ELLIPSIS


SLACK_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]*)>")  # <url|label> as mrkdwn writes a link


def unescape(text: str) -> str:
    """Slack's `&amp;`, `&lt;`, `&gt;` back to the characters a user typed or a label holds."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def plain_truncate(text: str, limit: int) -> str:
    """Cut plain text (plain_text objects, button labels) to `limit` characters with "…"."""
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def bold(text: str | None, limit: int = QUERY_SHOWN) -> str:
    """User text shown in bold: escaped, on one line, without asterisks that would end the bold early."""
    inner = truncate(escape(one_line(text).replace("*", "")), limit)
    return f"*{inner}*" if inner else ""


def safe_url(url: str | None) -> str | None:
    """An http(s) URL made safe inside `<url|label>`, or None for anything else (javascript:, mailto:, junk)."""
    url = (url or "").strip()
    if not url or len(url) > MAX_URL or not _SAFE_URL.match(url):
        return None
    return url.replace("&", "&amp;").replace("<", "%3C").replace(">", "%3E").replace("|", "%7C")


def link(url: str | None, label: str | None) -> str:
    """`<url|label>` with `|`, `<`, `>` (and bold markers) stripped from the label; just the label without a URL."""
    text = escape(one_line(_LABEL_JUNK.sub("", label or "")))
    target = safe_url(url)
    if target is None:
        return text
    return f"<{target}|{text}>" if text else f"<{target}>"


def mention(user_id: str | None) -> str:
    """`<@U…>` for a real Slack user id, "someone" for anything else (never a crafted `<!channel>`)."""
    return f"<@{user_id}>" if user_id and _USER_ID.match(user_id) else "someone"


def split_text(text: str, limit: int = MAX_SECTION_TEXT) -> list[str]:
    """Split escaped mrkdwn into pieces of at most `limit` characters at spaces (never inside an entity)."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        cut = rest.rfind(" ", 0, limit)
        if cut <= limit // 2:
            cut = limit
            amp = rest.rfind("&", cut - 5, cut)
            if amp != -1 and ";" not in rest[amp:cut]:
                cut = amp
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


# ------------------------------------------------------------------ block primitives


def mrkdwn(text: str) -> dict[str, Any]:
    """A mrkdwn text object (the caller has escaped the text)."""
    return {"type": "mrkdwn", "text": text}


def plain_text(text: str, limit: int = MAX_TEXT_OBJECT) -> dict[str, Any]:
    """A plain_text object cut to `limit`; `<`/`>` become ‹/› so no client can read a mention into it."""
    return {"type": "plain_text", "text": plain_truncate(text.translate(_ANGLES), limit) or " ", "emoji": True}


def section(text: str, accessory: dict[str, Any] | None = None) -> Block:
    """A section block with mrkdwn text cut to Slack's 3,000 characters."""
    block: Block = {"type": "section", "text": mrkdwn(truncate(text, MAX_SECTION_TEXT) or " ")}
    if accessory:
        block["accessory"] = accessory
    return block


def header(text: str) -> Block:
    """A header block (plain text, at most 150 characters)."""
    return {"type": "header", "text": plain_text(text.replace("*", ""), MAX_HEADER_TEXT)}


def context(*texts: str) -> Block:
    """A context block of up to 10 mrkdwn elements (empty texts dropped)."""
    elements = [mrkdwn(truncate(t, MAX_TEXT_OBJECT)) for t in texts if t][:MAX_CONTEXT_ELEMENTS]
    return {"type": "context", "elements": elements or [mrkdwn(" ")]}


def button(label: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    """A button; label cut to 75 characters, value required to fit 2,000."""
    if len(value) > MAX_BUTTON_VALUE or len(action_id) > MAX_ACTION_ID:
        raise ValueError(f"button value/action_id too long for Slack ({len(value)}/{len(action_id)})")
    element: dict[str, Any] = {
        "type": "button",
        "text": plain_text(label, MAX_BUTTON_TEXT),
        "action_id": action_id,
        "value": value,
    }
    if style:
        element["style"] = style
    return element


def actions(*elements: dict[str, Any]) -> Block:
    """An actions block of up to 25 elements."""
    return {"type": "actions", "elements": list(elements)[:MAX_ACTIONS_ELEMENTS]}


def divider() -> Block:
    """A divider block."""
    return {"type": "divider"}


def message(text: str, blocks: Sequence[Block]) -> Message:
    """A message with a fallback `text` (notifications, screen readers) and at most 50 blocks."""
    blocks = list(blocks)
    if len(blocks) > MAX_BLOCKS:
        blocks = [*blocks[: MAX_BLOCKS - 1], context("_…more than Slack can show in one message._")]
    fallback = truncate(one_line(text), MAX_FALLBACK_TEXT) or "icml-bot"
    return {"text": fallback, "blocks": blocks}


def notice(text: str) -> Message:
    """A one-section message (usage hints, errors, confirmations); `text` is mrkdwn the caller escaped."""
    return message(_fallback(text), [section(text)])


def _fallback(mrkdwn_text: str) -> str:
    """Readable plain fallback text from escaped mrkdwn (entities back to characters, markers dropped)."""
    text = SLACK_LINK.sub(r"\2", mrkdwn_text)
    text = text.replace("*", "").replace("`", "")
    # Fallback text is itself parsed as mrkdwn by Slack, so keep &, <, > escaped.
    return text


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


def display_title(paper: dict[str, Any]) -> str:
    """The paper's name and title as people call it: "Name: Title", or the title when it already starts so."""
    title = one_line(paper.get("title")) or one_line(paper.get("name")) or "Untitled"
    name = one_line(paper.get("name"))
    if name and not title.lower().startswith(name.lower()):
        title = f"{name}: {title}"
    return title


def title_line(paper: dict[str, Any]) -> str:
    """The bold title, linked to the paper page when it has an http(s) URL."""
    label = plain_truncate(display_title(paper), TITLE_CHARS)
    return f"*{link(paper.get('url') or paper.get('pdf_url'), label)}*"


def authors_text(authors: Iterable[str] | None, shown: int = AUTHORS_SHOWN) -> str:
    """Up to `shown` author names and "et al.", escaped."""
    names = [one_line(a) for a in authors or [] if one_line(a)]
    if not names:
        return ""
    text = ", ".join(names[:shown]) + (" et al." if len(names) > shown else "")
    return truncate(escape(text), 600)


def meta_parts(paper: dict[str, Any]) -> list[str]:
    """Status, session and a code link, when known, as short mrkdwn pieces."""
    parts = [escape(one_line(paper.get(k))) for k in ("status", "session") if paper.get(k)]
    if safe_url(paper.get("code_url")):
        parts.append(link(paper["code_url"], "code"))
    return parts


def paper_context(paper: dict[str, Any]) -> Block:
    """One context line under a paper: authors · status · session · code · id (at most 10 elements)."""
    pieces = [authors_text(paper.get("authors")), *meta_parts(paper), f"`{escape(paper.get('id'))}`"]
    return context(" · ".join(p for p in pieces if p))


def paper_buttons(paper_id: str, public: bool = False) -> Block:
    """Similar / Share to channel / Abstract for one paper (no Share on messages everyone already sees)."""
    elements = [button("Similar", ACTION_SIMILAR, paper_id)]
    if not public:
        elements.append(button("Share to channel", ACTION_SHARE, paper_id))
    elements.append(button("Abstract", ACTION_ABSTRACT, paper_id))
    return actions(*elements)


def result_blocks(result: Result, public: bool = False) -> list[Block]:
    """A search hit: linked title, headline, snippet with matched words in bold, authors/meta, buttons."""
    paper = result.paper
    lines = [title_line(paper)]
    headline = one_line(paper.get("headline"))
    if headline:
        lines.append(truncate(escape(headline), HEADLINE_CHARS))
    snippet = one_line(result.snippet)
    if snippet and snippet.strip(ELLIPSIS + " ").lower() not in headline.lower():
        lines.append(truncate(escape(snippet), SNIPPET_CHARS))
    return [section("\n".join(lines)), paper_context(paper), paper_buttons(str(paper["id"]), public)]


def results_message(response: SearchResponse, public: bool = False, intro: str | None = None) -> Message:
    """One page of search results with the typo notice, a "1-5 of N" footer and a More-results button."""
    query = response.query
    if not response.results:
        return no_results_message(response, intro, public)
    blocks: list[Block] = []
    if intro:
        blocks.append(context(intro))
    if response.corrected:
        blocks.append(context(f"Showing results for {bold(response.corrected)} (you typed {bold(query)})"))
    blocks.extend(_notes(response))
    for result in response.results:
        blocks.extend(result_blocks(result, public))
        blocks.append(divider())
    first, last = response.offset + 1, response.offset + len(response.results)
    total = max(response.total, last)
    footer = f"{first}-{last} of {total} for {bold(response.corrected or query)}"
    more = None
    if last < total:
        more = button("More results", ACTION_PAGE, page_value(query, last, replace=not public))
    blocks.append(section(footer, accessory=more))
    titles = "; ".join(display_title(r.paper) for r in response.results)
    return message(f"{first}-{last} of {total} papers for “{escape(one_line(query))}”: {escape(titles)}", blocks)


def _notes(response: SearchResponse) -> list[Block]:
    """The search's remarks about the query (a filter it ignored, words only some papers have), escaped."""
    notes = [truncate(escape(one_line(n)), 500) for n in getattr(response, "notes", None) or [] if one_line(n)]
    return [context(*notes[:3])] if notes else []


def no_results_message(response: SearchResponse, intro: str | None = None, public: bool = False) -> Message:
    """No papers matched: say so, and offer the search's suggestions as one-click buttons."""
    blocks: list[Block] = [context(intro)] if intro else []
    blocks.extend(_notes(response))
    if response.offset and response.total:
        text = f"No more papers for {bold(response.query)} ({response.total} in all)."
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


def similar_message(paper: dict[str, Any], results: Sequence[Result], public: bool = False) -> Message:
    """Papers like `paper`, each with its buttons."""
    title = link(paper.get("url"), display_title(paper))
    if not results:
        return notice(f"I found no papers similar to *{title}*.")
    blocks: list[Block] = [section(f"Papers similar to *{title}*")]
    for result in results:
        blocks.extend(result_blocks(result, public))
        blocks.append(divider())
    names = "; ".join(display_title(r.paper) for r in results)
    return message(f"Papers similar to {escape(display_title(paper))}: {escape(names)}", blocks[:-1])


def paper_message(paper: dict[str, Any], note: str | None = None, another: bool = False) -> Message:
    """One paper in full: title, headline, authors, status/session/area, links, the whole abstract, buttons."""
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
        link(paper.get(k), label)
        for k, label in (("url", "paper"), ("pdf_url", "pdf"), ("code_url", "code"))
        if safe_url(paper.get(k))
    ]
    if links:
        lines.append(" · ".join(links))
    if lines:
        blocks.append(section("\n".join(lines)))
    facts = [escape(one_line(paper.get(k))) for k in ("status", "session", "area") if paper.get(k)]
    blocks.append(context(*facts, f"id `{escape(paper.get('id'))}`"))
    blocks.extend(section(piece) for piece in split_text(escape(paper.get("abstract") or ""))[:20])
    elements = [
        button("Similar", ACTION_SIMILAR, str(paper["id"])),
        button("Share to channel", ACTION_SHARE, str(paper["id"])),
    ]
    if another:
        elements.append(button("Another one", ACTION_RANDOM, "random"))
    blocks.append(actions(*elements))
    return message(f"{escape(display_title(paper))}: {escape(one_line(paper.get('headline')))}", blocks)


def abstract_message(paper: dict[str, Any]) -> Message:
    """The whole abstract of one paper (split over sections when longer than 3,000 characters)."""
    blocks = [section(title_line(paper))]
    blocks.extend(section(piece) for piece in split_text(escape(paper.get("abstract") or ""))[: MAX_BLOCKS - 2])
    return message(f"Abstract of {escape(display_title(paper))}", blocks)


def shared_message(paper: dict[str, Any], user_id: str | None) -> Message:
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
    return message(_fallback(body), [section(body)])


def stats_message(stats: dict[str, Any]) -> Message:
    """What the index holds: papers, words, sources and when it was last built."""
    lines = [
        f"*{stats.get('papers', 0):,} papers* and {stats.get('vocabulary', 0):,} words indexed, "
        f"last indexed {escape(str(stats.get('last_indexed') or 'never'))}."
    ]
    for source in list(stats.get("sources") or [])[:20]:
        lines.append(
            f"• {escape(str(source.get('name')))}: {int(source.get('records') or 0):,} records "
            f"({int(source.get('added') or 0):,} added, {int(source.get('merged') or 0):,} merged, "
            f"{int(source.get('skipped') or 0):,} skipped)"
        )
    text = "\n".join(lines)
    return message(_fallback(lines[0]), [section(text)])


# ------------------------------------------------------------------ checks (used by tests and the --blocks CLI)


def problems(msg: Message) -> list[str]:
    """Every way `msg` breaks Slack's limits or our escaping rules; empty when Slack will accept it."""
    found: list[str] = []
    blocks = msg.get("blocks") or []
    if not msg.get("text"):
        found.append("no fallback text")
    if len(blocks) > MAX_BLOCKS:
        found.append(f"{len(blocks)} blocks > {MAX_BLOCKS}")
    for i, block in enumerate(blocks):
        kind = block.get("type")
        texts: list[dict[str, Any]] = []
        if kind == "section":
            texts.append(block["text"])
            if len(block["text"]["text"]) > MAX_SECTION_TEXT:
                found.append(f"block {i}: section text {len(block['text']['text'])} > {MAX_SECTION_TEXT}")
            if block.get("accessory"):
                found.extend(_element_problems(i, block["accessory"]))
        elif kind == "header":
            if block["text"]["type"] != "plain_text" or len(block["text"]["text"]) > MAX_HEADER_TEXT:
                found.append(f"block {i}: bad header")
        elif kind == "context":
            if not 0 < len(block["elements"]) <= MAX_CONTEXT_ELEMENTS:
                found.append(f"block {i}: {len(block['elements'])} context elements")
            texts.extend(block["elements"])
        elif kind == "actions":
            if not 0 < len(block["elements"]) <= MAX_ACTIONS_ELEMENTS:
                found.append(f"block {i}: {len(block['elements'])} actions elements")
            for element in block["elements"]:
                found.extend(_element_problems(i, element))
        for text in texts:
            if len(text["text"]) > MAX_TEXT_OBJECT:
                found.append(f"block {i}: text object too long")
            if text["type"] == "mrkdwn":
                found.extend(f"block {i}: unsafe markup {m!r}" for m in unsafe_markup(text["text"]))
    return found


def _element_problems(i: int, element: dict[str, Any]) -> list[str]:
    found = []
    if element.get("type") == "button":
        if len(element["text"]["text"]) > MAX_BUTTON_TEXT:
            found.append(f"block {i}: button text > {MAX_BUTTON_TEXT}")
        if len(element.get("value", "")) > MAX_BUTTON_VALUE:
            found.append(f"block {i}: button value > {MAX_BUTTON_VALUE}")
        if len(element.get("action_id", "")) > MAX_ACTION_ID:
            found.append(f"block {i}: action_id > {MAX_ACTION_ID}")
    return found


_MARKUP = re.compile(r"<([^>]*)>")
_ALLOWED_MARKUP = re.compile(r"^(https?://[^|\s]+(\|[^|]*)?|@[UW][A-Z0-9]+)$")


def unsafe_markup(text: str) -> list[str]:
    """Slack `<…>` sequences in mrkdwn other than the http(s) links and user mentions we build ourselves."""
    return [m.group(0) for m in _MARKUP.finditer(text) if not _ALLOWED_MARKUP.match(m.group(1))]
