"""Stopwords, kept once for the index and search: words that say nothing about what a paper is about.

A new module (not part of bot.text's own exports) so that bot.papers.index can use it without importing search.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that carry no topic on their own. A query keeps them inside phrases and for proximity, but does not require
# them (search ANDs the other words).
FUNCTION_WORDS = _words(
    "a an and are as at be by can do does for from has have how in into is it its of on or than that the their "
    "these this those to using via vs was we what when where which while who why with without"
)
# Words every abstract uses ("we propose a new method"): they say nothing about which paper it is either.
BOILERPLATE = _words(
    "also approach based been both but each however may method methods model models more most new not our over "
    "paper propose proposed results show shows study such them they through under were will within work would"
)
# Too common to identify a paper: the words find_twin and similar() leave out of their FTS5 queries.
TOO_COMMON = FUNCTION_WORDS | BOILERPLATE
