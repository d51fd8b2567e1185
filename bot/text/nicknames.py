"""Common English short forms of given names (Dave: David), so `Dave Blei` finds the author listed as David Blei
and `Philip Torr` the one listed as Phil Torr.

Folded as names are (bot.text.person_names.fold_name); a short form may stand for several names (Alex).
"""

from __future__ import annotations

_PAIRS = """
abby abigail; al albert alan alfred; alex alexander alexandra alexandre alexei; andy andrew andreas; ben benjamin;
bill william; billy william; bob robert; bobby robert; brad bradley; cathy catherine; charlie charles; chris
christopher christian christina christine; chuck charles; dan daniel; danny daniel; dave david; dick richard; dima
dmitry dmitrii; don donald; doug douglas; ed edward edwin; eddie edward; fred frederick; gabe gabriel; greg gregory;
jake jacob; jeff jeffrey; jen jennifer; jim james; jimmy james; joe joseph; jon jonathan; josh joshua; kate
katherine kathryn catherine; katie katherine kathryn; ken kenneth; larry lawrence; liz elizabeth; matt matthew; max
maximilian maxim; meg margaret; mike michael; misha mikhail; nate nathan nathaniel; nick nicholas nikolaos; pat
patrick patricia; pete peter; phil philip phillip; rich richard; rick richard; rob robert; ron ronald; sam samuel
samantha; sasha alexander aleksandr; sandy alexander sandra; steve steven stephen; sue susan; ted edward theodore;
tim timothy; tom thomas; tony anthony; vicky victoria; vlad vladimir; will william; zach zachary
"""

NICKNAMES: dict[str, tuple[str, ...]] = {
    short: tuple(names) for pair in _PAIRS.split(";") if pair.strip() for short, *names in [pair.split()]
}


_SHORT_FORMS: dict[str, set[str]] = {}
for _short, _names in NICKNAMES.items():
    for _name in _names:
        _SHORT_FORMS.setdefault(_name, set()).add(_short)


# Short forms that are everyday words too ("et al", "which papers will Zhang present", "rich features"): typed,
# they stand for themselves only; a full name still finds an author listed by one (Richard Sutton: Rich Sutton).
WORDS_TOO = frozenset(("al", "bill", "chuck", "dick", "don", "ed", "ken", "max", "pat", "rich", "rob", "sue", "will"))


def same_names(given: str) -> tuple[str, ...]:
    """The other given names a (folded) given name may be written as: its full forms, its short forms, and the other
    short forms of its full forms (Sandy: Alexander, Alex, Sasha); none for a name with no other form."""
    if given in WORDS_TOO:
        return ()
    full = set(NICKNAMES.get(given, ()))
    shorts = _SHORT_FORMS.get(given, set()) | {s for name in full for s in _SHORT_FORMS.get(name, ())}
    return tuple(sorted((full | shorts) - {given}))
