"""Titles and headlines derived from abstracts for papers without a title."""

from __future__ import annotations

from typing import Any

from bot import text
from tests.text.samples import RESIDUE, seed_with


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
    assert titles[seed_with(seeds, "verification-guided sparse attention")] == (
        "Vegas: A self-speculative decoding method with verification-guided sparse attention"
    )
    assert titles[seed_with(seeds, "Tokenizers provide the fundamental basis")].startswith(
        "TokSuite: A collection of models and a benchmark that supports research into"
    )
    assert (
        titles[seed_with(seeds, "Direct alignment methods")]
        == "RACO: A Reward-free Alignment framework for Conflicted Objectives"
    )
    assert titles[seed_with(seeds, "quantization-aware fine-tuning (QAF)")] == (
        "ExSQF: Explicit-Safety Quantization-Aware Fine-tuning"
    )
    assert titles[seed_with(seeds, "Low-Rank Adaptation (LoRA)")] == "μA: Maximal-Update Adaptation"
    assert titles[seed_with(seeds, "Sparse Mixture-of-Experts")] == (
        "SoftMoE: Replacing discrete routing with a truncated soft top-k LapSum relaxation"
    )
    assert titles[seed_with(seeds, "distributional reasoning")].startswith(
        "A multi-answer reinforcement learning approach for training LMs to perform"
    )
    assert titles[seed_with(seeds, "keystone neurons")] == (
        "A supervised fine-tuning approach that updates only keystone neurons"
    )


def test_seed_headlines(seeds: list[str]) -> None:
    for p in seeds:
        h = text.headline(p)
        assert h
        assert len(h) <= 200
        assert "\n" not in h
        assert not RESIDUE.search(h)
    assert text.headline(seed_with(seeds, "verification-guided sparse attention")) == (
        "We propose Vegas, a self-speculative decoding method with verification-guided sparse attention."
    )
    assert text.headline(seed_with(seeds, "distributional reasoning")) == (
        "This paper describes a multi-answer reinforcement learning approach for training LMs to perform "
        "distributional reasoning over multiple answers during inference."
    )
    assert text.headline(seed_with(seeds, "attention output perturbation")) == (
        "This paper presents a formal study on identifying critical KV cache entries by analyzing attention output "
        "perturbation."
    )
    assert text.headline(seed_with(seeds, "Multi-Hop Fact Verification")).startswith(
        "We introduce an SCM-inspired framework that grounds reasoning in explicit directed dependency graphs"
    )


def test_icml2026_derivations_do_not_crash(icml2026: list[dict[str, Any]]) -> None:
    for rec in icml2026[:1500]:
        abstract = rec["abstract"]
        name = text.derive_name(abstract, rec.get("code_url"))
        assert name is None or (name.strip() == name and 0 < len(name) <= 40)
        title = text.derive_title(abstract, name)
        assert title
        assert len(title) <= 90
        assert len(text.headline(abstract)) <= 200
        text.name_from_title(rec["title"])
