"""What a chat message is about, as search queries: the thread answers (`@icml-bot` in a thread) search with these."""

from __future__ import annotations

import itertools
import re

from bot import text
from bot.papers.reading import Reader
from bot.papers.vocabulary import document_frequencies
from bot.search.scoring import plain_idf
from bot.text.stopwords import CHAT_WORDS, TOO_COMMON

THREAD_QUERY_WORDS = 3  # single words, when no two topic words stand next to each other
FALLBACK_WORDS = 6  # last resort: each of the rarest words alone
# a word in more than this share of papers does not say what a thread is about
COMMON_FRACTION = 0.2
# Nor does one in fewer (1 in 2,000: a name, a typo, chatter the papers happen to hold)
RARE_FRACTION = 0.0005
# a thread's topic is in its opening; a 40,000-character paste is read this far
TOPIC_TEXT_CHARS = 4000

# Punctuation that separates phrases: words on either side are not "next to each other".
_SEGMENT_BREAK = re.compile(r"[.,;:!?&()\[\]{}\"“”/\\|]+|\s[-–—]+\s")


def topic_queries(db: Reader, message_text: str, papers: int) -> list[str]:
    """Queries for what a message (plain text) is about, most specific first (the caller uses the first that finds).

    Words the papers never use (names, chatter) or use everywhere ("model") say nothing; of the rest, pairs
    written next to each other ("speculative decoding", "long contexts") name a topic best, ranked by how
    rare their words are in the `papers` of the index: the two best pairs, the best pair, the three rarest words,
    then each of the rarest words alone.
    """
    segments = [text.tokenize(seg) for seg in _SEGMENT_BREAK.split((message_text or "")[:TOPIC_TEXT_CHARS])]
    candidates = list(
        dict.fromkeys(
            w
            for seg in segments
            for w in seg
            if len(w) > 2 and not w.isdigit() and w not in TOO_COMMON and w not in CHAT_WORDS
        )
    )
    if not candidates:
        return []
    df = document_frequencies(db, candidates)
    n = max(papers, 1)
    low, high = max(1, n * RARE_FRACTION), max(n * COMMON_FRACTION, 2)
    idf = {w: plain_idf(df[w], n) for w in candidates if low <= df.get(w, 0) <= high}
    pairs: dict[tuple[str, str], float] = {}
    for seg in segments:
        for a, b in itertools.pairwise(seg):
            if a in idf and b in idf and a != b:
                pairs[(a, b)] = idf[a] + idf[b]
    best_pairs = sorted(pairs, key=lambda pair: -pairs[pair])
    singles = sorted(idf, key=lambda w: -idf[w])

    def written(words: set[str]) -> str:
        return " ".join(w for w in candidates if w in words)

    queries = []
    if len(best_pairs) >= 2:
        queries.append(written({*best_pairs[0], *best_pairs[1]}))
    if best_pairs:
        queries.append(written(set(best_pairs[0])))
    if singles:
        queries += [written(set(singles[:THREAD_QUERY_WORDS])), *singles[:FALLBACK_WORDS]]
    return list(dict.fromkeys(queries))
