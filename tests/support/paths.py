"""Where the repository, the bundled seeds and the optional ../shared data are, and a skip for when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "seeds"
SEED_FILE = SEEDS / "icml2026_abstracts.txt"
SHARED = ROOT.parent / "shared"
ICML2026 = SHARED / "data" / "icml2026.jsonl"


SHARED_DATA_MISSING = "../shared/data/icml2026.jsonl is not available"  # (tests/support/slow.py marks these slow)


def needs_shared_data() -> pytest.MarkDecorator:
    """Skip cleanly when ../shared/data (not part of the repo) is absent."""
    return pytest.mark.skipif(not ICML2026.exists(), reason=SHARED_DATA_MISSING)
