"""Markdown emphasis, HTML entities and plain-text typography (TeX quotes and dashes, stray spaces) in raw text."""

from __future__ import annotations

import html
import re

from bot.text.markers import BOLD_CLOSE, BOLD_OPEN, ITALIC_CLOSE, ITALIC_OPEN

_MD_BOLD_RE = re.compile(r"(\*\*|__)(?=\S)((?:(?!\1)[^\n])+?)(?<=\S)\1")
_MD_BOLD_ITALIC_RE = re.compile(r"\*\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*\*")
_STAR_RUN_RE = re.compile(r"\*{2,}")
_MD_ITALIC_STAR_RE = re.compile(r"(?<![*])(?<![^\W_])\*(?=[^\s*])([^*\n]{1,2000}?)(?<=[^\s*])\*(?![*])(?![^\W_])")
_MD_ITALIC_US_RE = re.compile(
    r"(?<![^\s(\[{“\"'‘/,;:\-—–\ue010-\ue013])_(?=[^\s_])([^_\n]{1,2000}?)(?<=[^\s_])_(?![\w_])"
)
# (the content never holds another ``: each opening is then read only up to the next, not to the end of the text)
_TEX_QUOTES_RE = re.compile(r"``((?:(?!``).)+?)(?:''|\"|”)", re.S)
_TWO_SINGLE_QUOTES_RE = re.compile(r"(?<![\w'])''(?=\S)(.+?)(?:''|\"|”)", re.S)
_SINGLE_TEX_QUOTE_RE = re.compile(r"(?<![\w`])`(?=\S)([^`'\n]{1,200}?)'(?!\w)")
_DASH3_RE = re.compile(r"(?<![-<])---(?![->])")
_DASH2_RE = re.compile(r"(?<![-<!])--(?![->])")
_SPACE_BEFORE_PUNCT_RE = re.compile(r" +(?=[,;:.](?:\s|$))")
_PUNCT_LEFT_OK = frozenset(")]”’%" + BOLD_CLOSE + ITALIC_CLOSE)
_SPACE_INSIDE_PARENS_RE = re.compile(r"\([ \t]+|[ \t]+\)")
_HSPACE_RE = re.compile(
    r"[\t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000][ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]*"
    r"| [ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+"
)
_PARA_RE = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_NEWLINE_RE = re.compile(r"[ \t]*\n[ \t]*")
_ZERO_WIDTH_RE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")


def unescape_html(s: str) -> str:
    """HTML entities (``&mdash;``, ``&lt;``) as characters: OpenReview and scraped abstracts carry them."""
    return html.unescape(s) if "&" in s else s


def drop_zero_width(s: str) -> str:
    """Drop zero-width and soft-hyphen characters, invisible leftovers of PDF and web extraction."""
    return _ZERO_WIDTH_RE.sub("", s)


def _drop_space_before_punct(s: str) -> str:
    """``Large Language Models , which`` → ``Large Language Models, which`` (a PDF/HTML extraction artefact)."""

    def _one(m: re.Match[str]) -> str:
        before = s[m.start() - 1] if m.start() else " "
        return "" if before.isalnum() or before in _PUNCT_LEFT_OK else m[0]

    return _SPACE_BEFORE_PUNCT_RE.sub(_one, s)


def curly_quotes(s: str) -> str:
    """TeX quotes (two backticks, two apostrophes) as curly quotes, which read right and cannot look like markup."""
    if "`" in s:
        s = _TEX_QUOTES_RE.sub(r"“\1”", s)
        s = _SINGLE_TEX_QUOTE_RE.sub(r"‘\1’", s)
    if "''" in s:
        s = _TWO_SINGLE_QUOTES_RE.sub(r"“\1”", s)
        s = s.replace("''", "”")
    return s


def markdown_to_markers(s: str) -> str:
    """Markdown ``**bold**``/``*italic*``/``_italic_`` as emphasis markers; lone asterisks become ∗ for Slack."""
    if "**" in s or "__" in s:
        if "****" in s:
            s = s.replace("****", "")  # "**A****B**": a bold span closed and reopened at once
        if "***" in s:
            s = _MD_BOLD_ITALIC_RE.sub(lambda m: f"{BOLD_OPEN}{ITALIC_OPEN}{m.group(1)}{ITALIC_CLOSE}{BOLD_CLOSE}", s)
        s = _MD_BOLD_RE.sub(lambda m: f"{BOLD_OPEN}{m.group(2)}{BOLD_CLOSE}", s)
        s = _STAR_RUN_RE.sub("", s).replace("__", "")
    if "*" in s:
        s = _MD_ITALIC_STAR_RE.sub(lambda m: f"{ITALIC_OPEN}{m.group(1)}{ITALIC_CLOSE}", s)
        # A lone literal asterisk must not pair up with another one in Slack
        s = s.replace("*", "∗")
    if "_" in s:
        s = _MD_ITALIC_US_RE.sub(lambda m: f"{ITALIC_OPEN}{m.group(1)}{ITALIC_CLOSE}", s)
    return s


def collapse_whitespace(s: str) -> str:
    """Single spaces within paragraphs and one blank line between them, whatever spacing the source used."""
    s = _HSPACE_RE.sub(" ", s)
    if "\n" in s:
        s = _PARA_RE.sub("\u2029", s)
        s = _NEWLINE_RE.sub(" ", s)
        s = _HSPACE_RE.sub(" ", s)
        s = "\n\n".join(p.strip() for p in s.split("\u2029") if p.strip())
    return s.strip()


def typographic_dashes(s: str) -> str:
    """TeX dashes as typeset: ``---`` → em dash, ``--`` → en dash (but not arrows or comments)."""
    if "--" in s:
        s = _DASH3_RE.sub("—", s)
        s = _DASH2_RE.sub("–", s)
    return s


def tidy_punctuation_spacing(s: str) -> str:
    """Drop spaces before punctuation and inside parentheses that PDF/HTML extraction leaves behind."""
    if " " in s:
        if " ," in s or " ." in s or " ;" in s or " :" in s:
            s = _drop_space_before_punct(s)
        if "( " in s or " )" in s:
            s = _SPACE_INSIDE_PARENS_RE.sub(lambda m: m.group().strip(), s)
    return s
