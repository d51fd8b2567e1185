"""Meaning vectors of every sentence of every paper (its title counts as one), built with the paper vectors: a long
query read as a description scores a paper by its best sentence (bot.search.described), and tokenizing a hundred
abstracts per query cost more than the rest of the search. Stored as int8 with a scale per sentence (a paper's
sentences in one row: ~2 KB a paper)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from bot.papers.reading import Reader, has_table
from bot.text.sentences import split_sentences

if TYPE_CHECKING:
    import sqlite_utils

    from bot.text.embedding import StaticEmbedding

TABLE = "sentence_vectors"
SHORTEST = 20  # characters: a shorter piece ("Code: x.") says nothing of the idea
# Characters of a sentence read (a run-on "sentence" of a badly split abstract is cut)
LONGEST = 400

Vectors = npt.NDArray[np.float32]


def sentences_of(title: str, abstract: str | None) -> list[str]:
    """A paper's title and its abstract's sentences, as they are embedded and later read (the same list both times)."""
    found = [s for s in split_sentences(" ".join((abstract or "").split())) if len(s) > SHORTEST]
    return [s[:LONGEST] for s in [title, *found] if s]


def create(db: sqlite_utils.Database) -> None:
    """The empty table (inside the caller's load transaction)."""
    db.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (rowid INTEGER PRIMARY KEY, vectors BLOB NOT NULL, scales BLOB)")
    db.execute(f"DELETE FROM {TABLE}")


def add(db: sqlite_utils.Database, model: StaticEmbedding, rows: Sequence[tuple[int, str, str | None]]) -> None:
    """Embed and store these papers' sentences (rowid, title, abstract)."""
    texts = [sentences_of(title, abstract) for _, title, abstract in rows]
    vectors = model.encode([s for paper in texts for s in paper])
    scales = np.maximum(np.abs(vectors).max(axis=1), 1e-12) / 127.0
    quantized = np.round(vectors / scales[:, None]).astype(np.int8)
    stored, start = [], 0
    for (rowid, _, _), paper in zip(rows, texts, strict=True):
        end = start + len(paper)
        stored.append((rowid, quantized[start:end].tobytes(), scales[start:end].astype(np.float32).tobytes()))
        start = end
    db.conn.executemany(f"INSERT INTO {TABLE} (rowid, vectors, scales) VALUES (?, ?, ?)", stored)


def read(db: Reader, rowids: list[int], dims: int) -> dict[int, Vectors]:
    """The stored sentence vectors of these papers ({} for an index built before them); a paper's rows follow
    sentences_of(title, abstract)."""
    if not rowids or not has_table(db, TABLE):
        return {}
    sql = f"SELECT rowid, vectors, scales FROM {TABLE} WHERE rowid IN (SELECT value FROM json_each(?))"
    out = {}
    for rowid, blob, scales in db.execute(sql, [json.dumps(rowids)]):
        matrix = np.frombuffer(blob, dtype=np.int8).reshape(-1, dims).astype(np.float32)
        out[int(rowid)] = matrix * np.frombuffer(scales, dtype=np.float32)[:, None]
    return out
