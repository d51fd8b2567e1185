"""Stored abstracts as Slack mrkdwn: the index keeps plain text and emphasis spans, and Slack shows *bold*/_italic_."""

from __future__ import annotations

import re

from bot.papers.row import PaperRow
from bot.text.markers import BOLD_CLOSE, BOLD_OPEN, EMPHASIS_RE, ITALIC_CLOSE, ITALIC_OPEN

_MARKS = {"b": (BOLD_OPEN, BOLD_CLOSE), "i": (ITALIC_OPEN, ITALIC_CLOSE)}


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


def to_mrkdwn(plain: str, emphasis: list[tuple[int, int, str]] | None) -> str:
    """Plain text and its emphasis spans (bot.text.cleanup.to_marked_text) as Slack mrkdwn, where Slack can show it."""
    if not emphasis:
        return plain
    events: list[tuple[int, int, int, str]] = []  # (position, closes first, order, marker)
    for n, (start, end, kind) in enumerate(emphasis):
        opener, closer = _MARKS.get(kind, ("", ""))
        # An outer span opens first and closes last
        events += [(end, 0, n, closer), (start, 1, -n, opener)]
    events.sort()
    pieces, pos = [], 0
    for at, _, _, marker in events:
        pieces += [plain[pos:at], marker]
        pos = max(pos, at)
    pieces.append(plain[pos:])
    s = _render("".join(pieces))
    return _DOUBLE_SPACE_RE.sub(" ", s) if "  " in s else s


def abstract_mrkdwn(paper: PaperRow) -> str:
    """A paper's abstract as Slack mrkdwn (an index built before emphasis spans holds mrkdwn already: as it is)."""
    return to_mrkdwn(paper.get("abstract") or "", paper.get("abstract_emphasis"))
