"""Stored paper ids shown as papers, one page at a time; a paper that left the index shows as missing, never crashes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from bot.papers.row import PaperRow

PAGE_SIZE = 10  # what one Slack message shows comfortably


class PaperLookup(Protocol):
    """Anything that finds a paper by id, as bot.search.reader.Papers does; the team layer only reads papers."""

    def get(self, ref: str) -> PaperRow | None:
        """The paper, or None when the index no longer holds it."""
        ...


class Listed(Protocol):
    """A stored row: a paper id and the paper as the index has it now (None when it left the index)."""

    @property
    def paper_id(self) -> str:
        """The id as it was stored."""
        ...

    @property
    def paper(self) -> PaperRow | None:
        """The paper, or None."""
        ...


T = TypeVar("T", bound=Listed)


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list, newest first; an item whose paper left the index is kept, with `paper` None."""

    items: tuple[T, ...]
    total: int
    offset: int
    limit: int | None

    @property
    def missing(self) -> tuple[str, ...]:
        """Ids on this page whose paper the index no longer holds, so the caller can say so and offer to remove them."""
        return tuple(item.paper_id for item in self.items if item.paper is None)

    @property
    def next_offset(self) -> int | None:
        """Where the next page starts, or None on the last page."""
        end = self.offset + len(self.items)
        return end if end < self.total else None

    @property
    def previous_offset(self) -> int | None:
        """Where the previous page starts, or None on the first page."""
        if self.offset <= 0 or self.limit is None:
            return None
        return max(0, self.offset - self.limit)


def check_page(limit: int | None, offset: int) -> None:
    """Refuse a page that cannot be (ValueError): a limit below 1 (None means all), a negative offset."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    if offset < 0:
        raise ValueError(f"offset must not be negative, not {offset}")


def lookup_all(papers: PaperLookup, paper_ids: Sequence[str]) -> list[PaperRow | None]:
    """Each id's paper now (a merged-away id finds the paper it became), None for those that left the index."""
    return [papers.get(paper_id) for paper_id in paper_ids]
