"""The cleanup pipeline end to end: raw seed and real abstracts as Slack mrkdwn and plain text."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from bot import text
from bot.papers.corpus import make_paper
from tests.support.marks import mrkdwn
from tests.text.samples import RESIDUE, seed_with


def test_seed_cleanup_leaves_no_markup_residue(seeds: list[str]) -> None:
    for p in seeds:
        for out in (mrkdwn(p), text.to_plain_text(p)):
            assert not RESIDUE.search(out), RESIDUE.search(out)
            assert "\\" not in out
            assert "  " not in out


def test_seed_latex_and_markdown(seeds: list[str]) -> None:
    vegas = mrkdwn(seed_with(seeds, "verification-guided sparse attention"))
    assert "1.25×–2.81×" in vegas
    assert "1.15×–1.29×" in vegas
    mua = mrkdwn(seed_with(seeds, "Low-Rank Adaptation (LoRA)"))
    assert "_Maximal-Update Adaptation_ (μA)" in mua
    assert "_how the optimal learning rate scales with adapter rank_" in mua
    defensive = mrkdwn(seed_with(seeds, "attention output perturbation"))
    assert "more than _half_ on average" in defensive
    assert defensive.endswith("available at https://github.com/FFY0/DefensiveKV.")
    raco = mrkdwn(seed_with(seeds, "Direct alignment methods"))
    assert "a Reward-free Alignment framework for Conflicted Objectives (RACO)" in raco
    viewmask = mrkdwn(seed_with(seeds, "discrete diffusion's success"))
    assert "We introduce *ViewMask-1-to-3*, formulating" in viewmask
    soft = mrkdwn(seed_with(seeds, "Sparse Mixture-of-Experts"))
    assert "top-k routing" in soft
    assert soft.endswith("publicly available†.")
    hide = mrkdwn(seed_with(seeds, "high-resolution images"))
    assert "rely on “zoom-in” strategies" in hide
    assert "reaching 92.1% and 91.6%" in hide
    scm = mrkdwn(seed_with(seeds, "Multi-Hop Fact Verification"))
    assert "an “inverted U-shaped” correlation" in scm
    assert "Large Language Models, which" in scm  # stray space before the comma removed
    tokenswap = mrkdwn(seed_with(seeds, "backdoor attacks"))
    assert "the _compositional understanding_ capabilities" in tokenswap
    uq = mrkdwn(seed_with(seeds, "uncertainty quantification (UQ)"))
    assert "The first, _simulatability_, posits" in uq
    assert "_intrinsic dimensionality_ as a quantitative" in mrkdwn(seed_with(seeds, "intrinsic dimensionality"))


def test_seed_plain_text_has_no_emphasis(seeds: list[str]) -> None:
    assert "more than half on average" in text.to_plain_text(seed_with(seeds, "attention output perturbation"))
    assert "We introduce ViewMask-1-to-3, formulating" in text.to_plain_text(
        seed_with(seeds, "discrete diffusion's success")
    )
    for p in seeds:
        assert not re.search(r"(?<!\w)[*_]\w|\w[*_](?!\w)", text.to_plain_text(p))


def test_paragraphs_and_whitespace() -> None:
    assert mrkdwn("  first   para\nwraps here.\n\n\n  second\tpara  ") == "first para wraps here.\n\nsecond para"


def test_empty_and_whitespace_input() -> None:
    for raw in ("", "   ", "\n\n\t"):
        assert mrkdwn(raw) == ""
        assert text.to_plain_text(raw) == ""
        assert text.urls(raw) == []
        assert text.code_url(raw) is None
        assert text.derive_name(raw) is None
        assert text.derive_title(raw, None) == "Untitled paper"
        assert text.headline(raw) == ""
        assert text.tokenize(raw) == []
        assert text.normalize_title(raw) == ""
        assert text.name_from_title(raw) is None
    assert text.derive_title("", "Foo") == "Foo"


def test_long_input() -> None:
    raw = ("We propose $\\alpha$-Net, **a model** with \\textit{many} parts. " * 200)[:10_000]
    assert len(raw) == 10_000
    start = time.perf_counter()
    out = mrkdwn(raw)
    assert time.perf_counter() - start < 1.0
    assert not RESIDUE.search(out)
    assert text.derive_title(raw, text.derive_name(raw))
    assert len(text.headline(raw)) <= 200


@pytest.mark.parametrize("unit", ["\\", "`", "\\(", "\\[", "*_", "_*", "``{", "[a](\\", "}`"])
def test_a_long_run_of_broken_markup_is_cleaned_in_one_pass(unit: str) -> None:
    """40,000 characters of a markup piece repeated without its closing half (a garbled field) once took each regex
    that looked for the closing half from every opening to the end of the text: minutes for one paper, growing with
    the square of its length (docs/benchmarks.md). The bound only tells such a hang from one pass."""
    raw = (unit * 40_000)[:40_000]
    start = time.perf_counter()
    paper = make_paper({"abstract": raw, "title": raw[:5_000]}, "broken.jsonl", 1)
    assert time.perf_counter() - start < 5.0
    assert "\\" not in paper.abstract


def test_unicode_emoji_cjk_input() -> None:
    raw = "ICML 2026 论文列表 🚀 — naïve café, μ-law, 東京 $\\beta$ “quotes” \ue010 stray private-use \U000f0001"
    out = mrkdwn(raw)
    assert "论文列表 🚀" in out
    assert "naïve café" in out
    assert "東京 β" in out
    assert "\ue010" not in out
    assert "\U000f0001" not in out
    for fn in (text.to_plain_text, text.headline, text.tokenize, text.normalize_title, text.urls, text.name_from_title):
        fn(raw)
    text.derive_title(raw, text.derive_name(raw))


def test_cleanup_of_every_icml2026_title_and_abstract(icml2026: list[dict[str, Any]]) -> None:
    bad = []
    for rec in icml2026:
        for raw in (rec["title"], rec["abstract"]):
            for out in (mrkdwn(raw), text.to_plain_text(raw)):
                if "$" in out or "\\textit" in out or "**" in out or re.search(r"\\[A-Za-z]", out):
                    bad.append(out[:120])
    assert not bad, bad[:5]
