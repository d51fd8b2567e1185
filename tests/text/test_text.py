"""bot.text on the real seed abstracts and the real ICML 2026 list: literal expectations, written out by hand."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from bot import text

ROOT = Path(__file__).resolve().parents[2]
_SEED_CANDIDATES = (ROOT / "seeds" / "icml2026_abstracts.txt", Path("/work/shared/seeds/icml2026_abstracts.txt"))
SEED_FILE = next((p for p in _SEED_CANDIDATES if p.exists()), None)
_DATA_CANDIDATES = (ROOT.parent / "shared" / "data" / "icml2026.jsonl", Path("/work/shared/data/icml2026.jsonl"))
ICML2026 = next((p for p in _DATA_CANDIDATES if p.exists()), None)

RESIDUE = re.compile(r"\$|\\times|\*\*|\\textit|\\emph|\\url|\\[A-Za-z]")

# distinctive phrase → expected derived name (None: the paper introduces no short name)
EXPECTED_NAMES: dict[str, str | None] = {
    "verification-guided sparse attention": "Vegas",
    "Multi-Hop Fact Verification": "SCM-GRPO",
    "uncertainty quantification (UQ)": None,
    "keystone neurons": None,
    "discrete diffusion's success": "ViewMask-1-to-3",
    "Direct alignment methods": "RACO",
    "attention output perturbation": "DefensiveKV",
    "Tokenizers provide the fundamental basis": "TokSuite",
    "Sparse Mixture-of-Experts": "SoftMoE",
    "quantization-aware fine-tuning (QAF)": "ExSQF",
    "intrinsic dimensionality": None,
    "Online prompt selection": "GPS",
    "Low-Rank Adaptation (LoRA)": "μA",
    "causal relationships from data": "CauSciBench",
    "rollout-generation jobs": "Knapsack RL",
    "high-resolution images": "HiDe",
    "distributional reasoning": None,
    "backdoor attacks": "TokenSwap",
    "formal symbolic verification": None,
}


@pytest.fixture(scope="module")
def seeds() -> list[str]:
    """The 19 seed abstracts: paragraphs after the header line."""
    if SEED_FILE is None:
        pytest.skip("seed file icml2026_abstracts.txt is not available")
    raw = SEED_FILE.read_text(encoding="utf-8")
    header, _, body = raw.partition("\n")
    assert header.startswith("ICML 2026")
    paras = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    assert len(paras) == 19
    return paras


def _abstract(seeds: list[str], phrase: str) -> str:
    found = [p for p in seeds if phrase in p]
    assert len(found) == 1, phrase
    return found[0]


# ---------------------------------------------------------------------------------------------------------------
# Seeds


def test_seed_names(seeds: list[str]) -> None:
    got = {
        phrase: text.derive_name(_abstract(seeds, phrase), text.code_url(_abstract(seeds, phrase)))
        for phrase in EXPECTED_NAMES
    }
    assert got == EXPECTED_NAMES


def test_seed_names_never_junk(seeds: list[str]) -> None:
    names = {text.derive_name(p, text.code_url(p)) for p in seeds}
    assert not names & {"LoRA", "LLMs", "LLM", "UQ", "GRPO", "MoE", "CoT", "QAF", "KV", "SCM-inspired"}


def test_seed_clean_has_no_markup_residue(seeds: list[str]) -> None:
    for p in seeds:
        for out in (text.clean(p), text.plain(p)):
            assert not RESIDUE.search(out), RESIDUE.search(out)
            assert "\\" not in out
            assert "  " not in out


def test_seed_latex_and_markdown(seeds: list[str]) -> None:
    vegas = text.clean(_abstract(seeds, "verification-guided sparse attention"))
    assert "1.25×–2.81×" in vegas
    assert "1.15×–1.29×" in vegas
    mua = text.clean(_abstract(seeds, "Low-Rank Adaptation (LoRA)"))
    assert "_Maximal-Update Adaptation_ (μA)" in mua
    assert "_how the optimal learning rate scales with adapter rank_" in mua
    defensive = text.clean(_abstract(seeds, "attention output perturbation"))
    assert "more than _half_ on average" in defensive
    assert defensive.endswith("available at https://github.com/FFY0/DefensiveKV.")
    raco = text.clean(_abstract(seeds, "Direct alignment methods"))
    assert "a Reward-free Alignment framework for Conflicted Objectives (RACO)" in raco
    viewmask = text.clean(_abstract(seeds, "discrete diffusion's success"))
    assert "We introduce *ViewMask-1-to-3*, formulating" in viewmask
    soft = text.clean(_abstract(seeds, "Sparse Mixture-of-Experts"))
    assert "top-k routing" in soft
    assert soft.endswith("publicly available†.")
    hide = text.clean(_abstract(seeds, "high-resolution images"))
    assert "rely on “zoom-in” strategies" in hide
    assert "reaching 92.1% and 91.6%" in hide
    scm = text.clean(_abstract(seeds, "Multi-Hop Fact Verification"))
    assert "an “inverted U-shaped” correlation" in scm
    assert "Large Language Models, which" in scm  # stray space before the comma removed
    tokenswap = text.clean(_abstract(seeds, "backdoor attacks"))
    assert "the _compositional understanding_ capabilities" in tokenswap
    uq = text.clean(_abstract(seeds, "uncertainty quantification (UQ)"))
    assert "The first, _simulatability_, posits" in uq
    assert "_intrinsic dimensionality_ as a quantitative" in text.clean(_abstract(seeds, "intrinsic dimensionality"))


def test_seed_plain_has_no_emphasis(seeds: list[str]) -> None:
    assert "more than half on average" in text.plain(_abstract(seeds, "attention output perturbation"))
    assert "We introduce ViewMask-1-to-3, formulating" in text.plain(_abstract(seeds, "discrete diffusion's success"))
    for p in seeds:
        assert not re.search(r"(?<!\w)[*_]\w|\w[*_](?!\w)", text.plain(p))


def test_seed_hyphenation_repaired(seeds: list[str]) -> None:
    causci = text.clean(_abstract(seeds, "causal relationships from data"))
    assert "seminal datasets" in causci
    assert "sem- inal" not in causci
    assert "on causality-driven research questions" in causci
    knapsack = text.clean(_abstract(seeds, "rollout-generation jobs"))
    assert "a compute-constrained resource allocation task" in knapsack
    assert "computeconstrained" not in knapsack


def test_seed_urls(seeds: list[str]) -> None:
    defensive = _abstract(seeds, "attention output perturbation")
    assert text.urls(defensive) == ["https://github.com/FFY0/DefensiveKV"]
    assert text.code_url(defensive) == "https://github.com/FFY0/DefensiveKV"
    assert text.code_url(_abstract(seeds, "verification-guided sparse attention")) == (
        "https://github.com/platformxlab/vegas"
    )
    assert text.code_url(_abstract(seeds, "Online prompt selection")) == "https://github.com/thu-rllab/GPS"
    assert text.code_url(_abstract(seeds, "high-resolution images")) == "https://tennine2077.github.io/HiDe.github.io/"
    assert text.code_url(_abstract(seeds, "Tokenizers provide the fundamental basis")) is None


def test_seed_titles(seeds: list[str]) -> None:
    titles = {}
    for p in seeds:
        name = text.derive_name(p, text.code_url(p))
        title = text.derive_title(p, name)
        assert title
        assert len(title) <= 90, title
        assert "*" not in title
        assert "_" not in title
        assert "\\" not in title
        assert "$" not in title
        titles[p] = title
    assert titles[_abstract(seeds, "verification-guided sparse attention")] == (
        "Vegas: A self-speculative decoding method with verification-guided sparse attention"
    )
    assert titles[_abstract(seeds, "Tokenizers provide the fundamental basis")].startswith(
        "TokSuite: A collection of models and a benchmark that supports research into"
    )
    assert (
        titles[_abstract(seeds, "Direct alignment methods")]
        == "RACO: A Reward-free Alignment framework for Conflicted Objectives"
    )
    assert titles[_abstract(seeds, "quantization-aware fine-tuning (QAF)")] == (
        "ExSQF: Explicit-Safety Quantization-Aware Fine-tuning"
    )
    assert titles[_abstract(seeds, "Low-Rank Adaptation (LoRA)")] == "μA: Maximal-Update Adaptation"
    assert titles[_abstract(seeds, "Sparse Mixture-of-Experts")] == (
        "SoftMoE: Replacing discrete routing with a truncated soft top-k LapSum relaxation"
    )
    assert titles[_abstract(seeds, "distributional reasoning")].startswith(
        "A multi-answer reinforcement learning approach for training LMs to perform"
    )
    assert titles[_abstract(seeds, "keystone neurons")] == (
        "A supervised fine-tuning approach that updates only keystone neurons"
    )


def test_seed_headlines(seeds: list[str]) -> None:
    for p in seeds:
        h = text.headline(p)
        assert h
        assert len(h) <= 200
        assert "\n" not in h
        assert not RESIDUE.search(h)
    assert text.headline(_abstract(seeds, "verification-guided sparse attention")) == (
        "We propose Vegas, a self-speculative decoding method with verification-guided sparse attention."
    )
    assert text.headline(_abstract(seeds, "distributional reasoning")) == (
        "This paper describes a multi-answer reinforcement learning approach for training LMs to perform "
        "distributional reasoning over multiple answers during inference."
    )
    assert text.headline(_abstract(seeds, "attention output perturbation")) == (
        "This paper presents a formal study on identifying critical KV cache entries by analyzing attention output "
        "perturbation."
    )
    assert text.headline(_abstract(seeds, "Multi-Hop Fact Verification")).startswith(
        "We introduce an SCM-inspired framework that grounds reasoning in explicit directed dependency graphs"
    )


# ---------------------------------------------------------------------------------------------------------------
# Unit cases


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("$E^2$PO", "E²PO"),
        ("$x^{n+1}$ and $x_{ij}$", "xⁿ⁺¹ and xᵢⱼ"),
        ("$\\theta_{ref}$", "θ_(ref)"),
        ("$n^{1.5}$", "n^(1.5)"),
        ("$10^{-3}$", "10⁻³"),
        ("$\\mathbf{A}^{\\top}$", "Aᵀ"),
        ("$<$10 steps", "<10 steps"),
        ("$\\epsilon$-DP", "ε-DP"),
        ("$\\mathcal{O}(n)$ time", "O(n) time"),
        ("$\\tilde{\\mathcal{O}}(\\sqrt{T})$", "Õ(√T)"),
        ("$\\frac{a+b}{2}$", "(a+b)/2"),
        ("$\\mathbb{R}^d$", "ℝᵈ"),
        ("$x \\leq y \\to z$", "x ≤ y → z"),
        ("$\\alpha, \\beta, \\Omega$", "α, β, Ω"),
        ("\\textit{K}-means", "_K_-means"),
        ("the \\textit{K} clusters", "the _K_ clusters"),
        ("up to 91.1\\\\% on CRUX", "up to 91.1% on CRUX"),
        ("we propose \\textbf{Foo}, a method", "we propose *Foo*, a method"),
        ("**R**eward-free **A**lignment", "Reward-free Alignment"),
        ("a **bold** and *italic* and __strong__", "a *bold* and _italic_ and *strong*"),
        ("an ``inverted U'' and ''zoom-in\" view", "an “inverted U” and “zoom-in” view"),
        ("costs \\$30 only", "costs USD 30 only"),
        ("Petrov--Galerkin and world---model", "Petrov–Galerkin and world—model"),
        ("Agents~(PRA) and ~50% of", "Agents (PRA) and ~50% of"),
        ("see \\cite{foo} and \\ref{bar}.", "see and."),
        ("\\href{https://x.org/a}{here}.", "here (https://x.org/a)."),
        ("Pol\\'{y}a and G\\\"odel", "Polýa and Gödel"),
        ("Bi-Level GRPO}, an algorithm", "Bi-Level GRPO, an algorithm"),
        ("labels in {0, 1}", "labels in {0, 1}"),
        ("\\ding{182} fast", "❶ fast"),
        ("A\\L ojasiewicz", "AŁojasiewicz"),
    ],
)
def test_clean_cases(raw: str, expected: str) -> None:
    assert text.clean(raw) == expected


def test_html_entities() -> None:
    assert text.clean("bias is _ubiquitous_&mdash;80% of personas") == "bias is _ubiquitous_—80% of personas"
    assert text.clean("a *&lt;/think&gt;* token &amp; more") == "a _</think>_ token & more"
    assert text.plain("whether&mdash;or to what extent&mdash;training") == "whether—or to what extent—training"


def test_clean_does_not_html_escape() -> None:
    assert text.clean("x < y & z > w") == "x < y & z > w"


def test_paragraphs_and_whitespace() -> None:
    assert text.clean("  first   para\nwraps here.\n\n\n  second\tpara  ") == "first para wraps here.\n\nsecond para"


def test_empty_and_whitespace_input() -> None:
    for raw in ("", "   ", "\n\n\t"):
        assert text.clean(raw) == ""
        assert text.plain(raw) == ""
        assert text.urls(raw) == []
        assert text.code_url(raw) is None
        assert text.derive_name(raw) is None
        assert text.derive_title(raw, None) == "Untitled paper"
        assert text.headline(raw) == ""
        assert text.words(raw) == []
        assert text.normalize_title(raw) == ""
        assert text.name_from_title(raw) is None
    assert text.derive_title("", "Foo") == "Foo"


def test_long_input() -> None:
    raw = ("We propose $\\alpha$-Net, **a model** with \\textit{many} parts. " * 200)[:10_000]
    assert len(raw) == 10_000
    start = time.perf_counter()
    out = text.clean(raw)
    assert time.perf_counter() - start < 1.0
    assert not RESIDUE.search(out)
    assert text.derive_title(raw, text.derive_name(raw))
    assert len(text.headline(raw)) <= 200


def test_unicode_emoji_cjk_input() -> None:
    raw = "ICML 2026 论文列表 🚀 — naïve café, μ-law, 東京 $\\beta$ “quotes” \ue010 stray private-use \U000f0001"
    out = text.clean(raw)
    assert "论文列表 🚀" in out
    assert "naïve café" in out
    assert "東京 β" in out
    assert "\ue010" not in out
    assert "\U000f0001" not in out
    for fn in (text.plain, text.headline, text.words, text.normalize_title, text.urls, text.name_from_title):
        fn(raw)
    text.derive_title(raw, text.derive_name(raw))


def test_urls() -> None:
    raw = (
        "Code: https://github.com/a/b_c). See \\url{https://x.io/p?q=1}. "
        "[here](https://huggingface.co/org/Model) and (https://example.com/x_(y)) or github.com/u/repo."
    )
    assert text.urls(raw) == [
        "https://github.com/a/b_c",
        "https://x.io/p?q=1",
        "https://huggingface.co/org/Model",
        "https://example.com/x_(y)",
        "https://github.com/u/repo",
    ]
    assert text.code_url("Project page: https://foo.github.io/bar/.") == "https://foo.github.io/bar/"
    assert text.code_url("see https://arxiv.org/abs/1 and https://gitlab.com/a/b,") == "https://gitlab.com/a/b"
    assert text.code_url("see https://arxiv.org/abs/1") is None
    # underscores, tildes and percents inside URLs survive the Markdown/LaTeX passes
    assert text.clean("at https://x.org/a_b_c/~u/%20d.") == "at https://x.org/a_b_c/~u/%20d."


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("StepCodeReasoner: Aligning Code Reasoning with Stepwise Execution Traces", "StepCodeReasoner"),
        ("TokSuite: Measuring the Impact of Tokenizer Choice", "TokSuite"),
        ("$E^2$PO: Embedding-perturbed Exploration Preference Optimization", "E²PO"),
        ("$\\texttt{FlashSchNet}$: Fast and Accurate Coarse-Grained MD", "FlashSchNet"),
        ("NaturalSpeech 3: Zero-Shot Speech Synthesis", "NaturalSpeech 3"),
        ("High Accuracy, Less Talk (HALT): Reliable LLMs", "HALT"),
        ("Beyond Accuracy: What Matters", None),
        ("On the Convergence of Adam: A Study", None),
        ("Position: Agents Should Be Audited", None),
        ("Survey: Large Language Models", None),
        ("Rethinking Attention: Less Is More", None),
        ("Reshaping Reasoning in LLMs: A Study", None),
        ("A Study Without Any Colon", None),
    ],
)
def test_name_from_title(title: str, expected: str | None) -> None:
    assert text.name_from_title(title) == expected


def test_derive_name_from_code_url_only() -> None:
    abstract = "We study caches. This paper presents a formal study of eviction. Code: https://github.com/u/FooKV."
    assert text.derive_name(abstract) == "FooKV"
    assert text.derive_name("We study caches and eviction.", "https://github.com/u/code") is None


def test_words_and_normalize_title() -> None:
    assert text.words("Verification-guided $\\mu$A for LLMs' KV-cache (2.81×), model's") == [
        "verification", "guided", "μa", "for", "llms", "kv", "cache", "2", "81", "model",
    ]  # fmt: skip
    assert text.normalize_title("$E^2$PO: Embedding-perturbed  Exploration!") == "e2po embedding perturbed exploration"
    assert text.normalize_title("E²PO — Embedding–Perturbed Exploration") == "e2po embedding perturbed exploration"
    assert text.normalize_title("Naïve **Bayes**") == text.normalize_title("naive bayes")


# ---------------------------------------------------------------------------------------------------------------
# The real conference list


@pytest.fixture(scope="module")
def icml2026() -> list[dict]:
    """Every record of the real ICML 2026 list (../shared/data), skipped when absent."""
    if ICML2026 is None:
        pytest.skip("icml2026.jsonl is not available")
    with ICML2026.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_clean_every_icml2026_title_and_abstract(icml2026: list[dict]) -> None:
    bad = []
    for rec in icml2026:
        for raw in (rec["title"], rec["abstract"]):
            for out in (text.clean(raw), text.plain(raw)):
                if "$" in out or "\\textit" in out or "**" in out or re.search(r"\\[A-Za-z]", out):
                    bad.append(out[:120])
    assert not bad, bad[:5]


def test_icml2026_derivations_do_not_crash(icml2026: list[dict]) -> None:
    for rec in icml2026[:1500]:
        abstract = rec["abstract"]
        name = text.derive_name(abstract, rec.get("code_url"))
        assert name is None or (name.strip() == name and 0 < len(name) <= 40)
        title = text.derive_title(abstract, name)
        assert title
        assert len(title) <= 90
        assert len(text.headline(abstract)) <= 200
        text.name_from_title(rec["title"])


def test_icml2026_real_titles(icml2026: list[dict]) -> None:
    by_title = {rec["title"]: rec for rec in icml2026}
    assert (
        text.name_from_title(
            "StepCodeReasoner: Aligning Code Reasoning with Stepwise Execution Traces via Reinforcement Learning"
        )
        == "StepCodeReasoner"
    )
    rec = by_title.get(
        "StepCodeReasoner: Aligning Code Reasoning with Stepwise Execution Traces via Reinforcement Learning"
    )
    if rec is not None:
        out = text.clean(rec["abstract"])
        assert "91.1% on CRUXEval" in out
        assert "Bi-Level GRPO, a reinforcement learning algorithm" in out
        assert text.derive_name(rec["abstract"]) == "StepCodeReasoner"
