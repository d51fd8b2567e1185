"""Text with its emphasis kept as data: search says what to stress; each edge (Slack, a terminal, JSON) renders it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Strong:
    """A piece of text to stress: a name, a word the user typed, a matched word in a snippet."""

    text: str


@dataclass(frozen=True)
class Marked:
    """Plain text built from pieces, some of them Strong; no display syntax in it, whoever shows it."""

    parts: tuple[str | Strong, ...] = ()

    @property
    def text(self) -> str:
        """The text with no emphasis at all (JSON, logs, a pipe)."""
        return "".join(p.text if isinstance(p, Strong) else p for p in self.parts)

    def render(self, strong: Callable[[str], str], plain: Callable[[str], str] = str) -> str:
        """The text in one display syntax: `strong` wraps each stressed piece, `plain` the rest (e.g. escaping)."""
        return "".join(strong(p.text) if isinstance(p, Strong) else plain(p) for p in self.parts)

    def spans(self) -> list[tuple[int, int]]:
        """Where the stressed pieces sit in `text`, as (start, end) offsets."""
        out, pos = [], 0
        for p in self.parts:
            size = len(p.text if isinstance(p, Strong) else p)
            if isinstance(p, Strong):
                out.append((pos, pos + size))
            pos += size
        return out

    def __add__(self, other: Marked | str | Strong) -> Marked:
        """Appended pieces, as a note grows clause by clause."""
        return Marked(self.parts + (other.parts if isinstance(other, Marked) else (other,)))

    def __str__(self) -> str:
        return self.text


def marked(*parts: str | Strong) -> Marked:
    """`marked("4 papers by ", Strong("Mohit Bansal"))`: a Marked from its pieces, empty ones dropped."""
    return Marked(tuple(p for p in parts if p and (not isinstance(p, Strong) or p.text)))
