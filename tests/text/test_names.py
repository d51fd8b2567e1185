"""Names a paper introduces, from its abstract, code link or title."""

from __future__ import annotations

from typing import Any

import pytest

from bot import text
from tests.support.marks import mrkdwn
from tests.text.samples import seed_with

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


def test_seed_names(seeds: list[str]) -> None:
    got = {
        phrase: text.derive_name(seed_with(seeds, phrase), text.code_url(seed_with(seeds, phrase)))
        for phrase in EXPECTED_NAMES
    }
    assert got == EXPECTED_NAMES


def test_seed_names_never_junk(seeds: list[str]) -> None:
    names = {text.derive_name(p, text.code_url(p)) for p in seeds}
    assert not names & {"LoRA", "LLMs", "LLM", "UQ", "GRPO", "MoE", "CoT", "QAF", "KV", "SCM-inspired"}


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


def test_icml2026_real_titles(icml2026: list[dict[str, Any]]) -> None:
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
        out = mrkdwn(rec["abstract"])
        assert "91.1% on CRUXEval" in out
        assert "Bi-Level GRPO, a reinforcement learning algorithm" in out
        assert text.derive_name(rec["abstract"]) == "StepCodeReasoner"
