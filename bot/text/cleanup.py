"""The cleanup pipeline: a raw title or abstract (LaTeX, Markdown, HTML, PDF artefacts) as Slack mrkdwn or plain text.

Everything here is pure and fast (it runs on every abstract at indexing time); regexes are compiled once.
``_to_marked_unicode`` turns raw text into readable Unicode with private-use emphasis markers, which ``to_mrkdwn``
renders as Slack ``*bold*``/``_italic_`` and ``to_plain_text`` drops.
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


_SPAN_RE = {
    "b": re.compile(f"{BOLD_OPEN}([^{BOLD_OPEN}{BOLD_CLOSE}]*){BOLD_CLOSE}"),
    "i": re.compile(f"{ITALIC_OPEN}([^{ITALIC_OPEN}{ITALIC_CLOSE}]*){ITALIC_CLOSE}"),
}


MARKERS_AROUND = 8  # emphasis markers around a span looked past for the characters beside it
_MARKER_CHARS = frozenset(BOLD_OPEN + BOLD_CLOSE + ITALIC_OPEN + ITALIC_CLOSE)
_OPEN_OK = frozenset(" \t\n([{“‘\"'/-—–:;,")
_CLOSE_OK = frozenset(" \t\n.,;:!?)]}”’\"'/-—–")


def _render(s: str) -> str:
    """Turn emphasis markers into Slack mrkdwn, dropping markers Slack could not render (mid-word, empty)."""
    for kind, mark in (("i", "_"), ("b", "*")):
        rx = _SPAN_RE[kind]
        for _ in range(6):
            if not rx.search(s):
                break

            def _one(m: re.Match[str], mark: str = mark, s: str = s) -> str:
                body = m.group(1)
                inner = body.strip()
                lead = body[: len(body) - len(body.lstrip())]
                trail = body[len(body.rstrip()) :]
                start, end = m.start(), m.end()
                # (a few markers at most: a run of thousands, as in broken input, leaves the text bare either way)
                while start and s[start - 1] in _MARKER_CHARS and m.start() - start < MARKERS_AROUND:
                    start -= 1
                while end < len(s) and s[end] in _MARKER_CHARS and end - m.end() < MARKERS_AROUND:
                    end += 1
                before = lead[:1] or (s[start - 1] if start else " ")
                after = trail[:1] or (s[end] if end < len(s) else " ")
                # Slack only renders *x* / _x_ at word boundaries and on one line; otherwise keep the bare text.
                if (
                    not inner
                    or mark in inner
                    or "\n" in inner
                    or "://" in inner
                    or before not in _OPEN_OK
                    or after not in _CLOSE_OK
                ):
                    return body
                return f"{lead}{mark}{inner}{mark}{trail}"

            s = rx.sub(_one, s)
    return EMPHASIS_RE.sub("", s)


_DOUBLE_SPACE_RE = re.compile(r" {2,}")


def to_mrkdwn(text: str) -> str:
    """Turn a raw title/abstract (LaTeX, Markdown, HTML entities, PDF artefacts) into Slack mrkdwn for display."""
    if not text:
        return ""
    core = _to_marked_unicode(text)
    if BOLD_OPEN not in core and ITALIC_OPEN not in core:
        return core
    s = _render(core)
    return _DOUBLE_SPACE_RE.sub(" ", s) if "  " in s else s


def to_plain_text(text: str) -> str:
    """Like ``to_mrkdwn`` but with no emphasis markers: the text the search index and name derivation should see."""
    if not text:
        return ""
    core = _to_marked_unicode(text)
    if BOLD_OPEN not in core and ITALIC_OPEN not in core:
        return core
    s = EMPHASIS_RE.sub("", core)
    return _DOUBLE_SPACE_RE.sub(" ", s) if "  " in s else s
