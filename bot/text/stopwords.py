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
# Words that say nothing about a topic in a chat message ("anyone seen papers on …"), on top of TOO_COMMON.
CHAT_WORDS = word_set(
    "about any anyone anything know knows think thoughts seen see saw look looking find found papers related "
    "relevant recent recently interesting something someone please thanks thank hey hi hello just like really "
    "good great cool nice does did doing done want wants need needs could should would here there than then "
    "also still very much many some other others way ways thing things lot lots get got make made use used "
    "question idea ideas discussion thread what why how who which let lets maybe sure yes yeah okay ok one two "
    "icml bot"
)
