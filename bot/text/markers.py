"""Private-use characters the cleanup passes mark emphasis and protect literals with; input can never forge them."""

from __future__ import annotations

import re

# Emphasis found in LaTeX or Markdown, rendered as Slack *bold*/_italic_ or dropped for plain text at the end.
BOLD_OPEN, BOLD_CLOSE, ITALIC_OPEN, ITALIC_CLOSE = "\ue010", "\ue011", "\ue012", "\ue013"
LBRACE, RBRACE = "\ue014", "\ue015"  # literal braces from \{ \}
UNDERSCORE, CARET, TILDE = "\ue016", "\ue017", "\ue018"  # literal _ ^ ~ produced by math conversion
URL_BASE = 0xF0000  # URL placeholders: one supplementary private-use char each
EMPHASIS_RE = re.compile("[\ue010-\ue013]")
URL_PLACEHOLDER_RE = re.compile("[\U000f0000-\U000f0fff]")
_PRIVATE_USE_RE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")


def drop_private_use(s: str) -> str:
    """Drop private-use characters so input can never forge the markers and placeholders used here."""
    return _PRIVATE_USE_RE.sub("", s) if not s.isascii() and _PRIVATE_USE_RE.search(s) else s
