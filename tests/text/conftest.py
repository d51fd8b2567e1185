"""Fixtures for the bot.text tests: the 19 seed abstracts and, when ../shared is present, the real ICML 2026 list."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.text.samples import ICML2026, SEED_FILE


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


@pytest.fixture(scope="module")
def icml2026() -> list[dict[str, Any]]:
    """Every record of the real ICML 2026 list (../shared/data), skipped when absent."""
    if ICML2026 is None:
        pytest.skip("icml2026.jsonl is not available")
    with ICML2026.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
