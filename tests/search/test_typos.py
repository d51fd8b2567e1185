"""Typos: corrected as fingers slip and reported, chosen by the words beside them; real words, names and acronyms
are left as typed."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from bot import search
from bot.papers import index
from bot.search import typos
from tests.search.results import ids, source_ids
from tests.search.results import paper as _paper
from tests.support.marks import starred_notes
from tests.support.paths import needs_shared_data
from tests.support.seed_ids import DEFENSIVE_KV, KNAPSACK, TOKSUITE, VEGAS, VIEWMASK
from tests.support.sources import WEATHER_OR_WHETHER
from tests.support.venue_index import index_of


@pytest.mark.parametrize(
    ("typed", "corrected", "paper"),
    [
        ("kv cahce", "kv cache", DEFENSIVE_KV),  # transposition, last word
        ("kv cahce eviction", "kv cache eviction", DEFENSIVE_KV),
        ("difusion models", "diffusion models", VIEWMASK),  # first word
        # Two words
        ("speculativ decoding sparse atention", "speculative decoding sparse attention", VEGAS),
        ("Knapsak RL", "Knapsack RL", KNAPSACK),  # keeps the user's capitals
        ("toksuit", "toksuite", TOKSUITE),  # a paper name
        ("kv cahce -survey", "kv cache -survey", DEFENSIVE_KV),  # the rest of the query is kept
    ],
)
def test_typos_are_corrected_and_reported(
    seed_db: sqlite_utils.Database, typed: str, corrected: str, paper: str
) -> None:
    response = search.search(seed_db, typed)
    assert response.corrected == corrected
    assert ids(response)[0] == paper


@pytest.mark.parametrize(
    "query",
    ["TokSuite", "GRPO", "grpo", "μA", "keystone", "kv", "cot", "gpt4o", "Vegas", "tokeniser", "ExSQF", "qqxqzv"],
)
def test_valid_rare_words_names_acronyms_and_short_words_are_not_corrected(
    seed_db: sqlite_utils.Database, query: str
) -> None:
    assert search.search(seed_db, query).corrected is None


def test_a_plural_the_index_never_spelled_out_is_no_typo(tmp_path: Path) -> None:
    # Papers write "parity"; FTS5's stemmer finds it for "parities", which used to be corrected into "parties".
    papers = [
        *(
            {"id": f"P{i}", "title": f"Learning {kind} Parity Functions", "abstract": f"We learn a {kind} parity."}
            for i, kind in enumerate(["Sparse", "Noisy", "Boolean"])
        ),
        {"id": "Q1", "title": "Political Parties as Agents", "abstract": "We simulate parties in elections."},
        *(
            {"id": f"L{i}", "title": f"Linear Probes of {part}", "abstract": f"We train linear probes on {part}."}
            for i, part in enumerate(["Attention", "Residuals", "Embeddings"])
        ),
        # a one-off typo
        {"id": "T1", "title": "Typos in Abstracts", "abstract": "One prbe of one word."},
    ]
    db = index.connect(index_of(tmp_path, papers, "parity2026.jsonl"))
    response = search.search(db, "learning parities")
    assert response.corrected is None
    assert {r.paper["source_id"] for r in response.results} == {"P0", "P1", "P2"}
    # "prbe" once is no word to keep
    assert search.search(db, "linear prbes").corrected == "linear probes"
    assert (typos.singulars("boxes"), typos.singulars("priors"), typos.singulars("loss")) == (
        ["box", "boxe"],
        ["prior"],
        [],
    )


def _choosing(tmp_path: Path, papers: list[dict[str, str]], query: str) -> tuple[search.SearchResponse, list[str]]:
    """Search an index of these papers; also the counts that chose between corrections of wheather (whether or
    weather)."""
    db = index.connect(index_of(tmp_path, papers, "weather2026.jsonl"))
    asked: list[str] = []
    db.conn.set_trace_callback(asked.append)
    response = search.search(db, query)
    return response, [sql for sql in asked if "count(*)" in sql and "whether" in sql]


def test_a_correction_is_chosen_by_the_telling_words_beside_it(tmp_path: Path) -> None:
    """`wheather forecasting model`: whether and weather are one edit away and whether is more frequent, but
    weather is the one papers use with *forecasting*; *model*, in every paper, is not asked (it tells nothing and
    makes FTS5 read its whole posting list at 110,000 papers)."""
    weather = [(f"W{i}", f"Weather Forecasting {i}", f"A weather forecasting model, region {i}.") for i in range(2)]
    whether = [(f"H{i}", f"Does Size Matter {i}", f"We ask whether model size matters, case {i}.") for i in range(5)]
    papers = [{"id": i, "title": t, "abstract": a} for i, t, a in weather + whether]
    response, counts = _choosing(tmp_path, papers, "wheather forecasting model")
    assert response.corrected == "weather forecasting model"
    assert {r.paper["source_id"] for r in response.results[:2]} == {"W0", "W1"}
    assert counts
    assert all("forecasting" in sql and "model" not in sql for sql in counts)


def test_a_correction_asks_only_the_rarest_two_telling_words(tmp_path: Path) -> None:
    """`wheather forecasting storm radar`: of three telling words, the two rarest (radar, storm) choose weather;
    forecasting, the most common of them, is not asked (each further word makes FTS5 read every paper the others
    share before it can stop)."""
    response, counts = _choosing(tmp_path, WEATHER_OR_WHETHER, "wheather forecasting storm radar")
    assert response.corrected == "weather forecasting storm radar"
    assert response.results[0].paper["source_id"] == "W0"
    assert counts
    assert all('"radar"' in sql and '"storm"' in sql and "forecasting" not in sql for sql in counts)


def test_correction_prefers_frequent_words_and_respects_the_length_floor() -> None:
    vocab = typos.Vocabulary()
    words = {"learning": 2469, "leaning": 3, "cache": 105, "cace": 1, "models": 800, "modles": 1, "kv": 95}
    words |= {"training": 2182, "raining": 1, "transfer": 400, "ransfer": 1, "rasfer": 60}

    def fetch_df(ws: list[str]) -> dict[str, int]:
        return {w: words[w] for w in ws if w in words}

    def fetch_prefix(first: str) -> list[tuple[str, int]]:
        return [(w, n) for w, n in words.items() if w.startswith(first)]

    assert typos.correction("lerning", vocab, fetch_df, fetch_prefix) == "learning"
    assert typos.correction("cahce", vocab, fetch_df, fetch_prefix) == "cache"
    # in the vocabulary: never corrected
    assert typos.correction("modles", vocab, fetch_df, fetch_prefix) is None
    # ...but searched beside
    assert typos.common_neighbour("modles", vocab, fetch_df, fetch_prefix) == "models"
    # a first letter lost
    assert typos.common_neighbour("raining", vocab, fetch_df, fetch_prefix) == "training"
    # not 10x: same letter
    assert typos.common_neighbour("ransfer", vocab, fetch_df, fetch_prefix) == "rasfer"
    assert typos.correction("kx", vocab, fetch_df, fetch_prefix) is None  # too short
    assert typos.correction("zzzzzz", vocab, fetch_df, fetch_prefix) is None


@needs_shared_data()
def test_a_rare_word_one_first_letter_from_a_common_one_is_searched_beside_it(full_index_path: Path) -> None:
    db = index.connect(full_index_path, readonly=True)
    # One ICML 2026 abstract says "raining"
    response = search.search(db, "raining spiking neural networks")
    assert "Also showing papers with *training* (only a paper or two use *raining*)." in starred_notes(response)
    assert all(r.paper["title"].lower().count("train") for r in response.results)
    assert [r.paper["id"] for r in response.results] == ids(search.search(db, "training spiking neural networks"))


def test_an_english_word_a_paper_or_two_use_is_not_read_as_a_slip_for_a_common_one(tmp_path: Path) -> None:
    # "watching" (one paper) was searched beside "matching" (sixty), and the matching papers came first: "Also showing
    # papers with *matching* (only a paper or two use *watching*)". A real word is what it says, unless the words
    # beside it are written with the common word and never with it ("raining spiking neural networks").
    topics = ("graphs", "markets", "images", "molecules", "proteins", "texts")
    papers = [
        _paper(
            f"M{i}",
            f"Score Matching for {topics[i % 6].title()} {i}",
            f"We study matching of {topics[i % 6]}, case {i}.",
        )
        for i in range(60)
    ]
    papers += [
        _paper("W", "Learning by Watching Videos", "Agents learn skills by watching videos of people."),
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    try:
        for query in ("watching", "watching videos"):
            response = search.search(db, query)
            assert source_ids(response) == ["W"], query
            assert not [n for n in starred_notes(response) if "Also showing" in n], query
        # (still read so beside words papers write with it: test_a_rare_word_one_first_letter_from_a_common_one...)
    finally:
        db.conn.close()


def test_a_typo_in_a_hyphenated_term_is_corrected_to_the_term_papers_write(tmp_path: Path) -> None:
    # "modl" is one letter from model (in thirty papers, beside "collapse") and from mode; only mode collapse is a
    # term papers write. "selfp-lay" is self-play with its hyphen one letter late.
    papers = [
        *(
            {"id": f"M{i}", "title": f"Mode Collapse in GANs {i}", "abstract": f"Mode collapse, case {i}."}
            for i in range(5)
        ),
        *(
            {"id": f"N{i}", "title": f"Scaling Study {i}", "abstract": f"The model avoids collapse in run {i}."}
            for i in range(30)
        ),
        {"id": "S", "title": "Self-Play for Chess", "abstract": "Agents play against themselves in self-play."},
        {"id": "Z", "title": "Zero-Shot Transfer", "abstract": "A zero-shot method, a long shot."},
    ]
    db = index.connect(index_of(tmp_path, papers, "typos2026.jsonl"))
    response = search.search(db, "modl-collapse")
    assert response.corrected == "mode-collapse"
    assert {r.paper["source_id"] for r in response.results} == {f"M{i}" for i in range(5)}
    moved = search.search(db, "selfp-lay")
    assert (moved.corrected, [r.paper["source_id"] for r in moved.results]) == ("self-play", ["S"])
    swapped = search.search(db, "zero-hsot")  # two letters swapped
    assert (swapped.corrected, [r.paper["source_id"] for r in swapped.results]) == ("zero-shot", ["Z"])


def test_a_slip_at_a_words_first_letter_is_corrected_too(tmp_path: Path) -> None:
    # The corrector keeps a word's first letter; "ransformers" found nothing and "einforcement learning" became
    # enforcement learning, a word one paper uses. A word many times more used, or one the query's other words
    # go with, is the correction now; a word typed right keeps its first letter.
    papers = [
        *(
            {"id": f"T{i}", "title": f"Transformers at Scale {i}", "abstract": f"Transformers, study {i}."}
            for i in range(3)
        ),
        *(
            {"id": f"R{i}", "title": f"Reinforcement Learning for Games {i}", "abstract": f"Agents learn, run {i}."}
            for i in range(30)
        ),
        {"id": "E", "title": "Law Enforcement Data", "abstract": "Enforcement agencies publish data."},
        *(
            {"id": f"P{i}", "title": f"Conformal Prediction {i}", "abstract": f"Prediction sets, {i}."}
            for i in range(3)
        ),
        {"id": "D", "title": "Dimension Reduction", "abstract": "A reduction of dimension."},
    ]
    db = index.connect(index_of(tmp_path, papers, "first2026.jsonl"))
    assert search.search(db, "ransformers").corrected == "transformers"
    assert search.search(db, "einforcement learning").corrected == "reinforcement learning"
    # Reduction is as close and shares the first letter
    conformal = search.search(db, "conformal rediction")
    assert conformal.corrected == "conformal prediction"
    assert {r.paper["source_id"] for r in conformal.results} == {"P0", "P1", "P2"}
    assert search.search(db, "enforcement").corrected is None


def test_two_edits_correct_a_word_only_as_fingers_slip(tmp_path: Path) -> None:
    """`model stealing` (no paper here says stealing) was shown as *model scaling*, two edits away: two edits now
    keep the first two letters and strike a wrong letter only beside the right one on the keyboard, so neither
    scaling nor steering nor streaming is offered, while `reinfrocment` (a swap and a dropped letter) and
    `trabsformrs` (b beside n, one letter lost) are still corrected."""
    words = ["Scaling", "Steering", "Streaming", "Reinforcement", "Transformers"]
    papers = [
        {"id": f"{w[:3].upper()}{i}", "title": f"Model {w} {i}", "abstract": f"We study model {w.lower()}, run {i}."}
        for w in words
        for i in range(3)
    ]
    db = index.connect(index_of(tmp_path, papers, "slips2026.jsonl"))
    assert search.search(db, "model stealing").corrected is None
    assert search.search(db, "reinfrocment").corrected == "reinforcement"
    assert search.search(db, "trabsformrs").corrected == "transformers"


def test_a_lost_first_letter_beats_a_stray_one_far_from_the_next_key(tmp_path: Path) -> None:
    """`nlearning` is unlearning with its u lost, not learning with a stray n (n is nowhere near l on a keyboard),
    however many more papers say learning and whatever the other words; `rtransformers` is a stray r beside t."""
    papers = [
        *(
            {"id": f"U{i}", "title": f"Machine Unlearning {i}", "abstract": f"Unlearning in LLMs, {i}."}
            for i in range(3)
        ),
        *(
            {"id": f"L{i}", "title": f"Learning Study {i}", "abstract": f"Learning in LLMs, run {i}."}
            for i in range(40)
        ),
        *({"id": f"T{i}", "title": f"Transformers {i}", "abstract": f"Transformers, study {i}."} for i in range(3)),
        {"id": "S", "title": "Stransformers Revisited", "abstract": "Stransformers transform twice."},
    ]
    db = index.connect(index_of(tmp_path, papers, "stray2026.jsonl"))
    assert search.search(db, "nlearning").corrected == "unlearning"
    assert search.search(db, "nlearning in LLMs").corrected == "unlearning in LLMs"
    assert search.search(db, "rtransformers").corrected == "transformers"


def test_a_slip_in_a_hyphenated_term_that_makes_real_words_or_drops_a_hyphen_is_corrected(tmp_path: Path) -> None:
    # "leaning" is a word (one paper leans), but no paper writes meta leaning, and five write meta-learning; a slip
    # at the first letter (sgent) or a hyphen left out (ofexperts) is a typo too. A compound papers write stays, and
    # a name typed in CamelCase is not rewritten into a word two letters away.
    papers = [
        *({"id": f"M{i}", "title": f"Meta-Learning for Task {i}", "abstract": f"Meta-learn {i}."} for i in range(5)),
        *({"id": f"N{i}", "title": f"Scaling Study {i}", "abstract": f"Learning rates in run {i}."} for i in range(50)),
        {"id": "L", "title": "The Leaning Tower", "abstract": "A leaning tower, the money we spent on it."},
        {"id": "A", "title": "Multi-Agent Games", "abstract": "Agents play."},
        {"id": "E", "title": "Mixture of Experts Routing", "abstract": "Experts route tokens."},
        {"id": "P", "title": "A Panel of Experts", "abstract": "Experts of all kinds."},
        *({"id": f"C{i}", "title": f"Long Context {i}", "abstract": f"The context is long, {i}."} for i in range(3)),
        {"id": "F", "title": "FlashAttention Kernels", "abstract": "Fast attention."},
        {"id": "H", "title": "Probing the Hidden State", "abstract": "What the hidden state holds."},
        {"id": "I", "title": "Information-Aware Agents", "abstract": "The information we have are few. Agents are."},
    ]
    db = index.connect(index_of(tmp_path, papers, "slips2026.jsonl"))
    real = search.search(db, "meta-leaning")
    assert real.corrected == "meta-learning"
    assert {r.paper["source_id"] for r in real.results} == {f"M{i}" for i in range(5)}
    assert search.search(db, "leaning-tower").corrected is None  # a paper writes it
    first = search.search(db, "multi-sgent")  # not multi-spent: no paper writes it
    assert (first.corrected, [r.paper["source_id"] for r in first.results]) == ("multi-agent", ["A"])
    dropped = search.search(db, "mixture-ofexperts")
    assert (dropped.corrected, [r.paper["source_id"] for r in dropped.results]) == ("mixture-of-experts", ["E"])
    # Two letters off is no slip of the fingers (v for t: keys far apart), typed in lower case or not: context is
    # only suggested. (It was the correction of `convnext` before two edits had to be slips.)
    lower = search.search(db, "convnext")
    assert (lower.corrected, lower.suggestions) == (None, ["context"])
    named = search.search(db, "ConvNeXt")  # a CamelCase name is corrected by one letter at most
    assert (named.corrected, named.results) == (None, [])
    assert search.search(db, "FlashAtention").corrected == "FlashAttention"  # in the capitals typed
    # Words run together, capitals marking where: split there, as papers write them.
    camel = search.search(db, "HiddenState")
    assert (camel.corrected, [r.paper["source_id"] for r in camel.results]) == ("Hidden State", ["H"])
    # "awre" is one letter from "are" too, which more papers use, and "information are" is in an abstract: a part
    # corrected into such a word gives way to the compound a paper writes.
    aware = search.search(db, "information-awre")
    assert (aware.corrected, [r.paper["source_id"] for r in aware.results]) == ("information-aware", ["I"])


def test_an_english_word_no_paper_uses_is_not_corrected_into_another(tmp_path: Path) -> None:
    # "suddenly" is in none of these abstracts and "sudden" in many: it was "corrected", and a description of
    # grokking became "sudden generalize".
    papers = [
        {"id": f"S{i}", "title": f"Sudden Drops in Loss {i}", "abstract": f"A sudden change in the loss, case {i}."}
        for i in range(6)
    ]
    db = index.connect(index_of(tmp_path, papers), readonly=True)
    response = search.search(db, "networks that suddenly generalize")
    assert response.corrected is None, response.corrected
    assert search.search(db, "suddn drops").corrected == "sudden drops"  # (a real typo still is)
    db.conn.close()
