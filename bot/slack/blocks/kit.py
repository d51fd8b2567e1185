"""Block Kit basics for every message the bot sends: mrkdwn escaping, safe links, Slack's size limits, primitives.

Nothing here talks to Slack or the index; messages are valid by construction, so Slack never rejects one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.text.controls import drop_controls
from bot.text.marked import Marked
from bot.text.urls import host_of, hosts_named, is_plain_link

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

QUERY_SHOWN = 200

ELLIPSIS = "…"
_LABEL_JUNK = re.compile(r"[|<>*]")
_SPACES = re.compile(r"\s+")
_NOT_SPACE = re.compile(r"\S")
_SAFE_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$", re.I)
_USER_ID = re.compile(r"^[UW][A-Z0-9]+$")
_ENTITY_TAIL = re.compile(r"&[a-z]{0,4}$")
# A typed special mention (Slack's own are `<!here>`): a word joiner after its `@` keeps it from ever naming anyone.
_SPECIAL_MENTION = re.compile(r"@(?=(?:channel|here|everyone)\b)", re.IGNORECASE)
# Whether Slack decodes entities in plain_text is undocumented; look-alike characters are unambiguous.
_ANGLES = str.maketrans({"<": "‹", ">": "›"})


# ------------------------------------------------------------------ text


def escape(text: str | None) -> str:
    """Escape Slack's three control characters so paper or user text can never ping (`<!channel>`) or link, drop
    control and bidi characters (bot.text.controls), which would reorder what a reader sees, and put a word joiner
    after the `@` of a typed `@channel`, `@here` or `@everyone`, which reads the same and names nobody in whatever
    Slack parses it (the fallback `text` has no `verbatim`)."""
    escaped = drop_controls(text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL_MENTION.sub("@\u2060", escaped) if "@" in escaped else escaped


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


# <url|label>; never reads past a "<": linear on any text
SLACK_LINK = re.compile(r"<(https?://[^|<>]+)\|([^<>]*)>")


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


def as_mrkdwn(text: Marked) -> str:
    """Marked text (a search note, a snippet) as Slack mrkdwn, not yet escaped: its Strong pieces in *bold*, its Code
    pieces as `code`."""
    return text.render(lambda piece: f"*{piece}*", code=lambda piece: f"`{piece}`")


def safe_url(url: str | None) -> str | None:
    """An http(s) URL made safe inside `<url|label>`, or None for anything else (javascript:, mailto:, junk, and links
    that disguise where they go: `user:pass@`, control or bidi characters; bot.text.urls.is_plain_link)."""
    url = (url or "").strip()
    if not url or len(url) > MAX_URL or not _SAFE_URL.match(url) or not is_plain_link(url):
        return None
    return url.replace("&", "&amp;").replace("<", "%3C").replace(">", "%3E").replace("|", "%7C")


def link(url: str | None, label: str | None) -> str:
    """`<url|label>` with `|`, `<`, `>` (and bold markers) stripped from the label; just the label without a URL.

    A label that reads as a link to another host (a title such as `https://openreview.net/forum?id=…` on a link to
    elsewhere) is not made the link's face: it stays plain text, and the link beside it shows its own host."""
    shown = one_line(_LABEL_JUNK.sub("", label or ""))
    text = escape(shown)
    target = safe_url(url)
    if target is None:
        return text
    host = host_of(url or "")
    if any(named != host for named in hosts_named(drop_controls(shown))):
        return f"{text} (<{target}|{escape(host)}>)" if text else f"<{target}>"
    return f"<{target}|{text}>" if text else f"<{target}>"


def mention(user_id: str | None) -> str:
    """`<@U…>` for a real Slack user id, "someone" for anything else (never a crafted `<!channel>`)."""
    return f"<@{user_id}>" if user_id and _USER_ID.match(user_id) else "someone"


def split_text(text: str, limit: int = MAX_SECTION_TEXT, most: int | None = None) -> list[str]:
    """Split escaped mrkdwn into pieces of at most `limit` characters at spaces (never inside an entity), the first
    `most` only when given: the work grows with the text once, never with its square (an abstract of megabytes)."""
    pieces: list[str] = []
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    start = _NOT_SPACE.search(text, 0, end)
    pos = start.start() if start else end
    while end - pos > limit and (most is None or len(pieces) < most):
        cut = text.rfind(" ", pos, pos + limit)
        if cut - pos <= limit // 2:
            cut = pos + limit
            amp = text.rfind("&", cut - 5, cut)
            if amp > pos and ";" not in text[amp:cut]:
                cut = amp
        pieces.append(text[pos:cut].rstrip())
        after = _NOT_SPACE.search(text, cut, end)
        pos = after.start() if after else end
    if pos < end and (most is None or len(pieces) < most):
        pieces.append(text[pos:end])
    return pieces


# ------------------------------------------------------------------ block primitives


def mrkdwn(text: str) -> dict[str, Any]:
    """A mrkdwn text object (the caller has escaped the text), `verbatim`: Slack then only reads the markup we wrote
    (`<url|label>`, `<@U…>`), never a bare URL, channel name or `@here` in the text as a link or mention."""
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def plain_text(text: str, limit: int = MAX_TEXT_OBJECT) -> dict[str, Any]:
    """A plain_text object cut to `limit`; `<`/`>` become ‹/› so no client can read a mention into it."""
    shown = plain_truncate(drop_controls(text).translate(_ANGLES), limit)
    return {"type": "plain_text", "text": shown or " ", "emoji": True}


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
