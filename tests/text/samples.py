"""Where the seed abstracts and the real ICML 2026 list are, and helpers the bot.text tests share."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SEED_CANDIDATES = (ROOT / "seeds" / "icml2026_abstracts.txt", Path("/work/shared/seeds/icml2026_abstracts.txt"))
SEED_FILE = next((p for p in _SEED_CANDIDATES if p.exists()), None)
_DATA_CANDIDATES = (ROOT.parent / "shared" / "data" / "icml2026.jsonl", Path("/work/shared/data/icml2026.jsonl"))
ICML2026 = next((p for p in _DATA_CANDIDATES if p.exists()), None)

# LaTeX or Markdown that cleanup must never leave behind.
RESIDUE = re.compile(r"\$|\\times|\*\*|\\textit|\\emph|\\url|\\[A-Za-z]")


def seed_with(seeds: list[str], phrase: str) -> str:
    """The one seed abstract containing `phrase`."""
    found = [p for p in seeds if phrase in p]
    assert len(found) == 1, phrase
    return found[0]
