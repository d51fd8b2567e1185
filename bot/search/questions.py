"""Questions asked in words ("any papers on grokking?", "what are the best methods for kv cache compression?")
read as their topic: the request around it says what the researcher wants, not what the papers are about, and as
query words it would make every result hold "papers", "best" or "anyone".

Only a request before the topic is left out, and only when it names what is wanted (papers, work, methods), asks
(what, anyone, find, show) and ends where the topic starts (on, about, for, in, related to, study): "best arm
identification", "new benchmarks" and "research agents" stay topics. A trailing "papers" ("grokking papers") goes too.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.text.stopwords import FUNCTION_WORDS
from bot.text.words import word_set

# What is wanted: these words name the answer, not its topic.
WANTED = word_set(
    "paper papers work works research study studies article articles publication publications literature "
    "method methods approach approaches technique techniques advances progress developments trends ideas results"
)
# Asking: question words, requests, who asks and how they are asked, and contraction tails (what's, I'm, you're).
ASKING = word_set(
    "what whats which who how where when why any anyone anybody someone there please hi hey hello could would will "
    "did i me my we us you your s m re ve d ll show find give list get recommend suggest searching looking "
    "want need know tell point share seen worked working done"
)
# How the wanted things are described.
DESCRIBED = word_set(
    "recent latest new newest good best top great interesting important notable relevant key cool nice some all "
    "other more similar related state art current"
)
# Where the topic starts: after a preposition, or after a verb of what papers do with it.
LEADS_IN = word_set(
    "on about for in of to into by from regarding concerning around with using via study studies use uses discuss "
    "discusses address addresses tackle tackles explore explores investigate investigates propose proposes improve "
    "improves"
)
TRAILING = word_set("paper papers")
_REQUEST = WANTED | ASKING | DESCRIBED | LEADS_IN | FUNCTION_WORDS


def topic_span(terms: Sequence[tuple[str, ...] | None]) -> tuple[int, int]:
    """The [start, end) of the terms that are the topic, given each term's words (None: a quoted, negated or fielded
    term, which is always topic): everything when no request is found, or when nothing else would be left."""
    lead = 0
    while lead < len(terms) and (words := terms[lead]) is not None and all(w in _REQUEST for w in words):
        lead += 1
    start = 0
    for i in range(lead, 0, -1):  # the longest request that ends where a topic starts
        asked = [w for words in terms[:i] for w in words or ()]
        if asked[-1] in LEADS_IN and any(w in WANTED or w in ASKING for w in asked):
            start = i
            break
    end = len(terms)
    last = terms[end - 1] if terms else None
    if last is not None and len(last) == 1 and last[0] in TRAILING and end - 1 > start:
        end -= 1
    topic = [w for words in terms[start:end] for w in words or ("",)]
    if not topic or all(w in FUNCTION_WORDS for w in topic):
        return 0, len(terms)
    return start, end
