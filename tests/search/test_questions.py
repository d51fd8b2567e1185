"""Questions asked in words are searched by their topic; topics that merely look like requests are left alone."""

from __future__ import annotations

import pytest

from bot.search import query as ql


def topic(text: str) -> list[str]:
    return [t.text for t in ql.parse(text).terms]


@pytest.mark.parametrize(
    ("asked", "about"),
    [
        ("papers on grokking", ["grokking"]),
        # #1 was "Reading Between the Tokens"
        ("what should I read about grokking?", ["grokking"]),
        ("help me find grokking work", ["grokking"]),
        # A topic that starts like a request stays one
        ("reading comprehension", ["reading", "comprehension"]),
        ("any recent work about KV cache?", ["KV", "cache"]),
        ("what are the best methods for kv cache compression?", ["kv", "cache", "compression"]),
        ("what's new in diffusion?", ["diffusion"]),
        ("I'm looking for papers about tokenizers", ["tokenizers"]),
        ("has anyone worked on model merging?", ["model", "merging"]),
        ("which papers study grokking?", ["grokking"]),
        ("what is the state of the art in protein design", ["protein", "design"]),
        ("can you find papers related to speculative decoding?", ["speculative", "decoding"]),
        # The request ends at "on"; "new" is the topic's
        ("papers on new benchmarks", ["new", "benchmarks"]),
        ("grokking papers", ["grokking"]),
        # Not corrected into "into to diffusion models"
        ("intro to diffusion models", ["diffusion", "models"]),
        ("papers by Mohit Bansal", ["Mohit", "Bansal"]),
        # An opening, then the topic
        ("how can I speed up LLM inference?", ["speed", "up", "LLM", "inference"]),
        ("do you know any work on grokking", ["grokking"]),
        ("explain flow matching", ["flow", "matching"]),
        ("summarize recent progress in LLM agents", ["LLM", "agents"]),
        ("overview of graph transformers", ["graph", "transformers"]),
        ("show me grokking papers", ["grokking"]),
        ("who wrote Knapsack RL", ["Knapsack", "RL"]),
        ("Mohit Bansal's papers", ["Mohit", "Bansal"]),  # a possessive is the name
        # Function words: no topic
        ("what has Sergey Levine published?", ["what", "has", "Sergey", "Levine"]),
        # "papers" at the end: the lead says which papers
        ("any code generation papers", ["code", "generation"]),
        ("are there any good RL papers?", ["RL"]),
        ("recent papers grokking", ["grokking"]),  # ...or "papers" ends the lead
        ("papers grokking", ["grokking"]),
        ("what is the best way to quantize llms", ["quantize", "llms"]),
        # Only which papers: "working" is the topic's
        ("working memory papers", ["working", "memory"]),
        ("point cloud papers", ["point", "cloud"]),
        ("best arm identification papers", ["best", "arm", "identification"]),
        # A filter word alone says no request
        ("oral cancer detection papers", ["oral", "cancer", "detection"]),
        ("oral", []),  # a status alone asks for those papers (it was typo-corrected into "odal")
        ("spotlights", []),
        ("code", ["code"]),  # ...other filter words alone stay words: code generation, code models
        ("survey of RLHF", ["RLHF"]),  # a survey is what is wanted; RLHF is what it is about
        ("RLHF survey paper", ["RLHF"]),
        ("difference between DPO and PPO", ["DPO", "and", "PPO"]),
        ("I need something on uncertainty in LLM agents", ["uncertainty", "in", "LLM", "agents"]),
        # A light verb ends it
        ("how do I make diffusion sampling faster", ["diffusion", "sampling", "faster"]),
        ("how do I make my model robust", ["model", "robust"]),
        ("what is the difference between DPO and PPO?", ["DPO", "and", "PPO"]),
        ("where should I start with diffusion models?", ["diffusion", "models"]),
        # who asks
        ("how do people evaluate hallucination in VLMs", ["evaluate", "hallucination", "in", "VLMs"]),
        ("what do researchers use for uncertainty", ["uncertainty"]),
        # Doing was a topic word
        ("what are people doing with sparse autoencoders?", ["sparse", "autoencoders"]),
        ("what's happening in diffusion models", ["diffusion", "models"]),
        # A count of papers was a word they had to hold
        ("recommend 3 papers on grokking", ["grokking"]),
        ("top ten papers on in-context learning", ["in-context", "learning"]),
        # No opening: a topic
        ("people tracking in videos", ["people", "tracking", "in", "videos"]),
    ],
)
def test_a_question_is_searched_by_its_topic(asked: str, about: list[str]) -> None:
    assert topic(asked) == about


@pytest.mark.parametrize(
    ("asked", "about"),
    [
        # "any" with no "papers" or "on" after it stayed a word every result was ranked by: "any benchmarks for
        # evaluating code generation?" put a how-to-procedures paper first (it holds "any" and "evaluate").
        ("any benchmarks for evaluating code generation?", ["benchmarks", "for", "evaluating", "code", "generation"]),
        ("any good benchmarks for long-context LLMs?", ["benchmarks", "for", "long-context", "LLMs"]),
        ("anyone looking at sparse autoencoders?", ["sparse", "autoencoders"]),
        ("any theory of scaling laws?", ["theory", "of", "scaling", "laws"]),
        ("got anything about reward hacking?", ["reward", "hacking"]),
        # ...and words after the topic that only say when, or that it is asked, were words too.
        ("any good work on out-of-distribution detection this year?", ["out-of-distribution", "detection"]),
        ("anything new on machine unlearning lately?", ["machine", "unlearning"]),
        ("any papers on LLM agents in the last few years?", ["LLM", "agents"]),
        (
            "are physics-informed neural networks still being studied? find me some",
            ["are", "physics-informed", "neural", "networks"],
        ),
        (
            "which papers analyze the implicit bias of gradient descent?",
            ["the", "implicit", "bias", "of", "gradient", "descent"],
        ),
        ("suggestions for learning with noisy labels?", ["learning", "with", "noisy", "labels"]),
        # Topics that only end like that stay whole.
        ("any work on inference at test time?", ["inference", "at", "test", "time"]),
        ("any papers on human well being?", ["human", "well", "being"]),
        # No question: every word is searched
        ("grokking this year", ["grokking", "this", "year"]),
        ("anytime algorithms", ["anytime", "algorithms"]),
        ("any-order autoregressive models", ["any-order", "autoregressive", "models"]),
    ],
)
def test_a_question_leaves_out_what_only_asks_before_and_after_its_topic(asked: str, about: list[str]) -> None:
    assert topic(asked) == about


@pytest.mark.parametrize(
    ("asked", "who"),
    [
        ("who works on kv cache?", True),
        ("who is working on mechanistic interpretability", True),
        ("who wrote about GFlowNets", True),
        ("any papers on kv cache?", False),
        ("kv cache", False),
        ("Who Watches the Watchmen", False),  # a title: no request, so nobody asked who
    ],
)
def test_a_question_asking_who_says_so(asked: str, who: bool) -> None:
    assert ql.parse(asked).asks_who is who


@pytest.mark.parametrize(
    ("asked", "compares"),
    [
        ("DPO vs PPO", True),
        ("SGD versus Adam", True),
        ("compare LoRA and full fine-tuning", True),
        ("what is the difference between DPO and IPO?", True),
        ("DPO and PPO", False),  # papers about both
        ('"DPO vs PPO"', False),  # a phrase
        ("difference of Gaussians", False),
    ],
)
def test_a_comparison_is_read_where_the_request_is(asked: str, compares: bool) -> None:
    assert ql.parse(asked).compares is compares


@pytest.mark.parametrize(
    ("asked", "none"),
    [
        ("who works on", True),
        ("any papers on this?", True),
        ("what's new in?", True),
        ("can you recommend some papers?", True),
        ("related work?", True),
        ("who works on kv cache?", False),
        ("recent papers", False),  # no question: still a search for its words, as before
        ("papers", False),
        ("any surveys?", False),  # a kind of paper is what is asked for
        ("show me TOP", False),  # capitals: a paper's name (TOP, BEST, ME are ICML 2026 papers)
        ("any papers on this author:Finn", False),
        ("any oral papers", False),  # a filter: orals are the answer
    ],
)
def test_a_question_naming_no_topic_says_so(asked: str, none: bool) -> None:
    assert ql.parse(asked).names_no_topic is none


@pytest.mark.parametrize(
    ("asked", "like", "about"),
    [
        ("papers similar to TokSuite", True, ["TokSuite"]),
        ("work like DefensiveKV", True, ["DefensiveKV"]),
        # A pasted link names the paper
        ("papers like <https://openreview.net/forum?id=abc>", True, []),
        ("see <https://openreview.net/forum?id=abc>", False, []),
        # A topic, not a paper
        ("papers related to speculative decoding", False, ["speculative", "decoding"]),
        ("likelihood ratio tests", False, ["likelihood", "ratio", "tests"]),
        ("I'd like papers on TokSuite", False, ["TokSuite"]),  # like as in want: that paper
        ("we would like work similar to TokSuite", True, ["TokSuite"]),
    ],
)
def test_a_request_for_papers_like_another_says_so(asked: str, like: bool, about: list[str]) -> None:
    parsed = ql.parse(asked)
    assert (parsed.asks_similar, [t.text for t in parsed.terms]) == (like, about)


@pytest.mark.parametrize(
    "text",
    [
        "best arm identification",  # "best" describes nothing asked for
        "research agents",  # "research" leads into nothing
        "new benchmarks for reasoning",
        "papers",  # nothing would be left
        "on the convergence of adam",  # function words only: no request
        "using LLMs for theorem proving",
        "LLMs for code",  # code is the topic here, not a request for papers with code
        "oral cancer detection",
        "Which Heads Matter for Reasoning?",
        "LLMs for peer review",
        "code review with LLMs",  # a review is a topic ("code" is no has:code here)
        "difference of Gaussians",  # a difference is asked for only "between" things
        "difference of convex functions",
        "3 body problem",  # a number is a count only in a request
        "2 layer networks",
    ],
)
def test_a_topic_that_looks_like_a_request_is_left_whole(text: str) -> None:
    assert len(topic(text)) == len(text.split())


def test_a_venue_or_year_in_the_request_becomes_a_filter() -> None:
    asked = ql.parse("any ICML 2024 papers on tokenizers?")
    assert ([t.text for t in asked.terms], asked.venues, asked.years) == (["tokenizers"], ("icml",), (2024,))
    assert ql.parse("icml2026 papers about grokking").venues == ("icml2026",)
    after = ql.parse("grokking papers at ICML 2024")
    assert ([t.text for t in after.terms], after.venues, after.years) == (["grokking"], ("icml",), (2024,))
    # Where to look is all that is asked: a filter alone lists its papers
    listing = ql.parse("ICML 2024 papers")
    assert (listing.terms, listing.venues, listing.years) == ([], ("icml",), (2024,))
    typed = ql.parse("ICML 2026")  # no request: the words themselves
    assert ([t.text for t in typed.terms], typed.venues, typed.years) == (["ICML", "2026"], (), ())


def test_filters_in_a_lead_that_says_which_papers_become_filters() -> None:
    recent = ql.parse("recent ICML 2024 kv cache papers")
    assert ([t.text for t in recent.terms], recent.venues, recent.years) == (["kv", "cache"], ("icml",), (2024,))
    oral = ql.parse("any oral diffusion papers with code")
    assert ([t.text for t in oral.terms], oral.status, oral.has_code) == (["diffusion"], ("Oral",), True)


def test_orals_spotlights_and_code_in_the_request_become_filters() -> None:
    oral = ql.parse("any oral papers on diffusion?")
    assert ([t.text for t in oral.terms], oral.status, oral.has_code) == (["diffusion"], ("Oral",), None)
    coded = ql.parse("diffusion papers with code")
    assert ([t.text for t in coded.terms], coded.status, coded.has_code) == (["diffusion"], (), True)
    topic_words = ql.parse("papers on code generation")
    assert ([t.text for t in topic_words.terms], topic_words.has_code) == (["code", "generation"], None)


def test_quoted_negated_and_fielded_terms_are_never_a_request() -> None:
    assert topic('"papers on" grokking') == ["papers on", "grokking"]
    assert topic("-papers on grokking") == ["papers", "on", "grokking"]
    assert topic("author:papers on grokking") == ["papers", "on", "grokking"]
    # Filters are not terms: the request still leads
    assert topic("status:oral papers on grokking") == ["grokking"]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("diffusion papers NOT video", ["diffusion", "video"]),
        ("diffusion papers -video", ["diffusion", "video"]),
        ("any papers on grokking -llm", ["grokking", "llm"]),
        ("diffusion papers author:Levine", ["diffusion", "Levine"]),
        ('papers by author:"Sergey Levine" on offline RL', ["Sergey Levine", "offline", "RL"]),
        ("papers author:Finn", ["Finn"]),  # the request may be all the words beside them
        ("author:Finn papers", ["Finn"]),
        ('papers by author:"Chelsea Finn"', ["Chelsea Finn"]),
        ("papers -llm", ["llm"]),
        ("recent papers author:Finn", ["Finn"]),  # only which papers: no word the papers must hold
        ("new papers author:Levine", ["Levine"]),
        ("survey -llm", ["survey", "llm"]),  # a kind of paper is what is searched
        ("survey papers -llm", ["survey", "llm"]),
    ],
)
def test_exclusions_and_authors_anywhere_leave_the_request_readable(query: str, words: list[str]) -> None:
    # An exclusion or author: typed after "papers" used to hide the request, so every result had to hold "papers".
    assert topic(query) == words


@pytest.mark.parametrize(
    ("typed", "venues", "years", "words"),
    [
        ("ICML 2024 grokking", ("icml",), (2024,), ["grokking"]),
        ("iclr2026 grokking", ("iclr2026",), (), ["grokking"]),
        ("mixture of experts 2024", (), (2024,), ["mixture", "of", "experts"]),
        # A dataset's year stays a word
        ("COCO 2017 detection", (), (), ["COCO", "2017", "detection"]),
        ("ICML 2024", (), (), ["ICML", "2024"]),  # nothing but the venue: searched as typed
    ],
)
def test_a_venue_or_year_typed_plainly_beside_a_topic_is_a_filter(
    typed: str, venues: tuple[str, ...], years: tuple[int, ...], words: list[str]
) -> None:
    parsed = ql.parse(typed)
    assert (parsed.venues, parsed.years, [t.text for t in parsed.terms]) == (venues, years, words)
