"""What people wrote in a Slack message, without Slack's markup: the text the paper pipeline can search for.

Text from Slack is cut to what its reader needs before any pattern runs, and no pattern reaches past a `<`: markup
never holds a raw `<` (Slack writes a typed one as `&lt;`), so each element is read once and 40,000 characters of
`<#C1|` posted through the API cost no more than their length.
"""

from __future__ import annotations

import re

from bot.slack.blocks import SLACK_LINK, unescape

# Raw characters read per character of words: Slack writes "&" as "&amp;"; mentions, links and emoji add more.
MARKUP_ALLOWANCE = 5
_SLACK_CHANNEL = re.compile(r"<#[A-Z0-9]+\|([^<>]*)>")
_SLACK_ANY = re.compile(r"<[^<>]*>")
_SLACK_URL = re.compile(r"<(https?://[^|<>\s]+)(?:\|[^<>]*)?>")  # <https://…> or <https://…|label>
_EMOJI = re.compile(r":[a-z0-9_+'-]+:")
_FORMATTING = re.compile(r"[*_~`>]+")


def raw_limit(limit: int) -> int:
    """How many characters of raw Slack text can hold `limit` characters of words: more is never read."""
    return limit * MARKUP_ALLOWANCE


def opening(message_text: str | None, limit: int) -> str:
    """The start of a raw Slack message that can hold `limit` characters of words, without a `<…>` cut in half."""
    s = message_text or ""
    if len(s) <= raw_limit(limit):
        return s
    s = s[: raw_limit(limit)]
    opened = s.rfind("<")
    return s[:opened] if opened > s.rfind(">") else s


def slack_to_plain(message_text: str | None, limit: int, keep_links: bool = False) -> str:
    """The words people wrote in a message's opening (see `opening`), without mentions, links, emoji and formatting.
    `keep_links`: a link stays, as its URL (a query may paste the paper it asks about)."""
    s = opening(message_text, limit)
    if keep_links:
        s = _SLACK_URL.sub(r" \1 ", s)
    s = SLACK_LINK.sub(r" \2 ", s)  # <https://…|label> → label
    s = _SLACK_CHANNEL.sub(r" \1 ", s)  # <#C123|general> → general
    s = _SLACK_ANY.sub(" ", s)  # <@U123>, <!here>, bare <https://…>
    s = _EMOJI.sub(" ", s)
    s = unescape(s)  # &amp; &lt; &gt; as Slack sends them
    # (formatting marks are not words, but a link's underscores are part of it)
    words = (w if w.startswith(("http://", "https://")) else _FORMATTING.sub(" ", w) for w in s.split())
    return " ".join(" ".join(words).split())
