"""Typo correction asks whether the model knows a word without loading it: the answer is the tokenizer's."""

from __future__ import annotations

import json

import pytest

from bot.text import embedding, model_words


@pytest.mark.slow  # loads the embedding model's tokenizer and asks it about each of its 30,000 words
def test_the_vocabulary_read_as_bytes_knows_what_the_tokenizer_knows() -> None:
    vocabulary = json.loads((model_words.MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    tokenizer = embedding.model()
    words = [*vocabulary, "suddenly", "generalize", "lowercase", "vocab", "wordpiece", "zorblatting", "naïve", 'ab"cde']
    assert [w for w in words if model_words.knows(w) != tokenizer.knows(w)] == []
    assert model_words.knows("suddenly")
    assert not model_words.knows("lowercase")  # (a key of the tokenizer's settings, not a token)
    assert not model_words.knows("zorblatting")
