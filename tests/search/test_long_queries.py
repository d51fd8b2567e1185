"""Queries holding several ideas: papers whose titles carry all of them come first in the lexical order (before
fusion with BM25 and meaning, where marked), and the bench learns where the time of a search goes."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.search import query as ql
from bot.search.cache import index_cache
from bot.search.idea_coverage import Ideas
from bot.search.matching import norm
from bot.search.plan import QueryPlanner
from bot.search.weights import LEXICAL_ONLY
from tests.support.marks import starred_notes
from tests.support.paths import needs_shared_data
from tests.support.seed_ids import DEFENSIVE_KV, SOFTMOE, VEGAS

TOPICS = ["sharpness", "pruning", "distillation", "calibration", "quantization", "routing", "tokenization",
          "curriculum", "augmentation", "regularization", "initialization", "normalization"]  # fmt: skip
FILLER = " We report experiments on standard benchmarks and release code for the community."
PAPERS = [
    {
        "id": "EXP",
        "title": "The Expressivity Limits of Transformers",
        "abstract": "We give a theoretical account of what transformers can and cannot compute, and prove that "
        "their expressivity is bounded by constant-depth circuits." + FILLER,
    },
    *(
        {
            "id": f"ALL{i}",
            "title": f"{topic.capitalize()} at Scale",
            "abstract": f"We study {topic} in deep networks. Our theory covers transformers and other networks; "
            f"expressivity is one of several properties of {topic} we measure." + FILLER,
        }
        for i, topic in enumerate(TOPICS)
    ),
    {
        "id": "OTHER",
        "title": "Expressivity of Graph Networks",
        "abstract": "We study message passing expressivity with the Weisfeiler-Leman test." + FILLER,
    },
]


def _indexed(folder: Path, name: str, papers: Iterable[Any]) -> Iterator[sqlite_utils.Database]:
    """An index of these papers (by A. Author unless a paper names its authors), closed after the test."""
    source = folder / f"{name}2026.jsonl"
    source.write_text("".join(json.dumps({"authors": ["A. Author"], **p}) + "\n" for p in papers), encoding="utf-8")
    db = index.connect(folder / f"{name}.db")
    index.load(db, [source])
    yield db
    db.conn.close()


@pytest.fixture
def theory_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    yield from _indexed(tmp_path, "ideas", PAPERS)


def test_a_title_with_every_idea_beats_abstracts_that_mention_all_words(theory_db: sqlite_utils.Database) -> None:
    # FTS5 stems "theory" and "theoretical" apart, so only the twelve papers that mention every word in passing
    # match the query as FTS5 sees it; the paper whose title is the question says "theoretical" in its abstract.
    response = search.search(theory_db, "theory of transformers expressivity", limit=5, weights=LEXICAL_ONLY)
    got = [r.paper["source_id"] for r in response.results]
    assert got[0] == "EXP"
    assert set(got[1:]) < {f"ALL{i}" for i in range(len(TOPICS))}
    assert response.total == len(TOPICS) + 1


@pytest.mark.parametrize("query", ["transformers expressivity", "transfomers expressivty"])
def test_every_answer_says_where_its_time_went(theory_db: sqlite_utils.Database, query: str) -> None:
    response = search.search(theory_db, query)
    stages = ["parse", "people", "correction", "plan", "retrieve", "rank", "snippets", "count"]
    assert list(response.stages) == stages
    assert all(ms >= 0 for ms in response.stages.values())
    assert sum(response.stages.values()) <= response.took_ms


@pytest.mark.parametrize(
    ("query", "first", "corrected"),
    [
        (
            "self-speculatve decoding with sparse attention for long context",
            VEGAS,  # Vegas
            "self-speculative decoding with sparse attention for long context",
        ),
        # SoftMoE: the acronym inside a longer question
        ("MoE routing for sparse mixture models", SOFTMOE, None),
        (
            "identifying critical kv cahce entries for LLM inference compression",
            DEFENSIVE_KV,  # DefensiveKV
            "identifying critical kv cache entries for LLM inference compression",
        ),
    ],
)
def test_typos_and_acronyms_keep_working_inside_longer_questions(
    seed_db: sqlite_utils.Database, query: str, first: str, corrected: str | None
) -> None:
    response = search.search(seed_db, query)
    assert response.results[0].paper["id"] == first
    assert response.corrected == corrected


FORECASTING = [
    {
        "id": "BOTH",
        "title": "Congestion Forecasting with Graph Transformers",
        "abstract": "Attention layers read road sensor histories and predict congestion an hour ahead." + FILLER,
    },
    *(
        {
            "id": f"ONE{i}",
            "title": f"Time Series Forecasting with {topic.capitalize()}",
            "abstract": f"We study time series forecasting through {topic}; unlike transformers, our model is "
            f"small, and it forecasts every time series of the benchmark." + FILLER,
        }
        for i, topic in enumerate(TOPICS)
    ),
    {
        "id": "OTHERS",
        "title": "Retail Demand Forecasting with Transformers",
        "abstract": "Attention over sales histories predicts demand." + FILLER,
        "authors": ["Bea Other"],
    },
    {
        "id": "VISION",
        "title": "Vision Transformers at Scale",
        "abstract": "We train transformers on images." + FILLER,
    },
    *(  # the rest of a conference: time series without forecasting, and other topics
        {
            "id": f"REST{i}",
            "title": f"{topic.capitalize()} for {field}",
            "abstract": f"We apply {topic} to {field.lower()}." + FILLER,
        }
        for i, (topic, field) in enumerate(
            itertools.product(TOPICS, ["Time Series Classification", "Protein Folding", "Speech Recognition"])
        )
    ),
]


@pytest.fixture
def forecasting_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    yield from _indexed(tmp_path, "forecast", FORECASTING)


def test_a_title_about_both_ideas_beats_titles_about_one_at_length(forecasting_db: sqlite_utils.Database) -> None:
    # Every ONE paper holds every query word (transformers in passing); BOTH never says "time series", but its
    # title is about transformers and about forecasting: the two ideas the query joins with "for".
    response = search.search(forecasting_db, "transformers for time series forecasting", limit=5, weights=LEXICAL_ONLY)
    got = [r.paper["source_id"] for r in response.results]
    assert got[:2] == ["BOTH", "OTHERS"] or got[:2] == ["OTHERS", "BOTH"]
    assert set(got[2:]) <= {f"ONE{i}" for i in range(len(TOPICS))}


def test_titles_found_for_their_ideas_still_obey_author_and_exclusions(forecasting_db: sqlite_utils.Database) -> None:
    by_author = search.search(
        forecasting_db, "author:author transformers for time series forecasting", limit=20, weights=LEXICAL_ONLY
    )
    assert "OTHERS" not in [r.paper["source_id"] for r in by_author.results]
    assert by_author.results[0].paper["source_id"] == "BOTH"
    without = search.search(forecasting_db, "transformers for time series forecasting -congestion", limit=20)
    assert "BOTH" not in [r.paper["source_id"] for r in without.results]


def test_one_idea_alone_ranks_as_before(forecasting_db: sqlite_utils.Database) -> None:
    # No function word joins two ideas: the papers holding every word in their titles lead, as they always did.
    response = search.search(forecasting_db, "time series forecasting", limit=3)
    assert all(str(r.paper["source_id"]).startswith("ONE") for r in response.results)


@pytest.mark.parametrize(
    ("query", "ideas"),
    [
        ("transformers for time series forecasting", {"transformers": 0, "time": 1, "series": 1, "forecasting": 1}),
        ("theory of transformers expressivity", {"theory": 0, "transformers": 1, "expressivity": 1}),
        # No idea before the first word; "work" at the end asks
        ("how do transformers work", {"transformers": 0}),
        # a quoted phrase is an idea too
        ('"road sensor" for traffic', {"road sensor": 0, "traffic": 1}),
        ("graph neural networks", {"graph neural networks": 0}),  # one idea (a long form: GNN)
        ("road sensor histories for traffic forecasting with attention layers",
         {"road": 0, "sensor": 0, "histories": 0, "traffic": 1, "forecasting": 1, "attention": 2, "layers": 2}),
    ],
)  # fmt: skip
def test_function_words_split_a_query_into_ideas(
    forecasting_db: sqlite_utils.Database, query: str, ideas: dict[str, int]
) -> None:
    plan = QueryPlanner(forecasting_db, index_cache(forecasting_db), ql.parse(query)).build()
    assert {g.label: g.concept for g in plan.groups} == ideas


def _each(prefix: str, title: str, abstract: str, values: Iterable[str]) -> list[dict[str, str]]:
    """One paper per value (ids prefix0, prefix1, ...): `{v}` in the title and abstract is the value, `{V}` it
    capitalised."""
    return [
        {"id": f"{prefix}{i}", "title": title.format(v=v, V=v.capitalize()), "abstract": abstract.format(v=v) + FILLER}
        for i, v in enumerate(values)
    ]


# At a machine learning conference many papers say "machine learning" or "neural networks" in passing; few are about
# the weather, and those rarely say so.
FIELD = [
    *_each("WX", "{v}: Global Weather Forecasting at Kilometre Scale",
           "{v} forecasts the weather ten days ahead from reanalysis data.", ["Aurora", "Pangu", "GraphCast"]),
    *_each("ML", "{V} for Demand Forecasting",
           "Machine learning forecasting of demand with {v}; holidays are one covariate among many. Our theory covers "
           "deep learning, neural networks and machine learning models alike.", TOPICS[:6]),
    *_each("TH", "A Theory of {V}",
           "We develop a theory of {v} and test it on deep learning, neural networks and machine learning models.",
           TOPICS[6:]),
    *_each("DL", "Deep Learning Theory of {V}",
           "A theory of deep learning explains {v} in neural networks and other machine learning models.", TOPICS[:2]),
]  # fmt: skip


@pytest.fixture
def field_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    yield from _indexed(tmp_path, "field", FIELD)


@pytest.mark.parametrize(
    "query",
    ["weather forecasting with machine learning", "machine learning for weather forecasting",
     "ML for weather forecasting", "weather forecsting with machine learning",
     '"weather forecasting" with machine learning', 'On "weather forecasting" with machine learning'],
)  # fmt: skip
def test_an_idea_of_field_words_beside_a_specific_one_is_not_required(
    field_db: sqlite_utils.Database, query: str
) -> None:
    # Every ML paper holds "machine learning" and "forecasting"; no weather paper says machine learning, so none
    # matches every word. At ICML the field idea says nothing: the weather forecasting papers lead.
    response = search.search(field_db, query, limit=3)
    assert [str(r.paper["source_id"])[:2] for r in response.results] == ["WX"] * 3
    assert not response.partial


@pytest.mark.parametrize(
    ("query", "field", "kept"),
    [
        # Forecasting is as common: both the topic
        ("forecasting with machine learning", "machine learning", True),
        # set side by side, both are asked for
        ("weather and machine learning", "machine learning", True),
        ("machine learning", "machine learning", True),  # the field idea alone
        # `learning` alone names no field (learning to rank)
        ("learning to forecast weather", "learning", True),
        # The object (fairness of ML)
        ("weather forecasting of machine learning", "machine learning", True),
        # a kind of method (... tabular data)
        ("weather forecasting with deep learning", "deep learning", True),
        # Functions computed by ...
        ("weather forecasting by machine learning", "machine learning", True),
        ("weather forecasting with machine learning", "machine learning", False),
        ("machine learning for weather forecasting", "machine learning", False),
    ],
)
def test_an_idea_of_field_words_is_kept_when_it_is_the_topic(
    field_db: sqlite_utils.Database, query: str, field: str, kept: bool
) -> None:
    plan = QueryPlanner(field_db, index_cache(field_db), ql.parse(query)).build()
    labels = {g.label for g in plan.groups}
    assert set(field.split()) <= labels if kept else not set(field.split()) & labels
    # Numbered from 0
    assert {g.concept for g in plan.groups} == set(range(len({g.concept for g in plan.groups})))


EDITING = [
    *_each(
        "FREE",
        "Training-Free Image Editing with {v}",
        "We edit images with {v} and no training at all.",
        ["Attention Injection", "Latent Inversion", "Prompt Mixing"],
    ),
    *_each(
        "TUNED",
        "Learning Precise Image Editing from {v} Training Data",
        "Training {v} on paired images and masks makes image editing precise; training takes a day.",
        ["Instruction", "Adapter", "Diffusion", "Reward"],
    ),
    {
        "id": "FREE3",
        "title": "Image Editing without Training",
        "abstract": "We edit images with a frozen generator." + FILLER,
    },
    {
        "id": "OTHER",
        "title": "Training-Free Video Retrieval",
        "abstract": "Retrieval of clips with no training." + FILLER,
    },
]


@pytest.fixture
def editing_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    yield from _indexed(tmp_path, "editing", EDITING)


def test_without_a_word_asks_for_its_free_form(editing_db: sqlite_utils.Database) -> None:
    # "without training" is training-free, never a wish for papers about training (which every TUNED title holds).
    # A paper may say so in words instead ("Image Editing without Training").
    response = search.search(editing_db, "image editing without training", limit=10)
    assert [str(r.paper["source_id"])[:4] for r in response.results[:4]] == ["FREE"] * 4
    assert all({"title:training free", "title:without training"} & set(r.matched) for r in response.results[:4])
    assert "Only 4 papers match every word; the rest match some." in starred_notes(
        response
    )  # (a set this small widens)


def test_a_word_after_without_that_no_paper_writes_free_stays_a_word(editing_db: sqlite_utils.Database) -> None:
    # No paper is mask-free, and papers without masks mostly say "masks" (learning without forgetting, sampling
    # without replacement): the word is searched as typed.
    plan = QueryPlanner(editing_db, index_cache(editing_db), ql.parse("image editing without masks")).build()
    assert [g.label for g in plan.groups] == ["image", "editing", "masks"]
    both = QueryPlanner(editing_db, index_cache(editing_db), ql.parse("image editing with and without training"))
    # both ways: the word
    assert [g.label for g in both.build().groups] == ["image", "editing", "training"]


# Certified robustness is mostly studied for neural networks, so its papers need not say so; many more papers make
# networks robust without certifying anything, and most papers mention robustness.
ROBUST = [
    *_each("CERT", "Certified Robustness under {V} Perturbations",
           "We certify the robustness of regression models to {v} perturbations by randomized smoothing.",
           ["sparse", "semantic"]),
    *_each("ALL", "Certified Training for {V}",
           "Certified robustness of neural networks to {v} attacks, with tighter bounds.", ["patch", "word"]),
    *_each("NN", "Robust Neural Networks for {V}",
           "We train neural networks whose accuracy on {v} is robust to noise; robustness improves.", TOPICS),
    *_each("SCI", "Equivariant Models for Physics of {V}",
           "Equivariant neural networks respect the symmetries of the physics of {v}.", ["fluids", "particles"]),
    *_each("PINN", "Physics-Informed Neural Networks for {V}",
           "Physics-informed neural networks solve the equations of {v}, and stay equivariant where they can.",
           ["heat", "waves", "elasticity", "plasma"]),
    *_each("MISC", "A Study of {V}", "We look at {v} from a new angle, with robustness to noise.",
           [f"topic {i}" for i in range(60)]),
]  # fmt: skip


@pytest.fixture
def robust_db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    yield from _indexed(tmp_path, "robust", ROBUST)


def test_papers_fully_about_the_rare_idea_are_found_when_few_match_every_word(robust_db: sqlite_utils.Database) -> None:
    # Two papers match every word, and twelve titles hold robustness and neural networks: those twelve must not
    # stop the search from widening to the papers about certified robustness that never say "neural networks".
    response = search.search(robust_db, "certified robustness of neural networks", limit=5, weights=LEXICAL_ONLY)
    got = [str(r.paper["source_id"]) for r in response.results]
    assert set(got[:2]) == {"ALL0", "ALL1"}
    assert set(got[2:4]) == {"CERT0", "CERT1"}


def test_generic_words_do_not_make_a_paper_about_a_specific_idea(robust_db: sqlite_utils.Database) -> None:
    # Physics-informed neural networks hold "neural networks", not "equivariant": they are not about the
    # equivariant networks the query asks for, however many of its words they hold.
    response = search.search(robust_db, "equivariant neural networks for physics", limit=3)
    assert [str(r.paper["source_id"])[:3] for r in response.results[:2]] == ["SCI", "SCI"]


# Self-play for language models: papers on it need not say reasoning; self-evolving models are not self-play.
SELF_PLAY = [
    *_each("ALL", "Self-Play Reasoning for {V}", "Self-play teaches language models reasoning about {v}.", TOPICS[:10]),
    *_each("SP", "Self-Play Alignment of Language Models {V}", "Self-play fine-tunes language models, {v}.",
           ["Quickly", "Safely"]),
    *_each("EV", "Self-Evolving Language Model Reasoning for {V}",
           "Language models improve their reasoning about {v} by evolving.", TOPICS),
    *_each("MISC", "A Study of {V}", "We look at {v} with a language model.", [f"topic {i}" for i in range(140)]),
    *_each("MORE", "A Study of {V}", "We look at {v} by language model reasoning.", [f"topic {i}" for i in range(60)]),
]  # fmt: skip


def test_a_title_about_the_rare_idea_is_found_when_the_common_one_is_only_in_its_text(tmp_path: Path) -> None:
    # Ten papers match every word, so the search does not widen; the self-play alignment papers never say
    # reasoning, and only a title query for self-play alone finds them. A typed compound counts whole: self-evolving
    # is not self-play.
    for db in _indexed(tmp_path, "selfplay", SELF_PLAY):
        response = search.search(db, "self-play for language model reasoning", limit=14, weights=LEXICAL_ONLY)
        got = [str(r.paper["source_id"]) for r in response.results]
        assert {"SP0", "SP1"} <= set(got[:12])
        assert all(not s.startswith("EV") for s in got[:12])


def test_generic_words_carry_no_share_of_an_idea_beside_a_specific_word(tmp_path: Path) -> None:
    # "modeling" is "models" to a crude stem: reward models say nothing of generative modeling.
    papers = [
        *_each("OT", "Optimal Transport for {V}", "Optimal transport for {v} with generative modeling.",
               ["Reward Models", "Generative Models"]),
        *_each("MISC", "A Study of {V}", "We look at {v} with models.", [f"topic {i}" for i in range(30)]),
    ]  # fmt: skip
    for db in _indexed(tmp_path, "modeling", papers):
        plan = QueryPlanner(db, index_cache(db), ql.parse("optimal transport for generative modeling")).build()
        ideas = Ideas(plan.groups)
        assert ideas.read(norm("Optimal Transport for Reward Models")) == [1.0, 0.0]
        assert ideas.read(norm("Optimal Transport for Generative Models")) == [1.0, 1.0]


def test_a_title_holding_the_main_term_beats_an_abstract_that_only_repeats_the_query(tmp_path: Path) -> None:
    """`chain-of-thought prompting`: a paper titled Chain-of-Thought comes before one whose abstract uses the phrase
    twice in passing (the phrase bonus once outweighed the title)."""
    papers = [
        {
            "id": "USES",
            "title": "Hallucination Detection from Structural Reasoning",
            "abstract": "We detect hallucinations in answers produced with chain-of-thought prompting, and show that "
            "chain-of-thought prompting leaves structural traces a small probe can read." + FILLER,
        },
        {
            "id": "ABOUT",
            "title": "Chain-of-Thought Reasoning Is Not Always Faithful",
            "abstract": "We test whether the reasoning steps a model writes explain its answers, across prompting "
            "strategies and model sizes, and find many chains of thought that do not." + FILLER,
        },
        *(
            {"id": f"F{i}", "title": f"{topic.capitalize()} for Vision", "abstract": f"We study {topic}." + FILLER}
            for i, topic in enumerate(TOPICS)
        ),
    ]
    for db in _indexed(tmp_path, "cot", papers):
        found = search.search(db, "chain-of-thought prompting").results
        assert [r.paper["source_id"] for r in found] == ["ABOUT", "USES"]


@needs_shared_data()
@pytest.mark.parametrize(
    ("query", "first_title"),
    [
        ("chain-of-thought prompting", r"chain[- ]of[- ]thought|\bCoT\b"),
        ("multi-hop question answering", r"multi-hop"),
        ("out-of-distribution robustness", r"out-of-distribution|\bOOD\b"),
    ],
)
def test_on_the_real_list_a_title_holding_the_compound_leads(
    full_index_path: Path, query: str, first_title: str
) -> None:
    db = index.connect(full_index_path, readonly=True)
    assert re.search(first_title, search.search(db, query).results[0].paper["title"], re.I)


@needs_shared_data()
@pytest.mark.parametrize("query", ["node classification", "representation engineering", "intrinsic motivation"])
def test_on_the_real_list_the_phrase_in_an_abstract_beats_a_title_holding_one_word(
    full_index_path: Path, query: str
) -> None:
    """Titles saying Intra-Node or Intrinsic Dimension are not about node classification or intrinsic motivation."""
    db = index.connect(full_index_path, readonly=True)
    first = search.search(db, query).results[0].paper
    assert re.search(query.replace(" ", r"[\s-]"), f"{first['title']} {first['abstract']}", re.I), first["title"]


def test_a_broad_idea_in_an_abstract_does_not_outrank_a_title_about_the_specific_ideas(tmp_path: Path) -> None:
    """`weather and climate forecasting with deep learning`: a title about weather forecasting comes before a paper
    whose title says weather and whose abstract alone adds forecasting and deep learning (nearly every paper here
    could say deep learning of its method, which once counted half an idea)."""
    papers = [
        {
            "id": "TITLE",
            "title": "Operational Weather Forecasting at Global Scale",
            "abstract": "We forecast global weather ten days ahead from reanalysis data and beat numerical "
            "prediction on most variables." + FILLER,
        },
        {
            "id": "ABSTRACT",
            "title": "Weather Data from Pixels to Latent Space",
            "abstract": "We compress weather and climate data into a latent space with deep learning, which later "
            "forecasting models can read." + FILLER,
        },
        *_each("DL", "Deep Learning for {V}", "We apply deep learning to {v}.", TOPICS),
        *_each("MISC", "A Study of {V}", "We look at {v} from a new angle.", [f"topic {i}" for i in range(40)]),
    ]
    for db in _indexed(tmp_path, "weather", papers):
        found = search.search(
            db, "weather and climate forecasting with deep learning", limit=2, weights=LEXICAL_ONLY
        ).results
        assert [r.paper["source_id"] for r in found] == ["TITLE", "ABSTRACT"]


def test_a_comparison_lists_each_sides_papers_in_turn(tmp_path: Path) -> None:
    """`DPO vs PPO`: the paper about both, then DPO and PPO papers in turn. PPO is the rarer word, so its papers
    alone filled the candidates (and the page) once few papers held both; and the answer pages without repeats."""
    papers = [
        {"id": "BOTH", "title": "DPO and PPO Compared", "abstract": "We compare DPO with PPO for alignment." + FILLER},
        *_each("DPO", "Direct Preference Optimization for {V}", "DPO aligns models on {v}.", TOPICS[:8]),
        *_each("PPO", "PPO for {V}", "PPO trains policies on {v}.", TOPICS[:4]),
        *_each("MISC", "A Study of {V}", "We look at {v} with DPO.", [f"topic {i}" for i in range(30)]),
        *_each("OTHER", "Another Study of {V}", "We look at {v}.", [f"topic {i}" for i in range(60)]),
    ]
    for db in _indexed(tmp_path, "versus", papers):
        first = [str(r.paper["source_id"]) for r in search.search(db, "DPO vs PPO", limit=5).results]
        assert first[0] == "BOTH"
        assert {s[:3] for s in first[1:5]} == {"DPO", "PPO"}
        assert all(a[:3] != b[:3] for a, b in itertools.pairwise(first[1:5]))  # in turn
        second = [str(r.paper["source_id"]) for r in search.search(db, "DPO vs PPO", limit=5, offset=5).results]
        assert not set(first) & set(second)
        assert {s[:3] for s in second[:2]} == {"DPO", "PPO"}
        # Comparisons too
        for asked in ("compare DPO and PPO", "what is the difference between DPO and PPO?"):
            got = [str(r.paper["source_id"]) for r in search.search(db, asked, limit=5).results]
            assert got == first, asked


@needs_shared_data()
def test_on_the_real_list_papers_holding_the_phrase_are_not_lost_behind_titles_holding_one_word(
    full_index_path: Path,
) -> None:
    """`length generalization`: eleven ICML 2026 papers hold the phrase, most only in their abstracts; titles saying
    Length Inflation or Output Length once filled the page and only one of them was in the top 10."""
    db = index.connect(full_index_path, readonly=True)
    top = search.search(db, "length generalization", limit=10).results
    holding = [
        r for r in top if re.search(r"length[\s-]generali[sz]ation", f"{r.paper['title']} {r.paper['abstract']}", re.I)
    ]
    assert len(holding) >= 4, [r.paper["title"] for r in top]
