"""A team index (the bundled seeds, hostile papers and 200 plain ones, built by the production loader) and a state."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.papers import index
from bot.search.reader import Papers
from bot.state import State
from tests.support.paths import SEEDS

# Titles and authors that try to break BibTeX, CSV and Markdown. The loader cleans LaTeX out of titles (braces,
# `$`, backslashes go), so what the index keeps of each is asserted in test_hostile_papers_as_the_index_keeps_them.
HOSTILE: list[dict[str, Any]] = [
    {
        "id": "hostile01",
        "conference": "ICML",
        "year": 2026,
        "title": "Attention & Friends: 100% of $5 for #1 a_b ~c ^d \\e {x}",
        "authors": ["Łukasz Kaiser", "José García-López", "Smith, Jr.", "Bob and Alice Co"],
        "abstract": "We test special characters in exports of paper lists to reference managers and spreadsheets.",
        "status": "Poster",
        "url": "https://openreview.net/forum?id=hostile_01",
    },
    {
        "id": "hostile02",
        "conference": "ICML",
        "year": 2026,
        "title": "TokSuite: Measuring Tokenizer Robustness in LLMs",
        "authors": ["Jane Smith", "Ada Lovelace"],
        "abstract": "A suite of tokenizer robustness tests for large language models across scripts.",
        "status": "Oral",
        "url": "https://openreview.net/forum?id=hostile_02",
        "pdf_url": "https://openreview.net/pdf?id=hostile_02",
        "code_url": "https://github.com/example/toksuite",
    },
    {
        "id": "hostile03",
        "conference": "ICML",
        "year": 2026,
        "title": "TokSuite Revisited: Tokenizers under Noise",
        "authors": ["Jane Smith"],
        "abstract": "Revisiting tokenizer robustness under character noise, with new scripts and noise models.",
        "status": "Poster",
    },
    {
        "id": "hostile04",
        "conference": "ICML",
        "year": 2026,
        "title": "A } strange { title",
        "authors": ["张伟", "Zoë Ørsted"],
        "abstract": "A paper whose title holds unbalanced braces to check that BibTeX files stay readable.",
        "status": "Spotlight",
    },
    {
        "id": "hostile05",
        "conference": "ICML",
        "year": 2026,
        "title": "=1+1 Is Not a Formula",
        "authors": ["@mention Person", "-Dash Name"],
        "abstract": "Spreadsheet cells that start with an equals sign must not run as formulas when opened.",
        "url": "javascript:alert(1)",
        "code_url": "https://github.com/example/zebra>|x",
    },
    {
        "id": "hostile06",
        "conference": "ICML",
        "year": 2026,
        "track": "workshop",
        "session": "Workshop on Mechanistic Interpretability",
        "title": "Circuits in the Wild",
        "authors": ["ʻŌiwi Parker Jones"],
        "abstract": "Workshop paper about finding circuits in deployed models through interpretability tools.",
    },
    {
        "id": "hostile07",
        "conference": "ICLR",
        "year": 2026,
        "title": "The Role of Depth in Transformers",
        "authors": ["Jürgen Schmidhuber"],
        "abstract": "How depth matters for transformers, measured across many widths and datasets.",
    },
]
PLAIN_COUNT = 200


def plain_paper(n: int) -> dict[str, object]:
    """One of 200 ordinary papers, so long lists hold real papers."""
    return {
        "id": f"plain{n:03d}",
        "conference": "ICML",
        "year": 2026,
        "title": f"Ordinary Paper Number {n} on Topic {n % 7}",
        "authors": [f"Author{n} Person", "Common Coauthor"],
        "abstract": f"An ordinary abstract for paper {n} about subject {n % 7}, long enough to be indexed.",
        "status": "Poster",
        "url": f"https://openreview.net/forum?id=plain{n:03d}",
    }


@pytest.fixture(scope="session")
def team_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds, the hostile papers and 200 plain ones, loaded by the production loader once per run."""
    folder = tmp_path_factory.mktemp("team-index")
    extra = folder / "team.jsonl"
    records = [*HOSTILE, *(plain_paper(n) for n in range(PLAIN_COUNT))]
    extra.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    path = folder / "papers.db"
    db = index.connect(path)
    index.load(db, [SEEDS, extra])
    db.conn.close()
    return path


@pytest.fixture
def papers(team_index_path: Path) -> Papers:
    """Read access to the team index."""
    return Papers(team_index_path)


@pytest.fixture
def state(state_target: Path | str) -> Iterator[State]:
    """A fresh state database, migrated by the production code: an SQLite file, then a PostgreSQL database."""
    opened = State(state_target)
    yield opened
    opened.close()


def paper_id(papers: Papers, source_id: str) -> str:
    """The index's id of a paper loaded from the JSONL above (found by its OpenReview-style id)."""
    paper = papers.get(source_id)
    assert paper is not None, source_id
    return str(paper["id"])
