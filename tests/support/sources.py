"""Paper sources generated from the bundled seeds, large enough to be cleaned by the worker processes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.paths import ROOT, SEED_FILE

__all__ = ["ROBUST_OR_ROBUSTNESS", "ROOT", "WEATHER_OR_WHETHER", "large_jsonl", "seed_abstracts"]


def _papers(rows: list[tuple[str, str, str]]) -> list[dict[str, str]]:
    return [{"id": paper_id, "title": title, "abstract": abstract} for paper_id, title, abstract in rows]


# `wheather` is one edit from whether (five papers use it) and from weather (two, beside forecasting, storm and radar;
# forecasting is in a third, storm in the two, radar in one); twenty more papers make those words rare enough to tell.
WEATHER_OR_WHETHER = _papers(
    [
        ("W0", "Weather Forecasting 0", "A weather forecasting model with storm radar data."),
        ("W1", "Weather Forecasting 1", "A weather forecasting model for storm tracks."),
        ("F0", "Sales Forecasting", "Forecasting sales from receipts."),
        *[(f"H{i}", f"Does Size Matter {i}", f"We ask whether scale matters, case {i}.") for i in range(5)],
        *[(f"X{i}", f"Unrelated Study {i}", f"An unrelated study of topic {i}.") for i in range(20)],
    ]
)


# `robustness of graph neural networks`: R's title says Robust, C's abstract says robustness in passing; six fillers
# make graph, neural and networks rare enough to weigh.
ROBUST_OR_ROBUSTNESS = _papers(
    [
        ("R", "Robust Training of Graph Neural Networks", "We make graph neural networks more robust to edge attacks."),
        ("C", "Graph Neural Networks for Chemistry", "Graph neural networks for molecules; robustness is future work."),
        *[(f"F{i}", f"Protein Folding Study {i}", f"Protein structure, case {i}.") for i in range(6)],
    ]
)


def seed_abstracts() -> list[str]:
    """The bundled abstracts, one string each (the header line dropped)."""
    paragraphs = SEED_FILE.read_text(encoding="utf-8").split("\n\n")
    return [" ".join(p.split()) for p in paragraphs if len(p) > 200]


def large_jsonl(path: Path, papers: int = 4000) -> Path:
    """A JSON Lines list of `papers` distinct titled papers (~1.3 KB each) built from the seed abstracts."""
    abstracts = seed_abstracts()
    with path.open("w", encoding="utf-8") as fh:
        for n in range(papers):
            abstract = f"Study {n} of {papers} revisits $O(n^{n % 7})$ cases. {abstracts[n % len(abstracts)]}"
            record = {
                "id": f"gen{n}",
                "title": f"Generated paper {n}: {abstracts[n % len(abstracts)][:60]}",
                "abstract": abstract,
                "authors": [f"Author {n}", f"Author {n + 1}"],
                "year": 2026,
            }
            fh.write(json.dumps(record) + "\n")
    return path
