"""The query language: words, phrases, exclusions and fields as parsed, NOT, and long or garbled input read as words."""

from __future__ import annotations

import pytest
import sqlite_utils

from bot import search
from bot.search import query as ql
from tests.search.results import ids, source_ids
from tests.support.marks import starred_notes


def test_parse_words_phrases_exclusions_and_filters() -> None:
    q = ql.parse('kv cache "exact phrase" -survey -"old idea" author:"Colin Raffel" has:code status:oral title:moe')
    assert [(t.words, t.quoted, t.negated, t.field) for t in q.terms] == [
        (("kv",), False, False, None),
        (("cache",), False, False, None),
        (("exact", "phrase"), True, False, None),
        (("survey",), False, True, None),
        (("old", "idea"), True, True, None),
        (("colin", "raffel"), True, False, "author"),
        (("moe",), False, False, "title"),
    ]
    assert q.has_code is True
    assert q.status == ("Oral",)
    assert not q.notes


def test_parse_compounds_smart_quotes_and_unknown_fields() -> None:
    q = ql.parse("mixture-of-experts “kv cache” month:2020 -has:code status:nonsense")
    assert [t.words for t in q.terms] == [("mixture", "of", "experts"), ("kv", "cache"), ("month", "2020")]
    assert q.terms[1].quoted
    assert q.has_code is False
    assert q.notes == ["status:nonsense is not a status; use status:oral, status:spotlight or status:poster"]


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("LoRA+DoRA", [("lora",), ("dora",)]),  # two methods, not a phrase no paper holds
        ("LLM/VLM safety", [("llm",), ("vlm",), ("safety",)]),
        ("GPT-4/GPT-5 pre-/post-training", [("gpt", "4"), ("gpt", "5"), ("pre",), ("post", "training")]),
        # Single characters: joined
        ("w/o A/B c++ GPT-4/5", [("w", "o"), ("a", "b"), ("c",), ("gpt", "4", "5")]),
        # quoted and excluded: as typed
        ('"LoRA+DoRA" -LoRA+DoRA', [("lora", "dora"), ("lora", "dora")]),
    ],
)
def test_words_joined_by_plus_or_slash_are_words_of_their_own(text: str, terms: list[tuple[str, ...]]) -> None:
    q = ql.parse(text)
    assert [t.words for t in q.terms] == terms
    assert all(q.text[t.span[0] : t.span[1]] == t.text for t in q.terms if not t.quoted)


def test_not_between_words_excludes_like_a_minus(seed_db: sqlite_utils.Database) -> None:
    assert [(t.words, t.negated) for t in ql.parse("diffusion NOT video").terms] == [
        (("diffusion",), False),
        (("video",), True),
    ]
    # Prose: after a comma
    title = "Position: RL Should Be Used to Adjust Foundation Models, NOT Abused"
    assert not any(t.negated for t in ql.parse(title).terms)
    # Nothing to exclude from
    assert [t.words for t in ql.parse("NOT video").terms] == [("not",), ("video",)]
    asked = ql.parse("show me papers NOT about LLMs")  # used to exclude "about" and search LLMs
    assert [(t.words, t.negated) for t in asked.terms] == [(("llms",), True)]
    for query in ("kv cache NOT eviction", "language models NOT reasoning"):
        with_not = search.search(seed_db, query)
        with_minus = search.search(seed_db, query.replace("NOT ", "-"))
        assert ids(with_not) == ids(with_minus)
        assert with_not.total == with_minus.total


def test_parse_caps_long_input_and_says_so() -> None:
    q = ql.parse("attention " * 2000)
    assert q.truncated
    assert len(q.terms) == ql.MAX_TERMS
    assert len(q.text) <= ql.MAX_CHARS
    assert "first 32 terms" in q.notes[0]


def test_a_term_joining_more_words_than_any_real_term_is_read_as_its_words() -> None:
    """Garbled text (a\\a\\a…, the-model-the-model-…) would be one phrase of hundreds of words, which FTS5 reads
    word by word (1-2 s at 110,000 papers), and a note quoting all of it: its words are searched, each once."""
    garble = ql.parse(("the-model-" * 60)[:499])
    assert [(t.text, t.words) for t in garble.terms] == [("the", ("the",)), ("model", ("model",))]
    assert [t.words for t in ql.parse("Llama-3.1-8B-Instruct diffusion").terms] == [
        ("llama", "3", "1", "8b", "instruct"),
        ("diffusion",),
    ]
    phrase = ql.parse('"' + "large language models " * 20 + '"')
    assert len(phrase.terms[0].words) == ql.MAX_PHRASE_WORDS
    assert phrase.notes == [f"A phrase that long was searched by its first {ql.MAX_PHRASE_WORDS} words."]
    two = ql.parse(('"' + "kv " * 40 + '" ') * 2)
    assert [len(t.words) for t in two.terms] == [ql.MAX_PHRASE_WORDS] * 2
    assert two.notes == phrase.notes  # said once
    words = " ".join(f"w{n}" for n in range(ql.MAX_TERMS + 8))
    # garble of more unique words than a query keeps
    many = ql.parse("diffusion " + words.replace(" ", "-"))
    assert len(many.terms) == ql.MAX_TERMS
    assert many.truncated
    assert many.notes[0].startswith(f"Your query was long: searched its first {ql.MAX_TERMS} terms")


def test_garbled_terms_get_an_answer_without_quoting_them_back(seed_db: sqlite_utils.Database) -> None:
    response = search.search(seed_db, ("kv-cache-" * 60)[:499])
    assert source_ids(response)
    assert not any("kv-cache-kv" in note for note in starred_notes(response))
