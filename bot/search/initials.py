"""Names typed with initials (`M. Bansal`, `Bansal, M.`, `M. J. Smith`, `MJ Smith`, `Smith MJ`): which letters
stand for given names, which words are the surname, and whether an author's listed name fits them.

Reading is pure and knows nobody: bot.search.people asks the index who fits. A letter is an initial when typed
alone (`M`, `m`), with a period (`M.`, `M.J.`), or as two or three capitals beside a surname (`MJ Smith`). The
typed form is *marked* when a period or a comma says it is a name; an unmarked one (`K means`, `MJ Smith`) may be
ordinary text, which the caller checks against the papers' own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.text.person_names import fold_name

# `MJ`, `MJK`: capitals read as initials; `LIN` in `X. LIN` is a surname (no other word)
MAX_CAPITALS = 3
_TOKEN_RE = re.compile(r"[^\s,]+|,")


@dataclass(frozen=True)
class TypedInitials:
    """A name typed with initials: the initials in order, the surname's words (folded), and whether a period or a
    comma marks it as a name."""

    initials: tuple[str, ...]
    surname: tuple[str, ...]
    marked: bool

    @property
    def last(self) -> str:
        """The surname's last word: the people table's `last` column."""
        return self.surname[-1]


def _letters(token: str, capitals_are_initials: bool) -> tuple[tuple[str, ...], bool] | None:
    """The initials a token holds and whether a period marks them (`M.`, `M.J.`; not `M`, `MJ`), or None for a
    word."""
    if "." in token:
        parts = [fold_name(p) for p in token.split(".") if p]
        if parts and all(len(p) == 1 and len(p[0]) == 1 and p[0].isalpha() for p in parts):
            return tuple(p[0] for p in parts), True
        return None
    folded = fold_name(token)
    if len(folded) != 1 or not folded[0].isalpha():
        return None
    if len(folded[0]) == 1:
        return folded, False
    if capitals_are_initials and len(token) <= MAX_CAPITALS and token.isupper():
        return tuple(folded[0]), False
    return None


def read_initials(text: str) -> TypedInitials | None:
    """Initials then a surname, or a surname then initials; None when the text is not typed so (a whole name,
    one word, initials between words)."""
    # `X. LIN`: LIN is the surname when nothing else can be
    for capitals_are_initials in (True, False):
        typed = _read(text, capitals_are_initials)
        if typed is not None:
            return typed
    return None


def _read(text: str, capitals_are_initials: bool) -> TypedInitials | None:
    # (is initials, folded letters or words), in typed order
    blocks: list[tuple[bool, list[str]]] = []
    marked = comma = False
    for token in _TOKEN_RE.findall(text):
        if token == ",":
            comma = True
            continue
        letters = _letters(token, capitals_are_initials)
        kind = letters is not None
        words = list(letters[0]) if letters else list(fold_name(token))
        if not words:
            continue
        marked |= bool(letters and letters[1])
        if blocks and blocks[-1][0] == kind:
            blocks[-1][1].extend(words)
        else:
            blocks.append((kind, words))
    if len(blocks) != 2:
        return None
    (first_is_initials, first), (_, second) = blocks
    initials, surname = (first, second) if first_is_initials else (second, first)
    if not surname or len(surname[-1]) < 2:
        return None
    return TypedInitials(tuple(initials), tuple(surname), marked or (comma and not first_is_initials))


def fits(key: tuple[str, ...], typed: TypedInitials, strict: bool = True) -> bool:
    """Whether an author's folded name fits: it ends with the surname, and its given names start with the initials
    in order (`strict`), or its first given name starts with the first initial (for `M. J. Smith` when the list
    says `Michael Smith`)."""
    n = len(typed.surname)
    given = key[:-n]
    if not given or key[-n:] != typed.surname:
        return False
    if not strict:
        return given[0][0] == typed.initials[0]
    return len(given) >= len(typed.initials) and all(g[0] == i for g, i in zip(given, typed.initials, strict=False))
