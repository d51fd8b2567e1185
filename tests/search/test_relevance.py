"""Relevance targets on the labelled query sets in tests/relevance/ (judged by bench.quality.relevance; no timings)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from bench import common, sets
from bench.quality import graded, relevance
from bot.papers import index
from tests.support.paths import needs_shared_data


@pytest.fixture(scope="module")
def full_db(full_index_path: Path) -> Iterator[sqlite_utils.Database]:
    db = index.connect(full_index_path, readonly=True)
    yield db
    db.conn.close()


def test_every_seed_query_finds_its_paper_first(seed_db: sqlite_utils.Database) -> None:
    score = relevance.judge_lookups(seed_db, relevance.ours, sets.seeds(), "id")
    assert score.misses == []
    assert score.mrr == 1.0


@needs_shared_data()
def test_topic_queries_beat_plain_bm25_and_typos_keep_their_precision(full_db: sqlite_utils.Database) -> None:
    topics = sets.topics()
    clean = [(q, rx) for q, _, rx in topics]
    typo = [(t, rx) for _, t, rx in topics]
    ours = relevance.judge_topics(full_db, relevance.ours, clean)
    ours_typo = relevance.judge_topics(full_db, relevance.ours, typo)
    base_or = relevance.judge_topics(full_db, common.baseline_or, clean)
    base_and = relevance.judge_topics(full_db, common.baseline_and, clean)
    assert ours.p5 > base_or.p5, (ours, base_or, base_and)
    assert ours.p5 > base_and.p5, (ours, base_or, base_and)
    assert ours_typo.p5 >= 0.9 * ours.p5, ours_typo.misses
    assert ours.p5 >= 0.9, ours.misses
    assert ours.mrr >= 0.9, ours.misses


@needs_shared_data()
def test_title_lookups_with_a_typo_find_the_paper_first(full_db: sqlite_utils.Database) -> None:
    score = relevance.judge_lookups(full_db, relevance.ours, sets.titles(), "source_id")
    assert score.p5 >= 0.9, score.misses  # hit@1
    assert score.mrr >= 0.9


@needs_shared_data()
def test_held_out_people_find_their_papers_however_the_name_is_typed(full_db: sqlite_utils.Database) -> None:
    held_out = [p for p in sets.people() if p.half == "held-out"]
    plain = relevance.judge_people(full_db, common.baseline_plain, held_out, "as listed")
    for form in ("as listed", "surname first", "Surname, First", "no diacritics", "typo"):
        ours = relevance.judge_people(full_db, relevance.ours, held_out, form)
        assert ours.p5 >= 0.95, (form, ours.misses)
        assert ours.p5 > plain.p5, (form, ours, plain)


@needs_shared_data()
def test_held_out_initials_find_the_person_whenever_the_name_allows(full_db: sqlite_utils.Database) -> None:
    held_out = [p for p in sets.people() if p.half == "held-out"]
    fits = relevance.initial_fits(held_out)
    alone = [p for p in held_out if fits[p.name].fitting == 1]
    # Listing the most prolific first scores this
    most = sum(fits[p.name].most for p in held_out) / len(held_out)
    # No per-person misses in the messages: the held-out people stay unseen while tuning.
    assert relevance.judge_people(full_db, relevance.ours, alone, "initial").p5 >= 0.95
    assert relevance.judge_people(full_db, relevance.ours, held_out, "initial").p5 >= most


@needs_shared_data()
def test_held_out_longer_questions_beat_title_weighted_bm25_and_survive_a_typo(full_db: sqlite_utils.Database) -> None:
    held_out = [(q, rx) for q, half, rx in sets.multiconcept() if half == "held-out"]
    typo = [(sets.typo_query(q), rx) for q, rx in held_out]
    ours = relevance.judge_topics(full_db, relevance.ours, held_out)
    ours_typo = relevance.judge_topics(full_db, relevance.ours, typo)
    title_or = relevance.judge_topics(full_db, common.baseline_or, held_out)
    # (Issue 31 withdrew this title-judged set's targets for the graded set, bench/quality/graded.py, where fusing BM25
    # and meaning in gained 0.2 nDCG@10 on several concepts; judged by titles alone the lead shrank from +0.10.)
    assert ours.p5 >= title_or.p5, (ours.p5, title_or.p5)
    assert ours_typo.p5 >= 0.95 * ours.p5, (ours_typo.p5, ours.p5)


@needs_shared_data()
def test_held_out_longer_questions_of_the_blind_set_stay_ahead_of_title_weighted_bm25(
    full_db: sqlite_utils.Database,
) -> None:
    """The second multi-concept set, written by someone who never ran the search, checks that the first did not
    flatter it: there the lead over FTS5 with a title weight is smaller (0.726 against 0.689 when it was added) but
    must not vanish."""
    held_out = [(q, rx) for q, half, rx in sets.multiconcept(sets.BLIND) if half == "held-out"]
    assert len(held_out) >= 35
    ours = relevance.judge_topics(full_db, relevance.ours, held_out)
    title_or = relevance.judge_topics(full_db, common.baseline_or, held_out)
    assert ours.p5 >= title_or.p5 + 0.02, (ours.p5, title_or.p5)


@needs_shared_data()
@pytest.mark.parametrize("name", ["icml2026_multiconcept.tsv", "icml2026_multiconcept_blind.tsv"])
def test_every_multi_concept_query_has_five_papers_its_judge_accepts(full_db: sqlite_utils.Database, name: str) -> None:
    """So a ranker that knew the judges' regexes would score 1.0: what ours misses is ranking, not papers the list
    lacks. Papers holding a word of every idea leave less room, and papers holding every word less still."""
    ceilings = relevance.multiconcept_ceilings(full_db, name)
    for half in sets.HALVES:
        every, ideas, words = ceilings[half].values()
        assert every == 1.0
        assert every >= ideas >= words


@needs_shared_data()
def test_held_out_questions_asked_in_words_find_what_their_topics_find(full_db: sqlite_utils.Database) -> None:
    """ "what's new in {q}?", "can you find papers related to {q}?": the held-out ways of asking, around the held-out
    multi-concept queries and the topics, keep the topics' precision (they fell to 0.32 and 0.42 before)."""
    held_out = [(q, rx) for q, half, rx in sets.multiconcept() if half == "held-out"]
    topics = [(q, rx) for q, _, rx in sets.topics()]
    for queries in (held_out, topics):
        asked = relevance.asked(queries, "held-out")
        ours = relevance.judge_topics(full_db, relevance.ours, asked)
        bare = relevance.judge_topics(full_db, relevance.ours, queries)
        title_or = relevance.judge_topics(full_db, common.baseline_or, asked)
        assert ours.p5 >= 0.97 * bare.p5, (ours.p5, bare.p5)
        assert ours.p5 >= title_or.p5 + 0.05, (ours.p5, title_or.p5)


@needs_shared_data()
def test_titles_with_field_words_or_without_typed_whole_find_their_paper(full_db: sqlite_utils.Database) -> None:
    # The words the planner reads apart (an idea of field words, "without X", long forms such as DNN beside them):
    # three such titles once raised IndexError. Every one is answered, and all but a few put their paper first.
    from bot import search
    from bot.search.joining_words import FIELD_WORDS

    rows = full_db.execute("SELECT id, title FROM papers").fetchall()
    titles = [(pid, t) for pid, t in rows if FIELD_WORDS & set(t.lower().split()) or " without " in t.lower()]
    assert len(titles) > 1000
    missed = [t for pid, t in titles if [r.paper["id"] for r in search.search(full_db, t, limit=1).results] != [pid]]
    assert len(missed) <= len(titles) // 200, missed


def test_titles_with_hyphenated_terms_typed_whole_find_their_paper(full_db: sqlite_utils.Database) -> None:
    # A hyphenated term counts whole in ranking but not in the search for candidates: "(L₀,L₁)-Smoothness" reads as a
    # phrase no indexed token spells, and its titles must still be found by their other words.
    from bot import search

    rows = full_db.execute("SELECT id, title FROM papers WHERE title LIKE '%-%'").fetchall()
    assert len(rows) > 2000
    missed = [t for pid, t in rows if [r.paper["id"] for r in search.search(full_db, t, limit=1).results] != [pid]]
    assert len(missed) <= len(rows) // 500, missed
    assert not [t for t in missed if "Smoothness" in t]


@needs_shared_data()
def test_held_out_hyphenated_terms_with_a_slip_find_a_paper_that_writes_them(full_db: sqlite_utils.Database) -> None:
    """The held-out half of the ICML 2026 titles' hyphenated terms, each with one slip as people make them ("meta-
    leaning", "selfp-lay", "mixture-ofexperts", "multi-sgent"), put a paper writing the term first (0.685 before)."""
    pairs = [(q, term) for q, term, half in relevance.hyphenated() if half == "held-out"]
    assert len(pairs) > 1000
    ours = relevance.judge_terms(full_db, relevance.ours, pairs)
    title_or = relevance.judge_terms(full_db, common.baseline_or, pairs)
    assert ours.p5 >= 0.9, ours.p5
    assert ours.p5 >= title_or.p5 + 0.5, (ours.p5, title_or.p5)


@needs_shared_data()
def test_a_slip_at_the_first_letter_keeps_most_of_the_clean_queries_precision(full_db: sqlite_utils.Database) -> None:
    """The longest word's first letter dropped or wrong ("einforcement learning", "rokking"): the corrector kept a
    word's first letter, and these found 0.29 (topics) and 0.48 (held-out questions) before."""
    topics = [(q, rx) for q, _, rx in sets.topics()]
    held_out = [(q, rx) for q, half, rx in sets.multiconcept() if half == "held-out"]
    for queries, least in ((topics, 0.9), (held_out, 0.55)):  # (held-out: title-judged, see above)
        slipped = [(relevance.first_letter_typo(q), rx) for q, rx in queries]
        ours = relevance.judge_topics(full_db, relevance.ours, slipped)
        clean = relevance.judge_topics(full_db, relevance.ours, queries)
        title_or = relevance.judge_topics(full_db, common.baseline_or, slipped)
        assert ours.p5 >= least, ours.p5
        # BM25 reads the slipped word as typed
        assert ours.p5 >= 0.85 * clean.p5, (ours.p5, clean.p5)
        assert ours.p5 >= title_or.p5 + 0.1, (ours.p5, title_or.p5)  # (title-judged: see above)


@needs_shared_data()
def test_graded_held_out_queries_beat_every_fts5_baseline_in_every_kind(full_db: sqlite_utils.Database) -> None:
    """nDCG@10 on the held-out half of the graded set (bench/quality/graded.py): when this was written, 0.720 against
    0.626 for FTS5 OR; ahead of both FTS5 baselines on topics, questions and several concepts, level with FTS5 OR on
    descriptions (0.393 against 0.385; MiniLM, which cannot ship, 0.497)."""
    held_out = [q for q in sets.graded_queries() if q.half == "held-out"]
    grades = graded.judgments()
    figures = {}
    for name, system in (("ours", graded.ours), ("or", graded.fts_plain), ("title", graded.fts_title)):
        by_kind: dict[str, list[float]] = {}
        for q in held_out:
            by_kind.setdefault(q.kind, []).append(graded.ndcg(system(full_db, q.text), grades[q.text]))
        figures[name] = {kind: sum(v) / len(v) for kind, v in by_kind.items()}
        figures[name]["all"] = sum(sum(v) for v in by_kind.values()) / len(held_out)
    best = max(figures["or"]["all"], figures["title"]["all"])
    assert figures["ours"]["all"] >= best + 0.07, figures
    for kind in ("topic", "question", "multi"):
        assert figures["ours"][kind] > max(figures["or"][kind], figures["title"][kind]), (kind, figures)
    assert figures["ours"]["descriptive"] >= figures["or"]["descriptive"] - 0.01, figures


# Questions in words, the topic words they hold (as a researcher would type them alone), the keywords the researcher
# typed instead, and what a relevant title says (issue 40: "any benchmarks for evaluating code generation?" put a
# how-to-procedures paper first where "code generation benchmark" found five benchmarks).
QUESTION_PAIRS = [
    ("any benchmarks for evaluating code generation?", "benchmarks for evaluating code generation",
     "code generation benchmark", r"(?=.*(code|program|script|software))(?=.*bench)"),
    ("any work on speculative decoding this year?", "speculative decoding", "speculative decoding", r"speculative"),
    ("are diffusion language models still being studied? find me some", "diffusion language models",
     "diffusion language models", r"diffusion.*(language|LLM|text)|dLLM|masked diffusion"),
    ("which papers analyze in-context learning in transformers?", "in-context learning in transformers",
     "in-context learning transformers", r"in-context"),
    ("anything new on machine unlearning lately?", "machine unlearning", "machine unlearning", r"unlearn"),
    ("any datasets for multimodal reasoning?", "datasets for multimodal reasoning", "multimodal reasoning dataset",
     r"(?=.*(multimodal|multi-modal|vision|visual|MLLM))(?=.*reason)"),
    ("anyone looking at sparse autoencoders for interpretability?", "sparse autoencoders for interpretability",
     "sparse autoencoders interpretability", r"sparse autoencoder|\bSAEs?\b"),
    ("is there research on watermarking language models these days?", "watermarking language models",
     "watermarking language models", r"watermark"),
    ("any theory of scaling laws?", "theory of scaling laws", "scaling laws theory", r"scaling law"),
    ("do we have papers on test-time scaling for reasoning?", "test-time scaling for reasoning",
     "test-time scaling reasoning", r"test[- ]time"),
    ("got anything about reward hacking in RLHF?", "reward hacking in RLHF", "reward hacking RLHF", r"reward hack"),
    ("any good benchmarks for long-context language models?", "benchmarks for long-context language models",
     "long-context benchmark", r"(?=.*long[- ]context)(?=.*bench)"),
]  # fmt: skip


@needs_shared_data()
def test_a_question_is_answered_as_its_topic_words_are(full_db: sqlite_utils.Database) -> None:
    """A question's answer is its topic words' answer, the request around them left out (it held "any", "this year",
    "find me some"): the same ten papers in the same order; and against the keywords the researcher typed instead,
    no pair loses more than one paper of its top five, and the pairs together lose nothing (0.667 against 0.867
    before; a question keeps its small words, which split its ideas: "test-time scaling | for | reasoning")."""
    from bot import search

    def top(query: str, limit: int = 10) -> list[str]:
        return [r.paper["id"] for r in search.search(full_db, query, limit=limit).results]

    def relevant(query: str, about: str) -> int:  # of the top five
        titles = [r.paper["title"] for r in search.search(full_db, query, limit=5).results]
        return sum(bool(re.search(about, t, re.IGNORECASE)) for t in titles)

    asked, typed = [], []
    for question, topic, keywords, about in QUESTION_PAIRS:
        assert top(question) == top(topic), question
        asked.append(relevant(question, about))
        typed.append(relevant(keywords, about))
        assert asked[-1] >= typed[-1] - 1, (question, asked[-1], typed[-1])
    assert sum(asked) >= sum(typed) - 1, (asked, typed)  # (one paper of sixty)
