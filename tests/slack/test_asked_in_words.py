"""Requests asked in words, through the served app (signed /icml commands in, the replies out): the words that ask,
filter or join are read as such, never searched as words every paper must hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, serving, texts
from tests.support.slack_requests import mention_event


def _paper(
    pid: str, title: str, abstract: str, status: str = "Poster", authors: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {
        "id": pid,
        "title": title,
        "abstract": abstract * 3,
        "status": status,
        "authors": list(authors) or ["Ada One"],
    }


PAPERS = [
    _paper("O1", "Sparse Attention for Long Inputs", "We make attention sparse for long inputs. ", "Oral"),
    _paper("O2", "Attention Sinks Explained", "We explain why attention sinks form in transformers. ", "Oral"),
    _paper("P1", "Dense Attention Revisited", "We revisit dense attention and its costs. "),
    _paper("S1", "Attention with Linear Cost", "Linear attention for cheap inference. ", "Spotlight"),
    _paper("L1", "LOTTERY: Two-Sample Testing from Reference Samples", "LOTTERY tests two samples of unequal size. "),
    _paper("T1", "Expressive Lottery Tickets", "We find lottery tickets in wide networks and prune the rest. "),
    _paper("T2", "Lottery Tickets at Initialization", "Lottery ticket masks found at initialization transfer. "),
    _paper("D1", "Speculative Decoding with Draft Trees", "Speculative decoding drafts tokens with a small model. "),
    *(
        _paper(
            f"B{i}", f"Retrieval for Reasoning, Part {i}", f"We retrieve evidence for reasoning, study {i}. ", authors=a
        )
        for i, a in enumerate([("Mohit Bansal", "Ada One"), ("Jaemin Cho", "Mohit Bansal"), ("Manish Bansal",)])
    ),
]


@pytest.fixture
def served(fake: FakeSlack, tmp_path: Path) -> Iterator[SlackHttp]:
    with serving(fake, tmp_path, PAPERS) as app:
        yield app


def listed(body: dict[str, Any]) -> list[str]:
    """The titles a reply lists, in order (its fallback text: `1-3 of 3 papers for “q”: A; B; C`)."""
    text: str = body["text"]
    return text.split("”: ", 1)[1].split("; ")


def test_status_words_ask_for_those_papers(served: SlackHttp) -> None:
    for asked in ("oral", "orals on attention", "oral presentations on attention"):
        body = served.command(asked).json()
        # "oral" was corrected into another word
        assert "Showing results for" not in texts(body), asked
        assert "every word" not in texts(body), asked
        assert sorted(listed(body)) == ["Attention Sinks Explained", "Sparse Attention for Long Inputs"], asked
        assert problems(body) == []


def test_a_word_joining_two_terms_is_not_searched(served: SlackHttp) -> None:
    versus = texts(served.command("speculative versus decoding").json())
    assert "*Speculative Decoding with Draft Trees*" in versus
    assert "every word" not in versus


def test_a_paper_called_by_a_word_is_not_pinned_beside_other_words(served: SlackHttp) -> None:
    # LOTTERY, a two-sample test, was pinned first
    shown = listed(served.command("lottery ticket").json())
    assert sorted(shown[:2]) == ["Expressive Lottery Tickets", "Lottery Tickets at Initialization"]
    # Alone, the name is that paper
    assert listed(served.command("lottery").json())[0].startswith("LOTTERY")


def test_a_capitalised_surname_beside_a_topic_and_who_asks(served: SlackHttp) -> None:
    said = texts(served.command("Bansal reasoning").json())
    assert "2 papers by *Mohit Bansal*, those about *reasoning* first" in said
    who = texts(served.command("who works on reasoning?").json())
    assert "Most papers on *reasoning* here: Mohit Bansal (2)" in who
    # "people" was a word papers had to hold
    asked = served.command("how do people use attention sinks").json()
    assert listed(asked) == listed(served.command("attention sinks").json())
    assert listed(asked)[0] == "Attention Sinks Explained"


def test_a_person_none_of_whose_papers_is_on_the_topic_is_told_so(served: SlackHttp) -> None:
    """`Mohit Bansal attention`: his two papers, and the note says neither is about attention (it said "those about
    *attention* first", as if some were)."""
    body = served.command("Mohit Bansal attention").json()
    assert "2 papers by *Mohit Bansal*, none about *attention*" in texts(body)
    assert sorted(listed(body)) == ["Retrieval for Reasoning, Part 0", "Retrieval for Reasoning, Part 1"]
    assert "those about *reasoning* first" in texts(served.command("Mohit Bansal reasoning").json())


def test_a_place_in_the_author_list_beside_a_name_filters_their_papers(served: SlackHttp) -> None:
    """Mohit Bansal is first author of part 0 and last of part 1: `as first author` (or `last-author papers by`) keeps
    those, and `as author` is no topic word (it once answered "those about *author* first")."""
    first = served.command("Mohit Bansal as first author").json()
    assert listed(first) == ["Retrieval for Reasoning, Part 0"]
    assert "1 paper with *Mohit Bansal* as first author" in texts(first)
    last = served.command("last-author papers by Mohit Bansal").json()
    assert listed(last) == ["Retrieval for Reasoning, Part 1"]
    assert "1 paper with *Mohit Bansal* as last author" in texts(last)
    both = texts(served.command("papers with Mohit Bansal as author").json())
    assert "2 papers by *Mohit Bansal*" in both
    assert "those about" not in both
    none = texts(served.command("Jaemin Cho as last author").json())
    assert "No papers with *Jaemin Cho* as last author" in none
    assert problems(first) == []


def test_who_works_on_this_in_a_thread_names_the_people_of_its_topic(fake: FakeSlack, tmp_path: Path) -> None:
    """`@icml-bot who works on this?` under a message about retrieval for reasoning: the thread's topic, and who
    wrote most of its papers. (Among enough other papers that a thread's words can tell a topic.)"""
    others = [_paper(f"X{i}", f"Topic {i} Studied", f"We study topic number {i} in depth. ") for i in range(30)]
    with serving(fake, tmp_path, PAPERS + others) as served:
        fake.set_thread("C1", "1700000000.000100", [{"user": "U2", "text": "Is retrieval for reasoning worth it?"}])
        served.event(mention_event("who works on this?", ts="1700000009.000300", thread_ts="1700000000.000100"))
        served.drain()
        (post,) = fake.wait_for("chat.postMessage")
        said = texts(post.params)
        assert post.params["thread_ts"] == "1700000000.000100"
        assert "Papers related to this discussion (*" in said
        assert "here: Mohit Bansal (2)" in said
        assert "Retrieval for Reasoning, Part" in said


def _many(prefix: str, title: str, abstract: str, n: int) -> list[dict[str, Any]]:
    return [_paper(f"{prefix}{i}", f"{title} {i}", abstract.format(i=i)) for i in range(n)]


WORDS = [
    *_many("MED", "Medical Imaging with Foundation Models, Part", "Medical images read by foundation models, {i}. ", 3),
    _paper("BOTH", "DPO and PPO Compared", "We compare DPO with PPO for alignment. "),
    *_many("DPO", "Direct Preference Optimization, Part", "DPO aligns models, part {i}. ", 6),
    *_many("PPO", "PPO Revisited, Part", "PPO trains policies, part {i}. ", 3),
    *_many("UNL", "Machine Unlearning, Part", "Unlearning removes data, part {i}. ", 4),
    *_many("SCA", "Model Scaling, Part", "Model scaling and learning, part {i}. ", 3),
    *_many("FILL", "A Study of Topic", "We study topic {i} with learning and DPO. ", 30),
]


@pytest.fixture
def words_http(fake: FakeSlack, tmp_path: Path) -> Iterator[SlackHttp]:
    with serving(fake, tmp_path, WORDS) as app:
        yield app


def test_words_as_researchers_type_them_through_the_served_app(words_http: SlackHttp) -> None:
    """The session's readings of typed words, end to end: a field's noun finds its adjective, a comparison lists each
    side in turn, a lost first letter is restored, two letters off is no slip, a count of papers is no topic."""
    medicine = words_http.command("AI in medicine").json()
    assert {t.rsplit(" ", 1)[0] for t in listed(medicine)} == {"Medical Imaging with Foundation Models, Part"}
    versus = [t.split(",")[0].split(" ")[0] for t in listed(words_http.command("DPO vs PPO").json())]
    assert versus[0] == "DPO"  # (the paper about both: "DPO and PPO Compared")
    # in turn
    assert versus[1:] in (["PPO", "Direct", "PPO", "Direct"], ["Direct", "PPO", "Direct", "PPO"])
    stray = texts(words_http.command("nlearning").json())
    assert "Showing results for *unlearning*" in stray
    assert "Machine Unlearning" in stray
    stealing = texts(words_http.command("model stealing").json())
    assert "Showing results for" not in stealing  # (not *model scaling*)
    counted = words_http.command("recommend 3 papers on unlearning").json()
    assert sorted(listed(counted)) == [f"Machine Unlearning, Part {i}" for i in range(4)]
    refused = texts(words_http.command("digest subscribe papers about", channel_id="C0123456789").json())
    assert "“papers about” names no topic" in refused
    assert problems(medicine) == []


READING = [
    _paper("G1", "Grokking in Modular Arithmetic", "Networks generalize long after they fit the data. "),
    _paper("G2", "Why Grokking Happens", "Delayed generalization explained by weight norms. "),
    _paper("R1", "Reading Between the Tokens", "What should a model read about its users? "),
    *_many("FT", "Fine-Tuning Language Models, Part", "We study fine-tuning of language models, {i}. ", 30),
    *_many("JT", "Finetuning Study, Part", "Finetuning, case {i}. ", 21),
    *_many("AUD", "Autoregressive Diffusion for Audio, Part", "Autoregressive diffusion makes audio, {i}. ", 3),
    *_many("DIF", "Diffusion for Image Generation, Part", "Diffusion models generate images, {i}. ", 2),
    *_many("AR", "Autoregressive Image Generation, Part", "Autoregressive models generate images, {i}. ", 2),
]


def test_this_sessions_readings_through_the_served_app(fake: FakeSlack, tmp_path: Path) -> None:
    """Request words are no topic words, a pasted title pins its paper, a joined spelling finds the hyphenated one,
    the note says which word no paper writes, an English word is not "corrected", and a comparison keeps what both
    sides are about."""
    with serving(fake, tmp_path, READING) as served:
        read = listed(served.command("what should I read about grokking?").json())
        # not Reading Between ...
        assert sorted(read) == ["Grokking in Modular Arithmetic", "Why Grokking Happens"]
        pasted = listed(served.command('paper "Why Grokking Happens"').json())
        assert pasted[0] == "Why Grokking Happens"
        joined = served.command("finetuning").json()
        assert "1-5 of 51 papers" in joined["text"]  # (21 write finetuning, 30 fine-tuning)
        unknown = texts(served.command("grokking qqxqzv").json())
        assert "No paper here writes *qqxqzv*" in unknown
        described = served.command("networks that suddenly generalize long after fitting the data").json()
        assert "Showing results for" not in texts(described)  # (it was "sudden generalize")
        assert listed(described)[0] == "Grokking in Modular Arithmetic"
        versus = listed(served.command("diffusion vs autoregressive image generation").json())
        assert len(versus) == 5
        # They follow
        assert not any(t.startswith("Autoregressive Diffusion for Audio") for t in versus[:4])
