"""The cleanup pipeline: a raw title or abstract (LaTeX, Markdown, HTML, PDF artefacts) as plain text and emphasis.

Everything here is pure and fast (it runs on every abstract at indexing time); regexes are compiled once.
``_to_marked_unicode`` turns raw text into readable Unicode with private-use emphasis markers, which
``to_marked_text`` turns into spans beside the plain text (what the index stores) and ``to_plain_text`` drops.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from bot.text.hyphens import repair_hyphenation
from bot.text.latex import drop_unbalanced_braces, latex_to_unicode, ties_to_spaces
from bot.text.markers import (
    BOLD_CLOSE,
    BOLD_OPEN,
    CARET,
    EMPHASIS_RE,
    ITALIC_CLOSE,
    ITALIC_OPEN,
    LBRACE,
    RBRACE,
    TILDE,
    UNDERSCORE,
    drop_private_use,
)
from bot.text.markup import (
    collapse_whitespace,
    curly_quotes,
    drop_zero_width,
    markdown_to_markers,
    tidy_punctuation_spacing,
    typographic_dashes,
    unescape_html,
)
from bot.text.urls import UrlStash, has_url_hint, stash_urls

_SPACE_BEFORE_CLOSE_RE = re.compile("(\\s+)([\ue011\ue013]+)")
_SPACE_AFTER_OPEN_RE = re.compile("([\ue010\ue012]+)(\\s+)")


@lru_cache(maxsize=4096)
def _to_marked_unicode(text: str) -> str:
    """Raw title/abstract → readable Unicode text with private-use emphasis markers (shared by both renderings)."""
    if not text:
        return ""
    s = text.replace("\r\n", "\n").replace("\r", "\n")
    s = drop_private_use(s)
    if ";" in s:
        s = unescape_html(s)
    s = drop_zero_width(s)
    stash = UrlStash()
    if has_url_hint(s):
        s = stash_urls(s, stash)
    if "~" in s:
        s = ties_to_spaces(s)
    if "\\" in s or "$" in s:
        s = latex_to_unicode(s)
    elif "{" in s or "}" in s:
        s = drop_unbalanced_braces(s)  # plain text may use braces for sets: "{0, 1}"
    s = markdown_to_markers(s)
    s = curly_quotes(s)
    s = typographic_dashes(s)
    s = s.replace(LBRACE, "{").replace(RBRACE, "}").replace(UNDERSCORE, "_").replace(CARET, "^").replace(TILDE, "~")
    if BOLD_OPEN in s or ITALIC_OPEN in s:
        s = _SPACE_BEFORE_CLOSE_RE.sub(r"\2\1", s)  # "**x **" → "**x** ": emphasis hugs its text
        s = _SPACE_AFTER_OPEN_RE.sub(r"\2\1", s)
    s = collapse_whitespace(s)
    s = tidy_punctuation_spacing(s)
    s = repair_hyphenation(s)
    s = stash.restore(s)
    if not s.isascii() and not unicodedata.is_normalized("NFC", s):
        s = unicodedata.normalize("NFC", s)
    return s


# (start, end, "b" or "i"): a bold or italic span of plain text, as the index stores it
Emphasis = tuple[int, int, str]
_KIND = {BOLD_OPEN: "b", BOLD_CLOSE: "b", ITALIC_OPEN: "i", ITALIC_CLOSE: "i"}


def to_marked_text(text: str) -> tuple[str, list[Emphasis]]:
    """A raw title/abstract as plain text and its emphasis as spans: what the index stores, in no display syntax.

    Spans pair each closing marker with the last open one of its kind (nested spans stay, unpaired markers go), over
    the text ``to_plain_text`` gives, so an edge can show the emphasis its own way (Slack: bot.slack.blocks.abstracts).
    """
    core = _to_marked_unicode(text) if text else ""
    if BOLD_OPEN not in core and ITALIC_OPEN not in core:
        return EMPHASIS_RE.sub("", core), []
    out: list[str] = []
    size = 0
    opened: dict[str, list[int]] = {"b": [], "i": []}
    spans: list[Emphasis] = []
    for ch in core:
        kind = _KIND.get(ch)
        if kind is None:
            # As to_plain_text: no double space where markers were
            if ch != " " or not out or out[-1] != " ":
                out.append(ch)
                size += 1
        elif ch in (BOLD_OPEN, ITALIC_OPEN):
            opened[kind].append(size)
        elif opened[kind] and (start := opened[kind].pop()) < size:  # (an empty span shows nothing)
            spans.append((start, size, kind))
    return "".join(out), spans


_DOUBLE_SPACE_RE = re.compile(r" {2,}")


def to_plain_text(text: str) -> str:
    """The plain text alone: what name and title derivation see."""
    if not text:
        return ""
    core = _to_marked_unicode(text)
    if BOLD_OPEN not in core and ITALIC_OPEN not in core:
        return core
    s = EMPHASIS_RE.sub("", core)
    return _DOUBLE_SPACE_RE.sub(" ", s) if "  " in s else s
