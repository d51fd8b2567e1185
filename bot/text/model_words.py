"""Whether the shipped embedding model knows a word whole, read from its tokenizer's vocabulary as bytes.

Typo correction asks it of a word the index has never seen ("suddenly" is meant, not a typo of "sudden"): reading
the answer here costs a file read and a substring search, where loading the model (bot.text.embedding) imports numpy
and the tokenizer library first, a large part of a one-shot `icml-bot search` at any size of index
(docs/benchmarks.md).
"""

from __future__ import annotations

import functools
from pathlib import Path

MODEL_DIR = Path(__file__).with_name("embedding_model")
# Shorter whole tokens include abbreviations and fragments: no evidence of an English word
WORD_FROM = 5
_VOCAB = b'"vocab":{'


@functools.cache
def _vocabulary(folder: Path) -> bytes:
    """The tokenizer's vocabulary object as written in tokenizer.json ("word":id pairs in UTF-8, nothing escaped
    but quotes and backslashes), or nothing when the file has none."""
    raw = (folder / "tokenizer.json").read_bytes()
    start = raw.find(_VOCAB)
    return raw[start + len(_VOCAB) - 1 :] if start >= 0 else b""


def knows(word: str, folder: Path = MODEL_DIR) -> bool:
    """Whether a lowercase word is one whole token of the model (what StaticEmbedding.knows answers with the
    tokenizer loaded): an English word its teacher learned from web text."""
    if len(word) < WORD_FROM or '"' in word or "\\" in word:
        # Such a key would be escaped in the file; no whole token of five letters holds one
        return False
    key = b'"' + word.encode("utf-8", "surrogatepass") + b'":'
    vocabulary = _vocabulary(folder)
    at = vocabulary.find(key)
    while at >= 0:  # a key starts the object or follows a comma (a value is a number)
        if vocabulary[at - 1 : at] in (b"{", b","):
            return True
        at = vocabulary.find(key, at + 1)
    return False
