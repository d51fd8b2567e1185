"""What each paper is about, as meaning vectors, and the papers closest in meaning: `Similar` weighed shared words
alone, so an LM-tokenizer paper's neighbours were image, protein and video tokenizers (they share "tokenizer").

A paper's "about" text is its title, its opening sentences and the sentence saying what it contributes ("we
propose …"): where abstracts state the problem and the idea, before results and details that share vocabulary
with every paper of a field. It goes through the shipped static model (bot.text.embedding) at index time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from bot.papers.vectors import PaperVectors
from bot.text import embedding
from bot.text.sentences import contribution, split_sentences

OPENING = 2  # sentences of the abstract read from its start
# papers whose cosines to every paper are computed at once: bounds memory (BLOCK × papers × 16 bytes)
BLOCK = 256

Vectors = npt.NDArray[np.float32]


def about_text(title: str, abstract: str | None) -> str:
    """The title, the abstract's first OPENING sentences and, when later, the one saying what the paper contributes."""
    sentences = split_sentences(" ".join((abstract or "").split()))
    chosen = list(sentences[:OPENING])
    found = contribution(sentences)
    if found is not None and found[0] >= OPENING:
        chosen.append(sentences[found[0]])
    return " ".join([f"{title}.", *chosen])


def about_vectors(texts: Iterable[tuple[str, str | None]]) -> Vectors:
    """One unit vector per paper (title, abstract), of its about text, in order."""
    return embedding.model().encode([about_text(title, abstract) for title, abstract in texts])


def space(rows: Sequence[tuple[int, str, str | None]], papers: PaperVectors | None) -> Vectors | None:
    """Where closeness in meaning is measured, one row per (rowid, title, abstract): the about vector plus the whole
    paper's, centred on their mean (the static model puts all abstracts in one cone; centring spreads them), unit
    length. None when the index has no paper vectors from the shipped model."""
    if papers is None or not rows:
        return None
    mixed = about_vectors((title, abstract) for _, title, abstract in rows)
    mixed += papers.matrix[[papers.row_of[rowid] for rowid, _, _ in rows]]
    mixed -= mixed.mean(axis=0)
    norms = np.linalg.norm(mixed, axis=1, keepdims=True)
    np.divide(mixed, norms, out=mixed, where=norms > 0)
    return mixed


def closest(vectors: Vectors, count: int, floor: float) -> list[list[tuple[int, float]]]:
    """For each paper, up to `count` others of cosine at least `floor`, closest first (positions into `vectors`)."""
    out: list[list[tuple[int, float]]] = []
    n = len(vectors)
    count = min(count, n - 1)
    if count <= 0:
        return [[] for _ in range(n)]
    for start in range(0, n, BLOCK):
        cosines = vectors[start : start + BLOCK] @ vectors.T
        rows = np.arange(len(cosines))
        cosines[rows, rows + start] = -np.inf  # not itself
        top = np.argpartition(-cosines, count - 1, axis=1)[:, :count]
        for row, found in zip(cosines, top, strict=True):
            kept = [(int(j), float(row[j])) for j in found if row[j] >= floor]
            out.append(sorted(kept, key=lambda pair: (-pair[1], pair[0])))
    return out
