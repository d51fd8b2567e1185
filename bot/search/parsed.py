"""What parsing makes of a query (bot.search.query.parse): its terms and its filters, the record every later stage
reads instead of the text."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Term:
    """One unit of the query: a word, a hyphenated compound, or a quoted phrase, possibly negated or fielded."""

    text: str  # as typed, for messages and the corrected query
    words: tuple[str, ...]  # lowercase word tokens, at least one
    quoted: bool = False  # "exact phrase": words must be adjacent, never typo-corrected
    negated: bool = False
    field: str | None = None  # None (name, title, abstract), "title" or "author"
    span: tuple[int, int] = (0, 0)  # where the typed text sits in ParsedQuery.text
    # "c++": the term as papers write it, which FTS5 and matching read as its letter alone
    literal: str | None = None


@dataclass
class ParsedQuery:
    """A query split into terms and filters, with notes the UI can show when something was dropped."""

    text: str  # the cleaned input the spans refer to
    terms: list[Term] = field(default_factory=list)
    has_code: bool | None = None  # True: only with code, False: only without
    status: tuple[str, ...] = ()  # capitalised statuses to keep
    status_excluded: tuple[str, ...] = ()
    # Venue: values as typed, lowercased (`icml2024`, `icml`, `all`); bot.search.scope
    venues: tuple[str, ...] = ()
    years: tuple[int, ...] = ()
    tracks: tuple[str, ...] = ()
    # Pasted links (OpenReview, the conference site), looked up as the papers they name
    links: tuple[str, ...] = ()
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    # "who works on kv cache?": the answer names the people with the most papers on it
    asks_who: bool = False
    # "papers like TokSuite": when the topic names one paper, papers like it
    asks_similar: bool = False
    # "who works on", "any papers on?": a question with nothing to search for
    names_no_topic: bool = False
    # ...or any words that only ask or say which papers ("recent papers")
    only_request: bool = False
    # Beside a name, "as first author" / "last-author papers": first or last
    author_position: str | None = None
    # "compare LoRA and full fine-tuning", "the difference between DPO and IPO"
    compares: bool = False

    @property
    def positive(self) -> list[Term]:
        """Terms a result must (or should) match, authors excluded."""
        return [t for t in self.terms if not t.negated and t.field != "author"]

    @property
    def negative(self) -> list[Term]:
        """Terms a result must not match, authors excluded."""
        return [t for t in self.terms if t.negated and t.field != "author"]

    @property
    def authors(self) -> list[Term]:
        """author:name filters (negated ones exclude an author)."""
        return [t for t in self.terms if t.field == "author"]

    @property
    def has_filters(self) -> bool:
        """Whether anything besides free text narrows the results."""
        return bool(
            self.authors or self.status or self.status_excluded or self.has_code is not None or self.names_venues
        )

    @property
    def names_venues(self) -> bool:
        """Whether venue:, year: or track: chose the venues instead of the default scope."""
        return bool(self.venues or self.years or self.tracks)

    def free_text(self) -> str:
        """The positive words as typed, without filters (for name and title look-ups)."""
        return " ".join(t.text if not t.quoted else " ".join(t.words) for t in self.positive)
