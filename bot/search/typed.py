"""Typed text as the query language's tokens: Unicode and Slack's quoting normalised, pasted links kept whole,
words joined by + or / apart, and a language named by symbols (C++) as written. Pure, like the parser it feeds."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

MAX_CHARS = 500
# A language named by a letter and symbols (C++, C#, F#): words drop the symbols, so it is searched as written.
LITERAL = re.compile(r"[a-z](?:\+\+|#)", re.IGNORECASE)
JOINERS = re.compile(r"[+/]")
# A pasted link (Slack wraps links as <url> or <url|label>; prose wraps them in brackets, quotes and a full stop): it
# names a paper, it is not words to search for.
LINK = re.compile(
    r"""[("'\[]*<?(?P<url>(?:https?://|www\.)[^\s<>|"]+?|(?:openreview\.net|icml\.cc|arxiv\.org)/[^\s<>|"]+?)"""
    r"""(?:\|[^>]*)?>?[)"'\].,;:!?]*""",
    re.IGNORECASE,
)
QUOTES = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "＂": '"',
        "‘": "'",
        "’": "'",
        "＇": "'",
        "－": "-",
        "‐": "-",
        "‑": "-",
        "—": " ",
        "–": "-",
        "：": ":",
    }
)
TOKEN_RE = re.compile(
    r"""(?P<neg>-(?=[^\s-]))?(?:(?P<field>[A-Za-z]{2,8}):(?=\S))?(?:"(?P<quoted>[^"]*)(?:"|$)|(?P<bare>[^\s"]+))"""
)


def normalize_input(raw: object) -> str:
    """Normalise Unicode, turn Slack's smart quotes into plain ones, and drop control and invisible characters."""
    # Callers pass Slack payload values: not always str
    text = raw if isinstance(raw, str) else str(raw)
    s = unicodedata.normalize("NFKC", text[: MAX_CHARS * 4]).translate(QUOTES)
    if "&" in s:  # Slack escapes these three in command text
        s = s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    if s.isascii() and s.isprintable():  # nearly every query: no character of the categories below
        return " ".join(s.split())
    out = []
    for ch in s:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(" ")
        else:
            out.append(ch)
    return " ".join("".join(out).split())


def tokens(text: str) -> Iterator[re.Match[str]]:
    """The tokens of the text; words joined by + or / are tokens of their own (LoRA+DoRA, LLM/VLM safety,
    GPT-4/GPT-5, pre-/post-training), not one compound whose words must be adjacent. Pieces of a single letter or
    digit keep the token whole (w/o, A/B, c++, GPT-4/5), and so do links."""
    for m in TOKEN_RE.finditer(text):
        bare = m["bare"]
        if bare and not (m["field"] or m["neg"]) and joined(bare) and not LINK.fullmatch(m.group(0)):
            # The same length
            spaced = text[: m.start()] + JOINERS.sub(" ", m.group(0)) + text[m.end() :]
            yield from TOKEN_RE.finditer(spaced, m.start(), m.end())
        else:
            yield m


def as_written(typed: str) -> str | None:
    """The term as papers must write it, for a language named by a letter and symbols (`c++`, `C#`); else None."""
    return typed.lower() if LITERAL.fullmatch(typed) else None


def joined(token: str) -> bool:
    """Whether + or / joins pieces of two letters or digits or more."""
    pieces = JOINERS.split(token)
    return len(pieces) > 1 and all(sum(map(str.isalnum, piece)) >= 2 for piece in pieces)
