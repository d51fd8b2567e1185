"""What people wrote in a Slack message, without Slack's markup: the text the paper pipeline can search for."""

from __future__ import annotations

import re

from bot.slack.blocks import SLACK_LINK, unescape

_SLACK_CHANNEL = re.compile(r"<#[A-Z0-9]+\|([^>]*)>")
_SLACK_ANY = re.compile(r"<[^>]*>")
_SLACK_URL = re.compile(r"<(https?://[^|>\s]+)(?:\|[^>]*)?>")  # <https://…> or <https://…|label>
_EMOJI = re.compile(r":[a-z0-9_+'-]+:")
_FORMATTING = re.compile(r"[*_~`>]+")


def slack_to_plain(message_text: str | None, keep_links: bool = False) -> str:
    """A Slack message's text without mentions, links, emoji and formatting: only the words people wrote.
    `keep_links`: a link stays, as its URL (a query may paste the paper it asks about)."""
    s = message_text or ""
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
