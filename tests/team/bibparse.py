"""Reading exports back with real parsers: bibtexparser (with pylatexenc for LaTeX) and the csv module."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from bibtexparser.entrypoint import parse_string
from bibtexparser.middlewares.names import split_multiple_persons_names
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

# pylatexenc drops \textbraceleft and \textbraceright and turns \textasciicircum into U+02C6; LaTeX prints { } ^.
_CONTEXT = get_default_latex_context_db()
_CONTEXT.add_context_category(
    "ascii-symbols",
    prepend=True,
    macros=[
        MacroTextSpec("textbraceleft", "{"),
        MacroTextSpec("textbraceright", "}"),
        MacroTextSpec("textasciicircum", "^"),
    ],
)
_DECODER = LatexNodes2Text(latex_context=_CONTEXT)


@dataclass(frozen=True)
class BibEntry:
    """One parsed entry: its type, key, raw fields, and title and authors as LaTeX prints them."""

    kind: str
    key: str
    fields: dict[str, str]
    title: str
    authors: list[str]


def latex_text(value: str) -> str:
    """What LaTeX would print for a field value (braces that only protect capitals vanish)."""
    printed: str = _DECODER.latex_to_text(value)
    return printed


def parse_bibtex(text: str) -> list[BibEntry]:
    """Every entry of a .bib text; fails the test if the parser rejected any block."""
    library = parse_string(text)
    assert library.failed_blocks == [], library.failed_blocks
    assert [b for b in library.blocks if b not in library.entries] == []  # nothing but entries
    entries = []
    for e in library.entries:
        fields = {f.key: str(f.value) for f in e.fields}
        names = split_multiple_persons_names(fields["author"]) if "author" in fields else []
        authors = [latex_text(n[1:-1] if n.startswith("{") and n.endswith("}") else n) for n in names]
        entries.append(BibEntry(e.entry_type, e.key, fields, latex_text(fields.get("title", "")), authors))
    return entries


def parse_csv(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """The header and the rows of a CSV export."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = list(reader)
    return list(reader.fieldnames or []), rows
