"""Text with its emphasis kept as data: search says what to stress; each edge (Slack, a terminal, JSON) renders it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Strong:
    """A piece of text to stress: a name, a word the user typed, a matched word in a snippet."""

    text: str


@dataclass(frozen=True)
class Code:
    """Words to type exactly as shown (an example query): code in Slack, between quotes in plain text."""

    text: str


def quoted(text: str) -> str:
    """A Code piece in plain text (JSON, a terminal, a pipe): `"any papers on grokking?"`."""
    return f'"{text}"'


@dataclass(frozen=True)
class Marked:
    """Plain text built from pieces, some of them Strong or Code; no display syntax in it, whoever shows it."""

    parts: tuple[str | Strong | Code, ...] = ()

    @property
    def text(self) -> str:
        """The text with no emphasis at all (JSON, logs, a pipe); Code pieces between quotes."""
        return "".join(_plain(p) for p in self.parts)

    def render(
        self, strong: Callable[[str], str], plain: Callable[[str], str] = str, code: Callable[[str], str] = quoted
    ) -> str:
        """The text in one display syntax: `strong` wraps each stressed piece, `code` each Code piece, `plain` the rest
        (e.g. escaping)."""
        return "".join(
            strong(p.text) if isinstance(p, Strong) else code(p.text) if isinstance(p, Code) else plain(p)
            for p in self.parts
        )

    def spans(self) -> list[tuple[int, int]]:
        """Where the stressed pieces sit in `text`, as (start, end) offsets."""
        out, pos = [], 0
        for p in self.parts:
            size = len(_plain(p))
            if isinstance(p, Strong):
                out.append((pos, pos + size))
            pos += size
        return out

    def __add__(self, other: Marked | str | Strong | Code) -> Marked:
        """Appended pieces, as a note grows clause by clause."""
        return Marked(self.parts + (other.parts if isinstance(other, Marked) else (other,)))

    def __str__(self) -> str:
        return self.text


def _plain(piece: str | Strong | Code) -> str:
    return quoted(piece.text) if isinstance(piece, Code) else piece.text if isinstance(piece, Strong) else piece


def marked(*parts: str | Strong | Code) -> Marked:
    """`marked("4 papers by ", Strong("Mohit Bansal"))`: a Marked from its pieces, empty ones dropped."""
    return Marked(tuple(p for p in parts if p and (isinstance(p, str) or p.text)))
