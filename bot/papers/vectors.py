"""Meaning vectors of every paper, rebuilt after each load: its title and abstract through the shipped static model
(bot.text.embedding), stored as float16 in `paper_vectors`, so search reads them once per index version and finds
papers about an idea whatever words they use; and of each of its sentences (bot.papers.sentence_vectors)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from bot.papers import sentence_vectors
from bot.papers.reading import Reader, has_table
from bot.text import embedding

if TYPE_CHECKING:
    import sqlite_utils

TABLE = "paper_vectors"
# Meta: the model the vectors came from (another model's vectors are not comparable)
MODEL_KEY = "vectors_model"
BATCH = 2000  # papers embedded and written at once


def text_of(title: str, abstract: str | None) -> str:
    """What a paper's vector is made from: its title, then its abstract."""
    return f"{title}. {abstract or ''}"


def rebuild(db: sqlite_utils.Database) -> None:
    """Every paper's vector, from the papers as they are now (inside the caller's load transaction)."""
    db.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL)")
    db.execute(f"DELETE FROM {TABLE}")
    sentence_vectors.create(db)
    model = embedding.model()
    cursor = db.execute("SELECT rowid, title, abstract FROM papers ORDER BY rowid")
    while rows := cursor.fetchmany(BATCH):
        sentence_vectors.add(db, model, rows)
        vectors = model.encode([text_of(title, abstract) for _, title, abstract in rows]).astype(np.float16)
        db.conn.executemany(
            f"INSERT INTO {TABLE} (rowid, vector) VALUES (?, ?)",
            [(rowid, vector.tobytes()) for (rowid, _, _), vector in zip(rows, vectors, strict=True)],
        )
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [MODEL_KEY, model.name],
    )


def status(db: Reader) -> dict[str, object]:
    """For `icml-bot stats`: how many papers have a vector, from which model, and whether search can use them."""
    if not has_table(db, TABLE) or not has_table(db, "meta"):
        return {"papers": 0, "model": None, "usable": False}
    model = _made_by(db)
    papers = int(db.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0])
    return {"papers": papers, "model": model, "usable": bool(papers) and model == embedding.model().name}


def usable(db: Reader) -> bool:
    """Whether the index's vectors (of papers and of sentences) come from the shipped model."""
    return has_table(db, TABLE) and has_table(db, "meta") and _made_by(db) == embedding.model().name


def _made_by(db: Reader) -> str | None:
    """The name of the model the index's vectors came from (None: never embedded)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", [MODEL_KEY]).fetchone()
    return str(row[0]) if row else None


class PaperVectors:
    """Every paper's vector in one float32 matrix (row i is the paper rowids[i]), for cosines to a query."""

    def __init__(self, rowids: npt.NDArray[np.int64], matrix: npt.NDArray[np.float32]) -> None:
        self.rowids, self.matrix = rowids, matrix
        self.row_of = {int(r): i for i, r in enumerate(rowids)}

    def cosines(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The cosine of every paper to a unit query vector, in the order of `rowids`."""
        out: npt.NDArray[np.float32] = self.matrix @ query
        return out

    @property
    def megabytes(self) -> float:
        """Memory the matrix takes."""
        return self.matrix.nbytes / 1e6


def read(db: Reader, among: list[int] | None = None) -> PaperVectors | None:
    """The index's vectors (`among`: of these papers only), or None when it has none from the shipped model (an index
    built before vectors, or with another model: `icml-bot index` embeds its papers again)."""
    if not has_table(db, TABLE) or _made_by(db) != embedding.model().name:
        return None
    if among is None:
        rows = db.execute(f"SELECT rowid, vector FROM {TABLE} ORDER BY rowid").fetchall()
    else:
        sql = f"SELECT rowid, vector FROM {TABLE} WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid"
        rows = db.execute(sql, [json.dumps(among)]).fetchall()
    if not rows:
        return None
    rowids = np.fromiter((r for r, _ in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float16).reshape(len(rows), -1)
    return PaperVectors(rowids, matrix.astype(np.float32))
