"""Related papers, computed once at index time so `Similar` is one read: TF-IDF over title and abstract, refined by
the neighbours papers share, stored in the index's `neighbours` table.

How, and why the work per paper is bounded however many papers there are (words in pure Python; meaning in numpy):
1. Each paper becomes a unit vector of crudely stemmed words and adjacent word pairs ("reinforcement learning"),
   title words counted more, weighted by sublinear tf × idf and cut to its `terms` strongest terms.
2. Candidates come from truncated postings: each term lists only the `postings` papers where it weighs most, and a
   paper looks up only its `probe` strongest terms. The best candidates are rescored by exact cosine.
3. Papers that the same papers are close to are close: each paper's scores gain its neighbours' scores, weighted by
   how close each neighbour is (one step of a walk on the neighbour graph). Topic agreement rises by about a point.
4. What the papers are about weighs above the words they share (bot.papers.about, at index time only): the `close`
   papers nearest in meaning join the candidates, and each candidate's shared-words score is scaled by its closeness
   in meaning, so an LM-tokenizer paper's neighbours are LM-tokenizer papers, not image tokenizers sharing the word.
"""

from __future__ import annotations

import heapq
import itertools
import math
import sqlite3
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.papers.reading import Reader
from bot.text.stopwords import TOO_COMMON
from bot.text.words import WORD_RE, stem, word_set

if TYPE_CHECKING:
    import sqlite_utils

    from bot.papers.about import Vectors

# Words of scientific prose that say nothing about a topic, on top of the shared stopwords.
GENERIC = TOO_COMMON | word_set(
    "across achieve achieves address addresses allows among analysis demonstrate demonstrates despite different "
    "effective effectively existing experiments extensive furthermore further given however improve improves "
    "improved including introduce introduces key large leverage leverages moreover novel often only performance "
    "provide provides range remains significant significantly specific state art task tasks then there this two "
    "first one well which while yet can since has had its our these whether"
)
TABLE = "neighbours"


@dataclass(frozen=True)
class Settings:
    """The knobs, tuned on the half of the papers with an area that bench/quality/similar.py does not hold out."""

    title_weight: int = 2  # a title word counts as this many abstract words
    pair_weight: float = 0.5  # an adjacent word pair counts as this much of a word
    terms: int = 80  # strongest terms kept per paper
    probe: int = 20  # of those, how many look for candidates
    postings: int = 60  # papers kept per term: those where it weighs most
    candidates: int = 20  # nearest papers kept per paper before smoothing
    rescore: int = 2  # candidates rescored by exact cosine, per nearest paper kept
    smoothing: float = 1.0  # weight of the neighbours' scores beside a paper's own
    walk: int = 20  # how many of its nearest papers pass their scores on to a paper
    # neighbours stored per paper: the learning digest moves the 40 closest to a voted paper
    keep: int = 40
    common: float = 0.2  # a term in more than this share of papers is dropped
    # Power of the closeness in meaning that scales a candidate's score (0: words alone)
    meaning: float = 2.0
    # Cosine (of centred vectors) at or below which two papers count as unrelated in meaning
    floor: float = 0.2
    close: int = 30  # papers nearest in meaning added to each paper's candidates
    # Added to the shared-words score: a paper close in meaning that shares few words still counts
    lift: float = 0.05


DEFAULT = Settings()
# Up to this many papers the index stores neighbours (their cost per paper while indexing: docs/benchmarks.md). A
# larger index keeps no neighbours table, and `Similar` finds papers by their words at query time, as before
# neighbours were stored: a full computation over a several-conference index costs minutes and gigabytes.
MOST_PAPERS = 30_000
# From this many papers, what they are about weighs in (step 4): centring needs the mean of a real conference's
# papers, and the floor was tuned on one; a few dozen papers (the seeds, a test) keep their neighbours by words.
MEANING_FROM = 1_000
# The closeness in meaning of papers below the floor: tiny, so shared words still order them
UNRELATED = 0.01


class Terms:
    """Counts a paper's terms; remembers each word's stem (or that it is generic) across papers."""

    def __init__(self, settings: Settings = DEFAULT) -> None:
        self.settings = settings
        self._stems: dict[str, str] = {}

    def _stem(self, word: str) -> str:
        kept = "" if word in GENERIC or len(word) < 3 or word.isdigit() else stem(word)
        self._stems[word] = kept
        return kept

    def _sequence(self, text: str) -> list[str]:
        get, learn = self._stems.get, self._stem
        return [s if (s := get(w)) is not None else learn(w) for w in WORD_RE.findall(text.lower())]

    def __call__(self, title: str, abstract: str) -> Counter[str]:
        """Term counts: stems of topic words and pairs of adjacent ones, the title's `title_weight` times."""
        # One pass over the title repeated and the abstract ("the" breaks pairs across the seams): cheaper than
        # counting each apart and merging, which matters at 100,000 papers.
        seq = self._sequence(" the ".join([title] * self.settings.title_weight + [abstract]))
        counts = Counter(filter(None, seq))
        if self.settings.pair_weight:
            counts.update(f"{a} {b}" for a, b in itertools.pairwise(seq) if a and b)
        return counts


def vectors(texts: Iterable[tuple[str, str]], settings: Settings = DEFAULT) -> list[dict[str, float]]:
    """Unit TF-IDF vectors (sublinear tf) of each paper's strongest terms, strongest first, in the order of `texts`.

    A word pair weighs `pair_weight` times a word, and counts only once it occurs as often as 1 / pair_weight."""
    count = Terms(settings)
    counted = [count(title or "", abstract or "") for title, abstract in texts]
    df: Counter[str] = Counter()
    for counts in counted:
        df.update(counts.keys())
    n = len(counted)
    most = max(10.0, settings.common * n)  # a small index keeps every term: idf weighs them
    idf = {t: math.log(n / d) for t, d in df.items() if 2 <= d <= most}
    pair, log = settings.pair_weight, math.log
    out = []
    for counts in counted:
        weights = [
            ((1 + log(tf)) * idf[t], t)
            for t, c in counts.items()
            if t in idf and (tf := c * pair if " " in t else c) >= 1
        ]
        strongest = heapq.nlargest(settings.terms, weights)
        norm = math.sqrt(sum(w * w for w, _ in strongest)) or 1.0
        out.append({t: w / norm for w, t in strongest})
    return out


def neighbours(vecs: Sequence[dict[str, float]], settings: Settings = DEFAULT) -> list[list[tuple[int, float]]]:
    """For each vector, the `keep` closest others (positions into `vecs`) with their scores, best first."""
    postings = postings_of(vecs, settings)
    first = [_nearest(i, vec, vecs, postings, settings) for i, vec in enumerate(vecs)]
    if not settings.smoothing:
        return [row[: settings.keep] for row in first]
    out = []
    for i, row in enumerate(first):
        scores = dict(row)
        total = sum(s for _, s in row) or 1.0
        for m, s in row[: settings.walk]:
            share = settings.smoothing * s / total
            for j, s2 in first[m]:
                scores[j] = scores.get(j, 0.0) + share * s2
        scores.pop(i, None)
        out.append(heapq.nlargest(settings.keep, scores.items(), key=_by_score))
    return out


def postings_of(vecs: Sequence[dict[str, float]], settings: Settings) -> dict[str, list[tuple[float, int]]]:
    """Each term's papers, only the `postings` where it weighs most."""
    postings: dict[str, list[tuple[float, int]]] = {}
    for i, vec in enumerate(vecs):
        for t, w in vec.items():
            postings.setdefault(t, []).append((w, i))
    for t, plist in postings.items():
        if len(plist) > settings.postings:
            postings[t] = heapq.nlargest(settings.postings, plist)
    return postings


def _nearest(
    i: int,
    vec: dict[str, float],
    vecs: Sequence[dict[str, float]],
    postings: dict[str, list[tuple[float, int]]],
    settings: Settings,
) -> list[tuple[int, float]]:
    """One paper's `candidates` nearest others by cosine, found through its strongest terms' postings."""
    acc: dict[int, float] = {}
    get = acc.get
    for t, w in itertools.islice(vec.items(), settings.probe):
        for u, j in postings.get(t, ()):
            acc[j] = get(j, 0.0) + w * u
    acc.pop(i, None)
    best = heapq.nlargest(settings.candidates * max(1, settings.rescore), acc, key=acc.__getitem__)
    exact = [(j, dot(vec, vecs[j]) if settings.rescore else acc[j]) for j in best]
    return heapq.nlargest(settings.candidates, exact, key=_by_score)


def blend(
    found: Sequence[list[tuple[int, float]]],
    vecs: Sequence[dict[str, float]],
    space: Vectors,
    settings: Settings = DEFAULT,
) -> list[list[tuple[int, float]]]:
    """Each paper's neighbours by words and its `close` nearest in meaning, scored by the words they share (the
    better of the smoothed score and the exact cosine) plus `lift`, times closeness in meaning to the power `meaning`:
    a paper must be about the same thing to rank high, and among those, sharing words still orders them."""
    import numpy as np  # (imported here: a search reading the stored neighbours never needs it)

    from bot.papers.about import closest

    nearest = closest(space, settings.close, settings.floor)
    out = []
    for i, (row, near) in enumerate(zip(found, nearest, strict=True)):
        words = dict(row)
        for j, _ in near:
            words.setdefault(j, 0.0)
        others = list(words)
        shared = np.array([max(words[j], dot(vecs[i], vecs[j])) for j in others])
        closeness = np.maximum((space[others] @ space[i] - settings.floor) / (1 - settings.floor), UNRELATED)
        scores = closeness**settings.meaning * (shared + settings.lift)
        out.append(heapq.nlargest(settings.keep, zip(others, scores.tolist(), strict=True), key=_by_score))
    return out


def _by_score(pair: tuple[int, float]) -> tuple[float, int]:
    """Best score first; ties to the earlier paper, so results never depend on dict order."""
    return pair[1], -pair[0]


def dot(a: dict[str, float], b: dict[str, float]) -> float:
    """The dot product of two sparse vectors: C intersects their keys, Python multiplies the few shared."""
    return sum([a[t] * b[t] for t in a.keys() & b.keys()])


def rebuild(db: sqlite_utils.Database, settings: Settings = DEFAULT) -> None:
    """Recompute every paper's neighbours into the `neighbours` table (one row per paper, rowids of `papers`); an
    index of more than MOST_PAPERS papers has none (`stored` says so, and `Similar` searches by words instead)."""
    db.execute(f"DROP TABLE IF EXISTS {TABLE}")
    if db.execute("SELECT count(*) FROM papers").fetchone()[0] > MOST_PAPERS:
        return
    rows = db.execute("SELECT rowid, title, abstract FROM papers ORDER BY rowid").fetchall()
    rowids = [r[0] for r in rows]
    vecs = vectors(((r[1], r[2]) for r in rows), settings)
    found = neighbours(vecs, settings)
    if settings.meaning and len(rows) >= MEANING_FROM:
        # (numpy and the model load here, at index time: a search that reads the stored neighbours needs neither)
        from bot.papers import about
        from bot.papers import vectors as paper_vectors

        space = about.space(rows, paper_vectors.read(db))
        if space is not None:
            found = blend(found, vecs, space, settings)
    db.execute(f"CREATE TABLE {TABLE} (paper INTEGER PRIMARY KEY, related BLOB NOT NULL)")
    db.conn.executemany(
        f"INSERT INTO {TABLE} (paper, related) VALUES (?, ?)",
        ((rowid, pack((rowids[j], s) for j, s in row)) for rowid, row in zip(rowids, found, strict=True)),
    )


def stored(db: Reader, rowid: int) -> list[tuple[int, float]] | None:
    """A paper's stored neighbours (rowid, score), best first; None when this index has no neighbours table."""
    try:
        row = db.execute(f"SELECT related FROM {TABLE} WHERE paper = ?", [rowid]).fetchone()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):  # an index built before neighbours were stored
            return None
        raise
    return unpack(row[0]) if row else []


def pack(row: Iterable[tuple[int, float]]) -> bytes:
    """One paper's neighbours as a compact blob: rowids as int32, then scores as float32."""
    pairs = list(row)
    return array("i", [r for r, _ in pairs]).tobytes() + array("f", [s for _, s in pairs]).tobytes()


def unpack(blob: bytes) -> list[tuple[int, float]]:
    """The (rowid, score) pairs `pack` stored, best first."""
    half = len(blob) // 2
    rowids, scores = array("i"), array("f")
    rowids.frombytes(blob[:half])
    scores.frombytes(blob[half:])
    return list(zip(rowids, scores, strict=True))
