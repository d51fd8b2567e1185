"""Author names folded for comparison: no diacritics, no case, no punctuation (`Müller` = `muller` = `MÜLLER`)."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Collection, Sequence
from typing import NamedTuple

from bot.text.words import WORD_RE

# Letters Unicode does not decompose into a base letter and a mark, as people type them without the mark.
_UNDECOMPOSED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "þ": "th"})
# Letters spelled out where a keyboard lacks them (Schölkopf: Schoelkopf, Åberg: Aaberg, Sørensen: Soerensen).
SPELLED_OUT = {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "ø": "oe", "å": "aa", "æ": "ae"}
_SPELL_OUT = str.maketrans(SPELLED_OUT)
# What a spelling typed without those letters may stand for: the letter, or the base letter a name folds it to
# (Schoelkopf: Schölkopf, folded scholkopf; Mobius: Möbius). One place of a word at a time.
_READ_BACK = (
    ("ae", ("ä", "æ", "a")),
    ("oe", ("ö", "ø", "o")),
    ("ue", ("ü", "u")),
    ("aa", ("å", "a")),
    ("ss", ("ß",)),
    ("a", ("ä", "å")),
    ("o", ("ö", "ø")),
    ("u", ("ü",)),
)
# Words before a surname that belong to it (Mihaela van der Schaar, Guy Van den Broeck, Nando de Freitas). Some are
# also given names or surnames (Le Song, Abir De, Ben Recht): only one followed by another word of the name is read so.
PARTICLES = frozenset(
    {"van", "von", "vom", "der", "den", "ter", "ten", "de", "del", "della", "dei", "degli", "di", "da", "das", "dos"}
    | {"du", "la", "le", "zu", "zur", "bin", "ben", "ibn", "al", "el"}
)


@functools.lru_cache(maxsize=65536)
def fold_name(text: str) -> tuple[str, ...]:
    """A name's words, folded: `Hans-Georg Müller` → ('hans', 'georg', 'muller'); `Bansal, Mohit` keeps its order."""
    lower = text.casefold()
    if not lower.isascii():
        lower = "".join(c for c in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(c))
        lower = lower.translate(_UNDECOMPOSED)
    return tuple(WORD_RE.findall(lower))


def spelled_out(word: str) -> str:
    """A word lowercased with its letters spelled out as on a keyboard without them: Schölkopf → schoelkopf."""
    return word.casefold().translate(_SPELL_OUT)


@functools.lru_cache(maxsize=8192)
def read_back(word: str) -> tuple[str, ...]:
    """The spellings a lowercase word typed without ä, ö, ü, ß, ø, å or æ may stand for, one place at a time
    (schoelkopf: schölkopf, scholkopf; nystrom: nyström): the caller keeps those the index knows."""
    if not word.isascii():
        return ()
    out: list[str] = []
    for typed, letters in _READ_BACK:
        at = word.find(typed)
        while at >= 0:
            out += [word[:at] + letter + word[at + len(typed) :] for letter in letters]
            at = word.find(typed, at + 1)
    return tuple(dict.fromkeys(w for w in out if w != word))


def without_particles(words: tuple[str, ...]) -> tuple[str, ...]:
    """A folded name without the particles before its surname: ('mihaela', 'schaar') for Mihaela van der Schaar,
    ('schaar', 'mihaela') for `van der Schaar, Mihaela`. The people table keys a person by the first and last word of
    their name, which surname first are the particles; a name that would be left one word keeps them (Le Song)."""
    bare = tuple(w for i, w in enumerate(words) if w not in PARTICLES or i == len(words) - 1)
    return bare if len(bare) >= 2 else words


def shown_authors(authors: Sequence[str], shown: int, named: Collection[str] = ()) -> tuple[list[ShownAuthor], bool]:
    """Which authors a paper's line shows: the first `shown`, and the `named` ones (the person a search found) wherever
    they are listed, each marked and, when names were skipped before it, after a gap (A, B, C, … *Yoshua Bengio*);
    and whether any name is left out after the last shown (et al.)."""
    out: list[ShownAuthor] = []
    last = -1
    for i, name in enumerate(authors):
        if i >= shown and name not in named:
            continue
        out.append(ShownAuthor(name, name in named, i > last + 1))
        last = i
    return out, last < len(authors) - 1


class ShownAuthor(NamedTuple):
    """One name of an author line: whether the query named it, and whether names were skipped before it."""

    name: str
    named: bool
    after_gap: bool
