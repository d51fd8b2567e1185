"""The labelled query sets of tests/relevance/ and the query variants drawn from them, for every kind of benchmark.

The quality benchmarks judge searches on them; the speed benchmarks time the same queries.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from bench.common import ICML2026, ROOT

SETS = ROOT / "tests" / "relevance"
GRADED_QUERIES = SETS / "graded_queries.tsv"


def rows(path: Path) -> list[list[str]]:
    """A set file's rows, split on tabs: without its # comments and its header."""
    lines = [line.rstrip("\n") for line in path.read_text(encoding="utf-8").splitlines()]
    table = [line.split("\t") for line in lines if line and not line.startswith("#")]
    return table[1:]  # the header


def topics() -> list[tuple[str, str, re.Pattern[str]]]:
    """(clean query, typo query, title regex) for the ICML 2026 topic set."""
    return [(q, t, re.compile(rx, re.IGNORECASE)) for q, t, rx in rows(SETS / "icml2026_topics.tsv")]


def titles() -> list[tuple[str, str]]:
    """(query, OpenReview id) title look-ups with a typo."""
    return [(q, oid) for q, oid, _ in rows(SETS / "icml2026_titles.tsv")]


def seeds() -> list[tuple[str, str]]:
    """(query, bot paper id) for the 19 seed abstracts."""
    return [(q, pid) for q, pid, _ in rows(SETS / "seeds.tsv")]


PEOPLE_SEED = 13
PEOPLE = 80  # drawn; every other one held out
HALVES = ("tune", "held-out")


def multiconcept(name: str = "icml2026_multiconcept.tsv") -> list[tuple[str, str, re.Pattern[str]]]:
    """(query, half, title regex) for the ICML 2026 multi-concept set (or the second one, written blind: BLIND)."""
    return [(q, h, re.compile(rx, re.IGNORECASE)) for q, h, rx in rows(SETS / name)]


BLIND = "icml2026_multiconcept_blind.tsv"


@dataclass(frozen=True)
class Person:
    """An author drawn for the people set: the name as listed, their papers' ids, and which half they are in."""

    name: str
    ids: frozenset[str]
    half: str


def people(path: Path = ICML2026, n: int = PEOPLE, seed: int = PEOPLE_SEED) -> list[Person]:
    """Random ICML 2026 authors (fixed seed) with at least three papers; every other one held out."""
    papers: dict[str, set[str]] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            for author in rec["authors"]:
                papers.setdefault(author, set()).add(rec["id"])
    eligible = sorted(a for a, ids in papers.items() if len(ids) >= 3 and len(a.split()) >= 2)
    drawn = random.Random(seed).sample(eligible, n)
    return [Person(a, frozenset(papers[a]), HALVES[i % 2]) for i, a in enumerate(drawn)]


def fold(text: str) -> str:
    """The text without diacritics (Müller: Muller), as people type names."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def typo(word: str, rng: random.Random) -> str:
    """One realistic edit inside a word of five letters or more (a dropped or swapped letter), else the word."""
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 2)
    if rng.random() < 0.5:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def typo_query(query: str, seed: int = PEOPLE_SEED) -> str:
    """The query with one typo in its longest word (a fixed seed per query): correction inside longer questions."""
    words = query.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    words[longest] = typo(words[longest], random.Random(f"{seed}:{query}"))
    return " ".join(words)


def name_forms(name: str, seed: int = PEOPLE_SEED) -> dict[str, str]:
    """The ways people type a name: as listed, surname first, `Surname, First`, an initial, without diacritics,
    with one typo in the surname, and the surname alone (which names one person only when few share it)."""
    parts = name.split()
    first, last = parts[0], parts[-1]
    rng = random.Random(f"{seed}:{name}")
    return {
        "as listed": name,
        "surname first": f"{last} {' '.join(parts[:-1])}",
        "Surname, First": f"{last}, {' '.join(parts[:-1])}",
        "initial": f"{first[0]}. {last}",
        "no diacritics": fold(name),
        "typo": " ".join([*parts[:-1], typo(last, rng)]),
        "surname alone": last,
    }


@dataclass(frozen=True)
class GradedQuery:
    """A query of the graded set (bench/quality/graded.py): its kind, its half and what the writer meant by it."""

    text: str
    kind: str
    half: str
    intent: str


def graded_queries() -> list[GradedQuery]:
    """The graded queries, in file order."""
    return [GradedQuery(*row) for row in rows(GRADED_QUERIES)]
