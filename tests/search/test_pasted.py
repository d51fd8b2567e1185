"""Papers related to pasted text (bot.search.pasted): sentences of an abstract find their paper first, chatter and
length do not get in the way, and every result says what it shares with the text."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st

from bot.papers import index
from bot.search import search
from bot.search.pasted import DEFAULT, related
from bot.text.sentences import split_sentences
from tests.support.paths import needs_shared_data
from tests.support.seed_ids import DEFENSIVE_KV, SEED_ORDER, TOKSUITE, VEGAS

CHATTER = "Hi all, could someone suggest related work for our draft before Friday? Thanks a lot!\n\n"


def abstract_of(db: sqlite_utils.Database, paper_id: str) -> str:
    return str(db.execute("SELECT abstract FROM papers WHERE id = ?", [paper_id]).fetchone()[0])


def opening(abstract: str, sentences: int = 3) -> str:
    return " ".join(split_sentences(abstract)[:sentences])


def ids(db: sqlite_utils.Database, text: str, k: int = 5) -> list[str]:
    return [str(r.paper["id"]) for r in related(db, text, k).results]


def test_three_sentences_of_any_seed_abstract_find_that_paper_first(seed_db: sqlite_utils.Database) -> None:
    assert len(SEED_ORDER) == 19
    for paper_id in SEED_ORDER:
        got = ids(seed_db, opening(abstract_of(seed_db, paper_id)))
        assert got[0] == paper_id, (paper_id, got)
        assert len(got) > 1  # then its neighbours


def test_the_last_sentences_or_a_greeting_first_find_it_too(seed_db: sqlite_utils.Database) -> None:
    abstract = abstract_of(seed_db, DEFENSIVE_KV)
    assert ids(seed_db, " ".join(split_sentences(abstract)[-2:]))[0] == DEFENSIVE_KV
    assert ids(seed_db, CHATTER + opening(abstract))[0] == DEFENSIVE_KV


def test_each_result_says_what_it_shares_with_the_text(seed_db: sqlite_utils.Database) -> None:
    answer = related(seed_db, opening(abstract_of(seed_db, VEGAS)), 3)
    first = answer.results[0]
    assert first.paper["id"] == VEGAS
    # Adjacent words of the text, as one phrase
    assert first.matched[0] == "title:self speculative decoding"
    assert first.matched[-1].startswith("meaning:")
    assert 0.5 < float(first.matched[-1].split(":")[1]) <= 1.0
    assert all(r.matched for r in answer.results)
    assert "speculative" in answer.terms
    assert first.snippet.spans()  # the shared words are marked in the snippet


def test_a_question_in_a_thread_finds_papers_on_its_topic(seed_db: sqlite_utils.Database) -> None:
    question = "Does anyone know work on which KV cache entries matter when we compress the cache for long contexts?"
    got = ids(seed_db, question, 3)
    assert got[0] == DEFENSIVE_KV
    assert VEGAS in got  # the other seed about the KV cache


@pytest.mark.parametrize("text", ["", "   \n ", "the and of we propose a novel method", "zzqx wwkrp qqlv", "12 345"])
def test_text_with_no_word_the_papers_use_finds_nothing(seed_db: sqlite_utils.Database, text: str) -> None:
    answer = related(seed_db, text)
    assert answer.results == []
    assert answer.terms == []


def test_a_huge_paste_is_read_from_its_opening_and_says_so(seed_db: sqlite_utils.Database) -> None:
    # ~42,000 characters, as Slack's limit
    text = opening(abstract_of(seed_db, TOKSUITE)) + " filler" * 7000
    answer = related(seed_db, text)
    assert answer.length == len(text) > 40_000
    assert answer.read <= DEFAULT.text_chars
    assert answer.cut
    assert answer.results[0].paper["id"] == TOKSUITE
    short = related(seed_db, "tokenizers")
    assert not short.cut


def test_only_the_papers_in_scope_are_answered(seed_db: sqlite_utils.Database) -> None:
    text = opening(abstract_of(seed_db, DEFENSIVE_KV))
    rowid = seed_db.execute("SELECT rowid FROM papers WHERE id = ?", [DEFENSIVE_KV]).fetchone()[0]
    everyone = {r for (r,) in seed_db.execute("SELECT rowid FROM papers")}
    got = [r.paper["id"] for r in related(seed_db, text, 5, within=everyone - {rowid}).results]
    assert got
    assert DEFENSIVE_KV not in got


@given(st.text(max_size=400))
def test_any_text_answers_without_raising(seed_index_path: Path, text: str) -> None:
    db = index.connect(seed_index_path, readonly=True)
    try:
        answer = related(db, text + ' "NEAR( AND OR * kv cache', 3)
        assert len(answer.results) <= 3
    finally:
        db.conn.close()


@needs_shared_data()
def test_on_the_real_list_three_sentences_put_their_paper_first(full_index_path: Path) -> None:
    """bench/quality/related.py measures 100 papers beside the ordinary search; here 40 others, a fixed sample."""
    db = index.connect(full_index_path, readonly=True)
    rows = db.execute("SELECT id, abstract FROM papers WHERE venue = 'icml2026' AND abstract != '' ORDER BY id")
    sample = random.Random(38).sample(rows.fetchall(), 40)
    first = sum(ids(db, opening(abstract), 1) == [paper_id] for paper_id, abstract in sample)
    assert first >= 38
    chatty = sum(ids(db, CHATTER + opening(abstract), 1) == [paper_id] for paper_id, abstract in sample)
    baseline = sum(
        [r.paper["id"] for r in search(db, CHATTER + opening(abstract), limit=1).results] == [paper_id]
        for paper_id, abstract in sample
    )
    assert chatty >= 38
    assert chatty > baseline  # the ordinary search reads the greeting as words to find


@needs_shared_data()
def test_the_bench_reports_related_beside_the_ordinary_search(full_index_path: Path) -> None:
    """bench/quality/related.py in a short run: every kind of paste, both methods, the neighbours' areas."""
    from tests.robustness.test_bench import bench

    out = bench("related", "--index", str(full_index_path), "--papers", "10", timeout=110)
    first = re.search(r"^first 3 sentences\s+related\(\)\s+(\d+)/10", out, re.MULTILINE)
    assert first, out
    assert int(first.group(1)) >= 9
    # Each kind beside the baseline
    assert len(re.findall(r"search\(\) \(baseline\)\s+\d+/10", out)) == 6
    assert "Similar of the paper" in out


def test_the_postings_budget_keeps_the_rare_words_that_tell_a_paper_apart(tmp_path: Path) -> None:
    """A word the text repeats can weigh most and still be common: spending the budget on it first (as once) left the
    rare words that name the paper out of the search, and found only papers holding the common word."""
    papers = [
        {"id": "TARGET", "title": "Zebrafish Xylophone Recordings", "abstract": "We record zebrafish by a xylophone."},
        *({"id": f"T{i}", "title": f"Transformer {i}", "abstract": f"A transformer for table {i}."} for i in range(12)),
        *({"id": f"O{i}", "title": f"Other Study {i}", "abstract": f"Topic {i} alone."} for i in range(67)),
    ]
    source = tmp_path / "budget2026.jsonl"
    source.write_text("".join(json.dumps({"authors": ["A. Author"], **p}) + "\n" for p in papers), encoding="utf-8")
    db = index.connect(tmp_path / "budget.db")
    index.load(db, [source])
    text = "Transformer, transformer, transformer: a transformer sees a transformer. Zebrafish and a xylophone."
    answer = related(db, text, 3, settings=replace(DEFAULT, postings=10))
    # The transformer's 12 papers would pass the budget
    assert answer.terms == ["xylophone", "zebrafish"]
    assert [r.paper["source_id"] for r in answer.results][:1] == ["TARGET"]
    db.conn.close()
