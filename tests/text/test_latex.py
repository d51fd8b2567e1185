"""LaTeX in titles and abstracts: math, commands, accents and escapes as readable Unicode."""

from __future__ import annotations

import pytest

from tests.support.marks import mrkdwn


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
        ("costs \\$30 only", "costs USD 30 only"),
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
def test_latex_cases(raw: str, expected: str) -> None:
    assert mrkdwn(raw) == expected
