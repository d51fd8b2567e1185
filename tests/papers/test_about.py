"""What a paper is about (bot.papers.about) and how it weighs in the neighbours the index stores for `Similar`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sqlite_utils

from bot import search
from bot.papers import about, index, related
from tests.support.papers import known
from tests.support.paths import needs_shared_data

ABSTRACT = (
    "Tokenizers shape how language models read text. Their effect is poorly understood. We train many models. "
    "We present a suite of models that differ only in their tokenizer. Results follow."
)


def test_the_about_text_is_the_title_the_opening_and_what_the_paper_contributes() -> None:
    assert about.about_text("TokSuite", ABSTRACT) == (
        "TokSuite. Tokenizers shape how language models read text. Their effect is poorly understood. "
        "We present a suite of models that differ only in their tokenizer."
    )
    opening = "We propose a tokenizer. It is fast. It is small. We release code."
    assert about.about_text("T", opening) == "T. We propose a tokenizer. It is fast."  # said once
    assert about.about_text("Only a title", None) == "Only a title."


def unit(*rows: list[float]) -> about.Vectors:
    matrix = np.array(rows, dtype=np.float32)
    out: about.Vectors = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return out


def test_closest_in_meaning_are_above_the_floor_closest_first_never_itself() -> None:
    space = unit([1, 0, 0], [0.9, 0.1, 0], [0.6, 0.8, 0], [0, 0, 1])
    nearest = about.closest(space, count=2, floor=0.5)
    assert [[j for j, _ in row] for row in nearest] == [[1, 2], [0, 2], [1, 0], []]
    assert nearest[0][0][1] == pytest.approx(0.9 / np.hypot(0.9, 0.1))
    assert about.closest(space[:1], count=2, floor=0.0) == [[]]


def test_meaning_weighs_above_shared_words_and_brings_its_own_candidates() -> None:
    # Paper 0's neighbours by words: 1 shares the most words but means something else; 2 shares a few and means the
    # same; 3 shares none, means the same, and only meaning finds it.
    space = unit([1, 0], [0, 1], [1, 0.1], [1, 0.2])
    vecs = [{"token": 1.0}, {"token": 1.0}, {"token": 0.3, "model": 0.95}, {"model": 1.0}]
    found = [[(1, 0.9), (2, 0.3)], [(0, 0.9)], [(0, 0.3)], []]
    settings = related.Settings(meaning=2.0, floor=0.5, close=3, lift=0.05, keep=3)
    ranked = [j for j, _ in related.blend(found, vecs, space, settings)[0]]
    assert ranked == [2, 3, 1]
    words_alone = related.blend(found, vecs, space, related.Settings(meaning=0.0, close=3, lift=0.05, keep=3))[0]
    # Closeness ** 0: the shared words order them, as before
    assert [j for j, _ in words_alone] == [1, 2, 3]


def test_a_small_index_keeps_its_neighbours_by_words(seed_db: sqlite_utils.Database) -> None:
    before = {r: related.stored(seed_db, r) for (r,) in seed_db.execute("SELECT rowid FROM papers")}
    with seed_db.atomic():
        related.rebuild(seed_db, related.Settings(meaning=0.0))
    # Fewer than MEANING_FROM papers: words alone
    assert {r: related.stored(seed_db, r) for r in before} == before


def test_from_meaning_from_papers_what_they_are_about_reorders_them(
    seed_db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    toksuite = seed_db.execute("SELECT rowid FROM papers WHERE title LIKE 'TokSuite%'").fetchone()[0]
    by_words = related.stored(seed_db, toksuite)
    monkeypatch.setattr(related, "MEANING_FROM", 1)
    with seed_db.atomic():
        related.rebuild(seed_db)
    by_meaning = related.stored(seed_db, toksuite)
    assert by_words is not None
    assert by_meaning is not None
    assert [r for r, _ in by_meaning] != [r for r, _ in by_words]
    title = seed_db.execute("SELECT title FROM papers WHERE rowid = ?", [by_meaning[0][0]]).fetchone()[0]
    assert title.startswith("TokenSwap")  # the other paper about a language model's tokens


@needs_shared_data()
def test_toksuite_is_similar_to_language_model_tokenization_papers(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    found = [r.paper["title"] for r in search.similar(db, known(db, "TokSuite")["id"], k=10)]
    # Before meaning weighed in: an image tokenizer, a protein tokenizer, then video and audio tokenizers.
    assert found[:2] == [
        "Sampling from Your Language Model One Byte at a Time",
        "PinTok: Tokenizers Deserve Dedicated Pinned CPU-Compute and Memory",
    ]
    other_media = [t for t in found if re.search(r"image|protein|video|visual|audio", t, re.I)]
    assert len(other_media) <= 2, other_media
