"""Snippets: up to SNIPPET_CHARS of an abstract around the most query words, the matched words marked Strong."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from bot.search.groups import TermGroup
from bot.search.matching import Alternative, highlight_regex
from bot.text.marked import Marked, Strong
from bot.text.words import stem

SNIPPET_CHARS = 300
# Of an abstract, where a snippet may come from (indexing caps abstracts there; older indexes may hold longer ones,
# and finding every query word in megabytes took seconds)
SCANNED_CHARS = 20_000
# Markdown emphasis around words: runs of *_`~ after a non-word character or before one. Written to start with
# the character class, so the regex engine skips to those characters instead of trying every position (faster
# than the plain `(?<!\w)[*_`~]+|[*_`~]+(?!\w)`, which removes the same runs).
MARKUP_RE = re.compile(r"[*_`~](?:(?<=(?<!\w)[*_`~])[*_`~]*|[*_`~]*(?!\w))")


# Where one query alternative matched in display text: (start, end, group index); snippets count the groups a
# window shows. A plain tuple, unpacked where it is read: a snippet finds dozens and NamedTuples cost more to build.
Span = tuple[int, int, int]


@functools.lru_cache(maxsize=4096)
def _regex(alt: Alternative) -> re.Pattern[str]:
    """An alternative's highlight regex, compiled once: re's own cache keeps 512 patterns, fewer than a day of
    queries uses, and compiling one costs more than finding it in five abstracts."""
    return re.compile(highlight_regex(alt))


class _Needle(NamedTuple):
    """One alternative prepared for display text: a cheap str.find first, the regex only where that hits."""

    head: str  # what str.find looks for: the first word (or its stem)
    regex: re.Pattern[str]  # the whole alternative, anchored at a found head
    group: int


class Highlighter:
    """Finds query alternatives in display text: str.find for the first word, an anchored regex for the rest
    (one regex search per abstract would cost more than the ranking)."""

    def __init__(self, groups: list[TermGroup]) -> None:
        needles = [_Needle(self._head(a), _regex(a), gi) for gi, g in enumerate(groups) for a in g.alts]
        needles.sort(key=lambda n: -len(n.regex.pattern))  # phrases before the words in them
        self.needles = needles

    @staticmethod
    def _head(alt: Alternative) -> str:
        word = alt.words[0]
        return word if alt.prefix or len(word) <= 3 else stem(word)

    def spans(self, text: str) -> list[Span]:
        """Every match, in order, not overlapping (the longest wins)."""
        low = text.lower()
        # a rare character whose lowercase is longer: positions would shift
        if len(low) != len(text):
            low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        # (start, -end, group): sorts by start, longest first
        found: list[tuple[int, int, int]] = []
        for head, regex, gi in self.needles:
            pos = low.find(head)
            while pos >= 0:
                if pos == 0 or not low[pos - 1].isalnum():
                    m = regex.match(low, pos)
                    if m and m.end() > pos:
                        found.append((pos, -m.end(), gi))
                pos = low.find(head, pos + 1)
        found.sort()
        spans: list[Span] = []
        last_end = -1
        for start, neg_end, gi in found:
            if start >= last_end:
                last_end = -neg_end
                spans.append((start, last_end, gi))
        return spans


def bold(text: str, spans: Sequence[Span], lead: str = "", tail: str = "") -> Marked:
    """The text with its spans Strong; neighbours joined by a space or hyphen become one (KV-cache, not KV and
    cache); `lead` and `tail` (an ellipsis) go around it."""
    merged: list[tuple[int, int]] = []  # (start, end)
    for start, end, _ in spans:
        if merged:
            last_start, last_end = merged[-1]
            if start - last_end <= 2 and not text[last_end:start].strip(" -‐‑–—/"):
                merged[-1] = (last_start, end)
                continue
        merged.append((start, end))
    out: list[str | Strong] = [lead]
    pos = 0
    for s, e in merged:
        out += [text[pos:s], Strong(text[s:e])]
        pos = e
    out += [text[pos:], tail]
    return Marked(tuple(p for p in out if p))


def display(text: str | None) -> str:
    """Display text without Markdown emphasis, so the matched words are the only emphasis in a snippet."""
    if not text:
        return ""
    # Four scans cost less than one regex search
    if "*" in text or "_" in text or "`" in text or "~" in text:
        text = MARKUP_RE.sub("", text).replace("*", "∗")
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text  # no whitespace but single spaces: already as split() and join() would leave it
    return " ".join(text.split())


def make_snippet(abstract: str, fallback: str, highlighter: Highlighter, limit: int = SNIPPET_CHARS) -> Marked:
    """Up to `limit` characters of the abstract around the most query words (within its first SCANNED_CHARS), with
    the matched words Strong."""
    text = display(abstract[:SCANNED_CHARS])
    spans = highlighter.spans(text)
    if not spans:
        text = display(fallback) or text
        spans = highlighter.spans(text)
    if len(text) <= limit:
        return bold(text, spans)
    best: tuple[int, int, int] | None = None  # (groups, spans, -start) of the best window so far
    start = 0
    # Spans do not overlap, so starts and ends both ascend: a window shows the spans between two bisections.
    starts, ends, groups = [s for s, _, _ in spans], [e for _, e, _ in spans], [g for _, _, g in spans]
    for s in starts or [0]:
        begin = max(0, s - 60)
        sentence = text.rfind(". ", max(0, s - 120), s)
        if sentence >= 0:
            begin = sentence + 2
        elif begin:
            space = text.find(" ", begin)
            begin = space + 1 if 0 <= space < s else begin
        inside = groups[bisect.bisect_left(starts, begin) : bisect.bisect_right(ends, begin + limit - 2)]
        key = (len(set(inside)), len(inside), -begin)
        if best is None or key > best:
            best, start = key, begin
    lead = "…" if start else ""
    end = start + limit - len(lead) - 1
    if end < len(text):
        cut = text.rfind(" ", start, end)
        end = cut if cut > start + limit // 2 else end
        tail = "…"
    else:
        end, tail = len(text), ""
    shown = [(s - start, e - start, g) for s, e, g in spans if s >= start and e <= end]
    return bold(text[start:end], shown, lead, tail)
