"""Stopwords, kept once for the index and search: words that say nothing about what a paper is about.

It lives in bot/text, below both the index and search, so the index never imports the search package.
"""

from __future__ import annotations

from bot.text.words import word_set

# Words that carry no topic on their own. A query keeps them inside phrases and for proximity, but does not require
# them (search ANDs the other words).
FUNCTION_WORDS = word_set(
    "a an and are as at be by can do does for from has have how in into is it its of on or than that the their "
    "these this those to using versus via vs was we what when where which while who why with without"
)
# Words every abstract uses ("we propose a new method"): they say nothing about which paper it is either.
BOILERPLATE = word_set(
    "also approach based been both but each however may method methods model models more most new not our over "
    "paper propose proposed results show shows study such them they through under were will within work would"
)
# Too common to identify a paper: the words find_twin and similar() leave out of their FTS5 queries.
TOO_COMMON = FUNCTION_WORDS | BOILERPLATE
