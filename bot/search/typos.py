"""Typo correction and spelling variants against the index vocabulary (raw words and their document frequencies).

Rules, so a researcher is never "corrected" out of a valid word: a word in the vocabulary is never corrected;
words shorter than MIN_LENGTH, or with digits, are left alone; a correction is at most one edit away (two for long
words), a transposition counts as one edit (OSA distance), and among equally close words the caller may pick by
context (search.py: the one papers use with the other query words), else the most frequent wins. British and US
spellings (tokeniser/tokenizer) are variants searched together, not corrections. Nothing here reads SQLite: the
caller passes functions that do, so one Vocabulary can serve every thread's connection.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable

from rapidfuzz import process
from rapidfuzz.distance import OSA, Levenshtein

MIN_LENGTH = 4
LONG_WORD = 7  # from this length on, two edits are allowed
RARE_DF = 2  # a known word this rare may itself be a typo in some abstract ("modles")...
RARE_MIN_LENGTH = 5
RARE_NEIGHBOUR_DF = 50  # ...of a word one edit away that at least this many papers use
RARE_NEIGHBOUR_RATIO = 50
# a word one edit away at the first letter this many times more used is a candidate too
FIRST_LETTER_RATIO = 10
TYPO_FLOOR = 2  # ...if more than this many papers use it
MAX_COMPOUND = 40  # longer "words" are not run-together words (and splitting them would take long)

# (pattern, replacement) pairs applied both ways: British ↔ US spellings.
_SPELLING_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), r)
    for p, r in (
        (r"(?<=[a-z]{3})is(e|es|ed|ing|er|ers|ation|ations|ational)$", r"iz\1"),
        (r"(?<=[a-z]{3})iz(e|es|ed|ing|er|ers|ation|ations|ational)$", r"is\1"),
        (r"(?<=[a-z]{2})ys(e|es|ed|ing|er|ers)$", r"yz\1"),
        (r"(?<=[a-z]{2})yz(e|es|ed|ing|er|ers)$", r"ys\1"),
        (r"(?<=[a-z]{2})our(s|ed|ing|al|ally|ful|less|able|ite|ites)?$", r"or\1"),
        (r"(?<=[a-z]{2}[^o])or(s|ed|ing|al|ally|ful|less|able|ite|ites)?$", r"our\1"),
        (r"(?<=[a-z]{2})tre(s|d)?$", r"ter\1"),
        (r"(?<=[a-z]{2})ter(s|ed)?$", r"tre\1"),
        (r"(?<=[aeiou])ll(ing|ed|er|ers)$", r"l\1"),
        (r"(?<=[aeiou])l(ing|ed|er|ers)$", r"ll\1"),
        (r"(?<=[a-z]{2})ence$", "ense"),
        (r"(?<=[a-z]{2})ense$", "ence"),
        (r"(?<=[a-z]{3})ogue(s)?$", r"og\1"),
        (r"(?<=[a-z]{3})og(s)?$", r"ogue\1"),
    )
)


def spellings(word: str) -> list[str]:
    """Other spellings of a word (tokeniser → tokenizer, modelling → modeling); the caller keeps known ones."""
    return list(_spellings(word))


@functools.lru_cache(maxsize=8192)
def _spellings(word: str) -> tuple[str, ...]:
    out: list[str] = []
    for pattern, repl in _SPELLING_RULES:
        other = pattern.sub(repl, word)
        if other != word and other not in out:
            out.append(other)
    return tuple(out)


# A field's noun and its adjective that FTS5's stemmer keeps apart (biology: biologi, biological: biolog), so `AI in
# medicine` also finds medical papers and `LLMs for chemistry` chemical ones.
_ADJECTIVE_RULES = tuple(
    (re.compile(p), r)
    for p, r in (
        (r"(?<=[a-z]{3})icine$", "ical"),  # medicine: medical
        (r"(?<=[a-z]{3})istry$", "ical"),  # chemistry: chemical
        (r"(?<=[a-z]{3})ery$", "ical"),  # surgery: surgical
        (r"(?<=[a-z]{3})ogy$", "ogical"),  # biology: biological
        (r"(?<=[a-z]{3})omy$", "omic"),  # economy: economic
        (r"(?<=[a-z]{3})ety$", "etal"),  # society: societal
    )
)


def adjectives(word: str) -> list[str]:
    """The adjective of a field's noun when the stemmer would not match them (medicine: medical); the caller keeps
    those papers use."""
    return list(_adjectives(word))


@functools.lru_cache(maxsize=8192)
def _adjectives(word: str) -> tuple[str, ...]:
    return tuple(rule.sub(repl, word) for rule, repl in _ADJECTIVE_RULES if rule.search(word))


def singulars(word: str) -> list[str]:
    """The singular a plural may have (parities → parity, boxes → box, priors → prior): FTS5's stemmer matches a
    plural the index never spelled out, so such a word is no typo."""
    if len(word) < 5 or not word.endswith("s") or word.endswith("ss"):
        return []
    forms = [word[:-3] + "y"] if word.endswith("ies") else []
    # not lab for labes
    forms += [word[:-2]] if word.endswith(("ses", "xes", "zes", "ches", "shes")) else []
    return list(dict.fromkeys([*forms, word[:-1]]))


class Vocabulary:
    """Raw words of one index and their document frequencies, loaded lazily and shared across threads.

    `fetch_df(words)` and `fetch_prefix(first_char)` read the index through the caller's connection, so a
    Vocabulary never holds a connection of its own.
    """

    def __init__(self) -> None:
        self._df: dict[str, int] = {}
        self._buckets: dict[str, dict[int, list[str]]] = {}
        self._lock = threading.Lock()

    def df(self, words: Iterable[str], fetch: Callable[[list[str]], dict[str, int]]) -> dict[str, int]:
        """Document frequency of each word (0 when unknown), from a cache filled by `fetch`."""
        words = list(dict.fromkeys(words))
        missing = [w for w in words if w not in self._df]
        if missing:
            found = fetch(missing)
            with self._lock:
                for w in missing:
                    self._df[w] = found.get(w, 0)
                if len(self._df) > 200_000:  # a long-running bot: keep memory bounded
                    self._df.clear()
                    self._df.update({w: found.get(w, 0) for w in missing})
        return {w: self._df.get(w, 0) for w in words}

    def bucket(self, first: str, fetch: Callable[[str], list[tuple[str, int]]]) -> dict[int, list[str]]:
        """Vocabulary words starting with `first`, grouped by length (the candidates for a correction)."""
        got = self._buckets.get(first)
        if got is None:
            rows = fetch(first)
            got = {}
            for word, _n in rows:
                got.setdefault(len(word), []).append(word)
            with self._lock:
                self._buckets[first] = got
                for word, n in rows:
                    self._df.setdefault(word, n)
        return got


def correction(
    word: str,
    vocab: Vocabulary,
    fetch_df: Callable[[list[str]], dict[str, int]],
    fetch_prefix: Callable[[str], list[tuple[str, int]]],
) -> str | None:
    """The vocabulary word a typo most likely meant, or None when the word is known, too short or has no close match."""
    found = corrections(word, vocab, fetch_df, fetch_prefix)
    return found[0] if found else None


def corrections(
    word: str,
    vocab: Vocabulary,
    fetch_df: Callable[[list[str]], dict[str, int]],
    fetch_prefix: Callable[[str], list[tuple[str, int]]],
    n: int = 3,
    max_edits: int = 2,
) -> list[str]:
    """The equally close candidates for a typo, most frequent first (the caller may pick one by context); two edits
    away only for long words and `max_edits` 2 (a name typed in CamelCase takes one)."""
    if len(word) < MIN_LENGTH or not word.isalpha() or vocab.df([word], fetch_df)[word] > 0:
        return []
    found = _closest(word, 1, 1, vocab, fetch_df, fetch_prefix)
    # A slip at the first letter (ransformers, conformal rediction): words one edit away there come after the closest
    # words sharing the first letter, for the caller's context to choose, or first when many times more papers use
    # them (einforcement: reinforcement before enforcement).
    near = one_edit(word, first_only=True)
    dfs = vocab.df(near + found, fetch_df)
    closest = max((dfs[w] for w in found), default=0)
    # `nlearning`: learning with a stray n, or unlearning with its u lost? A stray key is hit beside the next one
    # (`rtransformers`); n is nowhere near l, so a word the first letter was lost from is meant, if papers use one.
    stray = found == [word[1:]] and not _neighbours(word[0], word[1])
    floor = TYPO_FLOOR if stray else max(TYPO_FLOOR, closest)
    first = sorted((w for w in near if dfs[w] > floor and w not in found), key=lambda w: -dfs[w])
    if first and stray:
        found = first
    elif first:
        bar = FIRST_LETTER_RATIO * closest
        found = [w for w in first if dfs[w] > bar] + found + [w for w in first if dfs[w] <= bar]
    # Most typos are one edit: look further when needed
    if not found and len(word) >= LONG_WORD and max_edits > 1:
        found = [w for w in _closest(word, 2, 1, vocab, fetch_df, fetch_prefix) if _slips(word, w)]
    return found[:n]


def _slips(typed: str, word: str) -> bool:
    """Whether two edits could have made `typed` of `word` as fingers slip: the first two letters kept, letters
    left out, doubled or swapped, and any struck in place of another only beside it on the keyboard. `stealing`, a
    word no paper here uses, is not scaling, steering or streaming (a for e, l for r, l for m: keys far apart)."""
    if typed[:2] != word[:2]:
        return False
    if OSA.distance(typed, word) < Levenshtein.distance(typed, word):
        return True  # (two letters swapped: one slip)
    ops = Levenshtein.editops(typed, word)
    return all(op.tag != "replace" or _neighbours(typed[op.src_pos], word[op.dest_pos]) for op in ops)


# Each row's keys and how far it is set in
_ROWS = (("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75))
_KEYS = {c: (r, i + shift) for r, (row, shift) in enumerate(_ROWS) for i, c in enumerate(row)}


def _neighbours(a: str, b: str) -> bool:
    """Whether two letters are one key or touch on a QWERTY keyboard (a stray key is hit beside the meant one)."""
    if a == b or a not in _KEYS or b not in _KEYS:
        return True  # (a doubled letter; or not letters of that keyboard: they might touch)
    (ra, xa), (rb, xb) = _KEYS[a], _KEYS[b]
    return abs(ra - rb) <= 1 and abs(xa - xb) <= 1.0


def common_neighbour(
    word: str,
    vocab: Vocabulary,
    fetch_df: Callable[[list[str]], dict[str, int]],
    fetch_prefix: Callable[[str], list[tuple[str, int]]],
) -> str | None:
    """For a word only one or two papers use ("modles"), a word one edit away that many papers use ("models"), at
    the first letter too ("raining": training), as corrections() chooses between them.

    The rare word is still searched (it may be valid); the common one is searched beside it.
    """
    if len(word) < RARE_MIN_LENGTH or not word.isalpha():
        return None
    df = vocab.df([word], fetch_df)[word]
    if not 1 <= df <= RARE_DF:
        return None
    least = max(RARE_NEIGHBOUR_DF, RARE_NEIGHBOUR_RATIO * df)
    found = _closest(word, 1, least, vocab, fetch_df, fetch_prefix)
    near = one_edit(word, first_only=True)
    dfs = vocab.df(near + found[:1], fetch_df)
    first = max((w for w in near if dfs[w] >= least), key=lambda w: (dfs[w], w), default=None)
    if first and (not found or dfs[first] > FIRST_LETTER_RATIO * dfs[found[0]]):
        return first
    return found[0] if found else None


def _closest(
    word: str,
    max_edits: int,
    min_df: int,
    vocab: Vocabulary,
    fetch_df: Callable[[list[str]], dict[str, int]],
    fetch_prefix: Callable[[str], list[tuple[str, int]]],
) -> list[str]:
    """Vocabulary words at the smallest edit distance found, best first (same first letter, then frequency)."""
    candidates: list[str] = []
    # Typos rarely touch the first letter; the second bucket catches a swapped or dropped first letter.
    for first in dict.fromkeys(word[:2]):
        buckets = vocab.bucket(first, fetch_prefix)
        for length in range(len(word) - max_edits, len(word) + max_edits + 1):
            candidates.extend(buckets.get(length, ()))
    if not candidates:
        return []
    hits = process.extract(word, candidates, scorer=OSA.distance, score_cutoff=max_edits, limit=None)
    hits = [h for h in hits if h[0] != word]
    if not hits:
        return []
    dfs = vocab.df([h[0] for h in hits], fetch_df)
    # A second edit is only worth it for a word more than a couple of papers use.
    hits = [h for h in hits if dfs[h[0]] >= min_df and (h[1] <= 1 or dfs[h[0]] >= 3)]
    if not hits:
        return []
    hits.sort(key=lambda h: (h[1], h[0][0] != word[0], -dfs[h[0]], h[0]))
    best = (hits[0][1], hits[0][0][0] != word[0])
    return [h[0] for h in hits if (h[1], h[0][0] != word[0]) == best]


def swaps(word: str) -> list[str]:
    """The word with each two neighbouring letters swapped (hsot: shot), first letters first."""
    return [word[:j] + word[j + 1] + word[j] + word[j + 2 :] for j in range(len(word) - 1)]


def one_edit(word: str, first_only: bool = False) -> list[str]:
    """Every string one edit from a word: a letter dropped, two swapped, one changed or one added. `first_only`:
    edits at the first letter only (`sgent`: agent, `uning`: tuning), which corrections() never makes."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    cuts = [(word[:i], word[i:]) for i in range(1 if first_only else len(word) + 1)]
    out = [a + b[1:] for a, b in cuts if b]
    out += swaps(word)[:1] if first_only else swaps(word)
    out += [a + c + b[1:] for a, b in cuts if b for c in letters]
    out += [a + c + b for a, b in cuts for c in letters]
    return [w for w in dict.fromkeys(out) if w != word]


def split_compound(
    word: str, df: Callable[[list[str]], dict[str, int]], min_df: int = 2, parts: int = 3
) -> tuple[str, ...] | None:
    """Two or three known words a run-together query word is made of (kvcache → kv cache), or None."""
    if not 5 <= len(word) <= MAX_COMPOUND or not word.isalpha():
        return None
    best: tuple[int, tuple[str, ...]] | None = None
    cuts = range(2, len(word) - 1)
    known = df([word[:i] for i in cuts] + [word[i:] for i in cuts])
    for i in cuts:
        a, b = word[:i], word[i:]
        if known.get(a, 0) >= min_df and known.get(b, 0) >= min_df:
            score = min(known[a], known[b])
            if best is None or score > best[0]:
                best = (score, (a, b))
    if best is None and parts > 2 and len(word) >= 8:
        for i in range(2, len(word) - 3):
            if known.get(word[:i], 0) >= min_df:
                tail = split_compound(word[i:], df, min_df, parts=2)
                if tail:
                    return (word[:i], *tail)
    return best[1] if best else None
