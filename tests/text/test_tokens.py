"""Word tokens and title keys: the words every part of the bot compares."""

from __future__ import annotations

from bot import text


def test_tokenize_and_normalize_title() -> None:
    assert text.tokenize("Verification-guided $\\mu$A for LLMs' KV-cache (2.81×), model's") == [
        "verification", "guided", "μa", "for", "llms", "kv", "cache", "2", "81", "model",
    ]  # fmt: skip
    assert text.normalize_title("$E^2$PO: Embedding-perturbed  Exploration!") == "e2po embedding perturbed exploration"
    assert text.normalize_title("E²PO — Embedding–Perturbed Exploration") == "e2po embedding perturbed exploration"
    assert text.normalize_title("Naïve **Bayes**") == text.normalize_title("naive bayes")
