"""Characters that drive a terminal or reorder what a reader sees (ESC, BEL, NUL and the other C0 and C1 controls,
bidi overrides and isolates, invisible tag characters): dropped from source text when it is indexed, and written as
escapes wherever text reaches a terminal or JSON, so a paper can neither clear a screen nor disguise a word."""

from __future__ import annotations

import re

# Vertical tab, form feed, NEL, line separator: line breaks (paragraph: two)
_NEWLINES = "\x0b\x0c\x85\u2028"
_SPACES = "\x1c\x1d\x1e\x1f"  # the information separators, which str.split() reads as spaces
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # marks, embeddings, overrides, isolates
# Every character either rule touches: C0 but tab, newline and carriage return; DEL and C1; bidi; interlinear
# annotations; tags (invisible copies of ASCII).
CONTROL_RE = re.compile(f"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f{_BIDI}\u2028\u2029\ufff9-\ufffb\U000e0000-\U000e007f]")
# A carriage return would write over the line
_TERMINAL_RE = re.compile(f"\r|{CONTROL_RE.pattern}")


def _replacement(match: re.Match[str]) -> str:
    ch = match.group()
    return "\n" if ch in _NEWLINES else "\n\n" if ch == "\u2029" else " " if ch in _SPACES else ""


def drop_controls(text: str) -> str:
    """`text` without control, bidi and tag characters; those that break lines become newlines (a paragraph
    separator a blank line), the information separators spaces."""
    return CONTROL_RE.sub(_replacement, text) if not text.isprintable() and CONTROL_RE.search(text) else text


def escape_controls(text: str) -> str:
    """`text` with each control, bidi or tag character (and carriage return) written as `\\x1b` or `\\u202e`: what a
    terminal shows instead of obeying it. Tabs and newlines stay."""
    if text.isprintable() or not _TERMINAL_RE.search(text):
        return text
    return _TERMINAL_RE.sub(lambda m: _escaped(m.group()), text)


def _escaped(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def json_escape_controls(text: str) -> str:
    """JSON text (as json.dumps writes it with ensure_ascii=False) with the same characters as JSON escapes, so it
    reads the same and shows safely: outside strings JSON has none of them, so only string contents change."""
    if text.isprintable() or not _TERMINAL_RE.search(text):
        return text
    return _TERMINAL_RE.sub(lambda m: _json_escaped(m.group()), text)


def _json_escaped(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
