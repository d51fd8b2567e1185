"""The basics every text module shares: the word pattern and the guard for text from outside."""

from __future__ import annotations

from bot import text
from bot.text.words import WORD_RE, word_set


def test_word_pattern_splits_on_underscore_and_punctuation_in_any_script() -> None:
    assert WORD_RE.findall("KV-cache_size of μA, 東京 naïve 2.81×") == [
        "KV",
        "cache",
        "size",
        "of",
        "μA",
        "東京",
        "naïve",
        "2",
        "81",
    ]


def test_word_set() -> None:
    assert word_set(" a  b\nc ") == frozenset({"a", "b", "c"})


def test_valid_text_replaces_lone_surrogates_only() -> None:
    assert text.valid_text("paper \ud800 id") == "paper ? id"
    assert text.valid_text("naïve 東京 🚀") == "naïve 東京 🚀"
    assert text.valid_text("") == ""
