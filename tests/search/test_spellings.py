"""One word, spelled several ways: British and American, hyphenated, joined or run together, and compounds no
paper writes."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from bot import search
from bot.papers import index
from bot.search import typos
from tests.search.results import ids
from tests.support.marks import starred_notes
from tests.support.seed_ids import SOFTMOE, TOKSUITE
from tests.support.venue_index import index_of


def test_british_spelling_and_hyphen_variants_find_the_same_papers(seed_db: sqlite_utils.Database) -> None:
    assert ids(search.search(seed_db, "tokeniser"))[0] == TOKSUITE
    assert typos.spellings("tokeniser") == ["tokenizer"]
    assert "modeling" in typos.spellings("modelling")
    assert "behavior" in typos.spellings("behaviour")
    kv = ids(search.search(seed_db, "kv cache"))[:2]
    for variant in ("KV-cache", "kvcache", "KV cache", "kv-cache"):
        assert ids(search.search(seed_db, variant))[:2] == kv, variant
    assert ids(search.search(seed_db, "mixture-of-experts"))[0] == SOFTMOE


def test_a_compound_whose_hyphen_slipped_is_read_as_the_word_its_letters_make(tmp_path: Path) -> None:
    """`fin-etuning`: correcting each part made *fin-tuning* (or *fine-used* for finet-uned), which no paper holds;
    the letters together are a word the index has."""
    papers = [
        {"id": "F1", "title": "Finetuning Large Models Cheaply", "abstract": "We study finetuning of models."},
        {"id": "F2", "title": "Tuning Fins of Fish Robots", "abstract": "Fin tuning for swimming robots."},
        {"id": "F3", "title": "Fine Grained Vision", "abstract": "Fine grained recognition, often used."},
    ]
    db = index.connect(index_of(tmp_path, papers, "hyphens2026.jsonl"))
    response = search.search(db, "Fin-etuning")
    assert response.corrected == "Finetuning"
    assert [r.paper["source_id"] for r in response.results] == ["F1"]
    # Every part known: the compound as typed
    assert search.search(db, "fin-tuning").corrected is None


def test_split_run_together_words() -> None:
    known = {"kv": 95, "cache": 105, "mixture": 40, "of": 5000, "experts": 60}

    def df(ws: list[str]) -> dict[str, int]:
        return {w: known.get(w, 0) for w in ws}

    assert typos.split_compound("kvcache", df) == ("kv", "cache")
    assert typos.split_compound("mixtureofexperts", df) == ("mixture", "of", "experts")
    assert typos.split_compound("zzzzzz", df) is None


def test_a_compound_no_paper_writes_is_searched_word_by_word_and_says_so(tmp_path: Path) -> None:
    # FlashAttention-3 is in no paper yet; FlashAttention and -2 are. Nothing found would help nobody, and a
    # version number alone says nothing: the FlashAttention papers come, the title first.
    papers = [
        {"id": "F2", "title": "FlashAttention-2 Kernels for Long Contexts", "abstract": "FlashAttention-2 is fast."},
        {"id": "F1", "title": "Tiling Attention", "abstract": "We speed up FlashAttention with 3 tricks."},
        {"id": "K1", "title": "KV-Cache Eviction", "abstract": "We evict entries from the kv-cache."},
        {"id": "S1", "title": "Swin Transformers at Scale", "abstract": "A large Swin model for T cells."},
        {"id": "D1", "title": "Stable Diffusion Edits", "abstract": "We edit images with stable diffusion."},
        {"id": "D2", "title": "Diffusion Is Stable", "abstract": "Sampling from diffusion models is stable."},
    ]
    db = index.connect(index_of(tmp_path, papers, "flash2026.jsonl"))
    response = search.search(db, "FlashAttention-3")
    assert [r.paper["source_id"] for r in response.results] == ["F2", "F1"]
    assert "No paper writes *FlashAttention-3*: showing papers with *flashattention*." in starred_notes(response)
    # A size or a letter says nothing alone (Swin-T, -large); the rest stays a phrase when papers write it.
    assert [r.paper["source_id"] for r in search.search(db, "Swin-T").results] == ["S1"]
    assert [r.paper["source_id"] for r in search.search(db, "Stable-Diffusion-v1.5").results] == ["D1"]
    assert search.search(db, "i-on").results == []  # nothing telling is left: as typed
    # A compound papers write stays one phrase, without a note
    written = search.search(db, "kv-cache")
    assert [r.paper["source_id"] for r in written.results] == ["K1"]
    assert not any("No paper writes" in note for note in starred_notes(written))


def test_a_joined_spelling_finds_the_papers_that_hyphenate_it(tmp_path: Path) -> None:
    # ICML 2026: 59 papers write finetuning, 711 fine-tuning; typing the joined form found only the 59.
    papers = [
        *({"id": f"J{i}", "title": f"Finetuning Study {i}", "abstract": f"Finetuning case {i}."} for i in range(25)),
        *({"id": f"H{i}", "title": f"Fine-Tuning Study {i}", "abstract": f"Fine-tuning case {i}."} for i in range(40)),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    found = {str(r.paper["source_id"])[0] for r in search.search(db, "finetuning", limit=50).results}
    assert found == {"J", "H"}
    db.conn.close()
