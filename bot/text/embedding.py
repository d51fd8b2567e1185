"""Text to meaning vectors with the static model shipped in bot/text/embedding_model/: offline, no PyTorch.

A static embedding (model2vec style) is one vector per WordPiece token, distilled from the sentence encoder
all-MiniLM-L6-v2 by bench/tools/build_embedding_model.py; a text's vector is the mean of its tokens' vectors, unit
length. Encoding is fast enough to embed every paper at index time and every query as it comes (docs/benchmarks.md).
Two texts are close when their cosine (a dot product of unit vectors) is high.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from bot.text.model_words import MODEL_DIR, WORD_FROM

MAX_TOKENS = 512  # tokens read of one text, as the model was distilled
BATCH = 1024  # texts tokenized at once: bounds the memory of one batch of token ids

Vectors = npt.NDArray[np.float32]


class StaticEmbedding:
    """The shipped model: its tokenizer and one vector per token (int8 with a scale per token, or floats)."""

    def __init__(self, folder: Path = MODEL_DIR) -> None:
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        # Mapped, not read: a query reads a handful of its rows (dequantized a few at a time), and reading the whole
        # table was much of the model's load on a process's first search (docs/benchmarks.md).
        self.table = np.load(folder / "vectors.npy", mmap_mode="r")
        scales = folder / "scales.npy"
        self.scales = np.load(scales) if scales.exists() else None
        self.dims = int(self.table.shape[1])
        unknown = self.tokenizer.token_to_id("[UNK]")
        self.unknown = -1 if unknown is None else unknown
        self.name = json.loads((folder / "config.json").read_text(encoding="utf-8")).get("name", folder.name)

    def encode(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text (all zeros for a text with no known token), as float32 rows."""
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            batch = self.tokenizer.encode_batch_fast(list(texts[start : start + BATCH]), add_special_tokens=False)
            for i, encoding in enumerate(batch, start):
                ids = [t for t in encoding.ids if t != self.unknown]
                if ids:
                    out[i] = self.vectors(ids).mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def vectors(self, ids: list[int]) -> Vectors:
        """The float32 vectors of these tokens, as the whole table would give them dequantized."""
        rows: Vectors = self.table[ids].astype(np.float32)
        if self.scales is not None:
            rows *= self.scales[ids, None]
        return rows

    def knows(self, word: str) -> bool:
        """Whether a lowercase word is one whole token of the model: an English word its teacher learned from web
        text (suddenly, fitting), so a search engine should not take it for a typo of another."""
        return len(word) >= WORD_FROM and self.tokenizer.token_to_id(word) is not None

    def encode_one(self, text: str) -> Vectors:
        """One text's unit vector."""
        row: Vectors = self.encode([text])[0]
        return row


@functools.cache
def model() -> StaticEmbedding:
    """The shipped model, loaded once per process (its load time: docs/benchmarks.md)."""
    return StaticEmbedding()
