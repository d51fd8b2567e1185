"""The basics every text module shares: the word pattern and the guard for text from outside."""

from __future__ import annotations

from bot import text
from bot.search.matching import Alternative, norm, pattern
from bot.text.words import WORD_RE, stem, word_set


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


def test_stem_joins_a_noun_with_its_adjective_and_keeps_unrelated_words_apart() -> None:
    """Ranking matches a query word by its stem as a prefix: the noun typed finds titles using the adjective."""
    joined = [
        ("robustness", "robust"),
        ("faithfulness", "faithful"),
        ("explainability", "explainable"),
        ("interpretability", "interpretable"),
        ("causality", "causal"),
        ("diversity", "diverse"),
        ("heterogeneity", "heterogeneous"),
        ("learning", "learns"),
    ]
    for noun, adjective in joined:
        assert adjective.startswith(stem(noun)), (noun, stem(noun))
    apart = [
        ("probability", "problem"),
        ("activity", "activation"),
        ("priority", "prior"),
        ("community", "communication"),
        ("quantity", "quantization"),
        ("positional", "position"),  # ICML's position papers are titled "Position: ..."
    ]
    for word, other in apart:
        assert not other.startswith(stem(word)), (word, stem(word))


def test_a_phrase_finds_the_short_verb_of_its_second_word() -> None:
    # "fine-tuning" finds Fine-Tune and Fine-Tuned in a title; "tuning" alone must not find tunnels.
    phrase, alone = pattern(Alternative(("fine", "tuning"))), pattern(Alternative(("tuning",)))
    assert all(phrase.search(norm(t)) for t in ("How to Fine-Tune a Model", "Fine-tuned LLMs", "Fine Tuning"))
    assert not alone.search(norm("Quantum Tunneling"))
    assert alone.search(norm("Prompt Tuning"))
