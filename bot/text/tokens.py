"""Raw text as lowercase word tokens and titles as match keys, so every part of the bot compares the same words."""

from __future__ import annotations

import re
import unicodedata

from bot.text.cleanup import to_plain_text
from bot.text.words import WORD_RE

_POSSESSIVE_RE = re.compile(r"(?<=\w)['’]s\b")


def drop_possessives(text: str) -> str:
    """Text without possessive 's (Bansal's → Bansal), as the vocabulary reads it, so queries read it alike."""
    return _POSSESSIVE_RE.sub("", text)


def tokenize(text: str) -> list[str]:
    """Lowercase word tokens (hyphenated words split, possessives dropped) for the vocabulary and topic matching."""
    if not text:
        return []
    s = to_plain_text(text) if any(c in text for c in "\\$*_&{`") else text
    return WORD_RE.findall(drop_possessives(s).lower())


def normalize_title(title: str) -> str:
    """Fold a title to lowercase alphanumerics and single spaces so the same paper matches across sources."""
    if not title:
        return ""
    s = unicodedata.normalize("NFKD", to_plain_text(title))
    s = "".join(c for c in s if not unicodedata.combining(c)).casefold()
    s = unicodedata.normalize("NFKC", s)
    return " ".join(WORD_RE.findall(s))
