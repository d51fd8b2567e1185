"""Author names folded for comparison: no diacritics, no case, no punctuation (`Müller` = `muller` = `MÜLLER`)."""

from __future__ import annotations

import functools
import unicodedata

from bot.text.words import WORD_RE

# Letters Unicode does not decompose into a base letter and a mark, as people type them without the mark.
_UNDECOMPOSED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "þ": "th"})


@functools.lru_cache(maxsize=65536)
def fold_name(text: str) -> tuple[str, ...]:
    """A name's words, folded: `Hans-Georg Müller` → ('hans', 'georg', 'muller'); `Bansal, Mohit` keeps its order."""
    lower = text.casefold()
    if not lower.isascii():
        lower = "".join(c for c in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(c))
        lower = lower.translate(_UNDECOMPOSED)
    return tuple(WORD_RE.findall(lower))
