"""PDF hyphenation repair on the seed abstracts."""

from __future__ import annotations

from tests.support.marks import mrkdwn
from tests.text.samples import seed_with


def test_seed_hyphenation_repaired(seeds: list[str]) -> None:
    causci = mrkdwn(seed_with(seeds, "causal relationships from data"))
    assert "seminal datasets" in causci
    assert "sem- inal" not in causci
    assert "on causality-driven research questions" in causci
    knapsack = mrkdwn(seed_with(seeds, "rollout-generation jobs"))
    assert "a compute-constrained resource allocation task" in knapsack
    assert "computeconstrained" not in knapsack
