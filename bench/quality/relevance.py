"""Relevance of icml-bot search beside plain FTS5 bm25 baselines, on the labelled query sets in tests/relevance/.

Run: python -m bench relevance [--verbose]   (the ICML 2026 sets need ../shared/data/icml2026.jsonl)

Prints nDCG@10 per kind on the graded set (bench/quality/graded.py), and MRR and precision@5 per query set for
`bot.search.search` and, in the same run over the same index, for plain FTS5 bm25 queries (each word quoted):
OR-joined with every column weighted alike ("plain OR"), OR-joined with the index's title weight (as the bot's first
version did), and AND-joined.
Topic queries are judged by a per-query title regex; look-ups by the one paper they name; people by the share of
that person's papers in the top min(5, their count). tests/search/test_relevance.py imports this module and asserts
the targets.

The people set is drawn at run time (random.Random(PEOPLE_SEED)) from the ICML 2026 authors with at least three
papers, so nothing derived from ../shared is committed; every other person is held out. The multi-concept set
(tests/relevance/icml2026_multiconcept.tsv) was written before tuning for it, half held out; its "typo" rows are the
same queries with one dropped or swapped letter in the longest word (fixed seed), judged alike. Its "asked" rows
(and "topics asked") are the same queries wrapped in the ways researchers ask for papers in words
(tests/relevance/question_frames.tsv: "papers on {q}", "what's new in {q}?"), tune frames for the tune half and
held-out frames for the held-out half and the topics. The "blind set"
(tests/relevance/icml2026_multiconcept_blind.tsv) is a second multi-concept set, written by a helper agent that ran no
search and read none of this code, judged alike: a check that the first set, written by the people tuning the search,
does not flatter it (with typo rows made as the first set's). The "hyphenated terms slipped" set takes every
hyphenated term of letters in the ICML 2026 titles (every other one held out) with one slip (fixed seed per term: a
letter dropped or swapped, a part's first letter wrong, the hyphen one letter off or left out), judged by whether the
first result's title holds the term, hyphenated or not. The "1st letter" rows are the topics and multi-concept queries
with their longest word's first letter dropped or wrong (fixed seed per query), judged as the clean queries.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import ICML2026, WORD, baseline_and, baseline_or, baseline_plain, build
from bench.quality import graded
from bench.sets import (
    BLIND,
    HALVES,
    PEOPLE_SEED,
    SETS,
    Person,
    fold,
    graded_queries,
    multiconcept,
    name_forms,
    people,
    rows,
    seeds,
    titles,
    topics,
    typo,
    typo_query,
)
from bot import search
from bot.papers import index
from bot.search import query as ql
from bot.search.cache import index_cache
from bot.search.plan import QueryPlanner

Searcher = Callable[[Any, str], list[dict[str, Any]]]


def frames() -> list[tuple[str, str]]:
    """(frame with {q}, half): ways of asking for papers in words."""
    return [(frame, half) for frame, half in rows(SETS / "question_frames.tsv")]


def asked(queries: list[tuple[str, re.Pattern[str]]], half: str) -> list[tuple[str, re.Pattern[str]]]:
    """Each query wrapped in the next frame of `half`, in turn: the question a researcher would type for it."""
    wrapped = [frame for frame, h in frames() if h == half]
    return [(wrapped[i % len(wrapped)].replace("{q}", q), about) for i, (q, about) in enumerate(queries)]


SLIP_SEED = 31
_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")


def hyphenated(path: Path = ICML2026) -> list[tuple[str, str, str]]:
    """(term with one slip, term, half) for the hyphenated terms of letters in the ICML 2026 titles, every other one
    held out, each slipped as people slip typing such terms (a fixed seed per term)."""
    terms: set[str] = set()
    with path.open(encoding="utf-8") as f:
        for line in f:
            terms |= set(_HYPHENATED.findall(json.loads(line)["title"]))
    out = []
    for i, term in enumerate(sorted(terms)):
        slipped = slip(term, random.Random(f"{SLIP_SEED}:{term}"))
        if slipped.lower() != term.lower():
            out.append((slipped, term, HALVES[i % 2]))
    return out


def slip(term: str, rng: random.Random) -> str:
    """One slip in a hyphenated term: a letter dropped or swapped inside a part, a part's first letter wrong, the
    hyphen one letter off (selfp-lay) or left out (mixture-ofexperts)."""
    parts = term.split("-")
    kind, i, j = rng.randrange(4), rng.randrange(len(parts)), rng.randrange(len(parts) - 1)
    if kind == 0:
        parts[i] = typo(parts[i], rng)
    elif kind == 1 and len(parts[i]) >= 4:
        parts[i] = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != parts[i][0].lower()]) + parts[i][1:]
    elif kind == 2 and min(len(parts[j]), len(parts[j + 1])) >= 3:
        if rng.random() < 0.5:
            parts[j], parts[j + 1] = parts[j][:-1], parts[j][-1] + parts[j + 1]
        else:
            parts[j], parts[j + 1] = parts[j] + parts[j + 1][0], parts[j + 1][1:]
    elif kind == 3:
        parts[j : j + 2] = [parts[j] + parts[j + 1]]
    return "-".join(parts)


def first_letter_typo(query: str, seed: int = PEOPLE_SEED) -> str:
    """The query with its longest word's first letter dropped or wrong (a fixed seed per query): the slip the
    corrector long left alone, as it keeps a word's first letter."""
    words = query.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    rng = random.Random(f"{seed}:first:{query}")
    word = words[longest]
    if rng.random() < 0.5:
        words[longest] = word[1:]
    else:
        words[longest] = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != word[0].lower()]) + word[1:]
    return " ".join(words)


@dataclass(frozen=True)
class InitialFit:
    """How many ICML 2026 authors an initial and a surname fit, and whether the drawn person has the most papers
    of them (then an answer listing the most prolific first can be right without knowing whom you meant)."""

    fitting: int
    most: bool


def initial_fits(persons: list[Person], path: Path = ICML2026) -> dict[str, InitialFit]:
    """For each drawn person: the authors whose surname is theirs and whose given name starts with their initial."""
    papers: dict[tuple[str, ...], set[str]] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            for author in rec["authors"]:
                key = tuple(WORD.findall(fold(author).lower()))
                if len(key) >= 2:
                    papers.setdefault(key, set()).add(rec["id"])
    out = {}
    for person in persons:
        me = tuple(WORD.findall(fold(person.name).lower()))
        fit = [k for k in papers if k[-1] == me[-1] and k[0][0] == me[0][0]]
        mine = len(papers.get(me, ()))
        out[person.name] = InitialFit(len(fit), all(len(papers[k]) < mine for k in fit if k != me))
    return out


def judge_people(db: Any, searcher: Searcher, persons: list[Person], form: str) -> Score:
    """Share of each person's papers in the top min(5, their count) for one way of typing the name."""
    share = mrr = 0.0
    misses = []
    for person in persons:
        query = name_forms(person.name)[form]
        k = min(5, len(person.ids))
        got = [p.get("source_id") for p in searcher(db, query)[:5]]
        hits = [g in person.ids for g in got]
        share += sum(hits[:k]) / k
        mrr += next((1 / (i + 1) for i, h in enumerate(hits) if h), 0.0)
        if sum(hits[:k]) < k:
            misses.append(f"{query!r}: {sum(hits[:k])}/{k}")
    n = max(1, len(persons))
    return Score(mrr / n, share / n, misses)


def ours(db: Any, query: str) -> list[dict[str, Any]]:
    """The bot's search: top five papers."""
    return [dict[str, Any](r.paper) for r in search.search(db, query, limit=5).results]


@dataclass
class Score:
    """Mean reciprocal rank and precision@5 (for look-ups: hit@1) over one query set."""

    mrr: float
    p5: float
    misses: list[str]


def judge_topics(db: Any, searcher: Searcher, queries: list[tuple[str, re.Pattern[str]]]) -> Score:
    """Topic queries: a result is relevant when its title matches the query's regex."""
    mrr = p5 = 0.0
    misses = []
    for query, about in queries:
        found = searcher(db, query)
        hits = [bool(about.search(p["title"])) for p in found[:5]]
        p5 += sum(hits) / 5
        mrr += next((1 / (i + 1) for i, h in enumerate(hits) if h), 0.0)
        misses += [f"{query!r}: {p['title'][:80]}" for p, h in zip(found, hits, strict=False) if not h]
    n = max(1, len(queries))
    return Score(mrr / n, p5 / n, misses)


def judge_lookups(db: Any, searcher: Searcher, queries: list[tuple[str, str]], key: str) -> Score:
    """Look-ups: the named paper (by `key`: `id` or `source_id`) should be first; p5 holds hit@1."""
    return _judge_first(db, searcher, queries, lambda target, paper: paper.get(key) == target)


def judge_terms(db: Any, searcher: Searcher, queries: list[tuple[str, str]]) -> Score:
    """Slipped terms: the first result's title should hold the term, hyphenated or not; p5 holds hit@1."""
    return _judge_first(db, searcher, queries, lambda term, paper: _spaced(term) in _spaced(paper["title"]))


def _judge_first(
    db: Any, searcher: Searcher, queries: list[tuple[str, str]], wanted: Callable[[str, dict[str, Any]], bool]
) -> Score:
    """MRR and hit@1 (as p5) of the first paper of the top five that `wanted(target, paper)` accepts."""
    mrr = first = 0.0
    misses = []
    for query, target in queries:
        held = [wanted(target, p) for p in searcher(db, query)[:5]]
        rank = held.index(True) + 1 if True in held else None
        mrr += 1 / rank if rank else 0.0
        first += rank == 1
        if rank != 1:
            misses.append(f"{query!r} ({target}): rank {rank}")
    n = max(1, len(queries))
    return Score(mrr / n, first / n, misses)


def _spaced(text: str) -> str:
    """Lowercase words between spaces: the title Decision Making: ... holds decision-making."""
    return " " + " ".join(WORD.findall(text.lower())) + " "


SEARCHERS = (ours, baseline_plain, baseline_or, baseline_and)
# set, queries, ours, plain OR, title-weighted OR, AND
Row = tuple[str, int, Score, Score, Score, Score]
Queries = list[tuple[str, re.Pattern[str]]]


def _row(label: str, queries: int, scores: Iterable[Score]) -> Row:
    """A row of the table: the scores of the four SEARCHERS, in their order."""
    mine, plain, weighted, every = scores
    return (label, queries, mine, plain, weighted, every)


def run(seed_db: Any, full_db: Any | None, sets: str = "all") -> list[Row]:
    """(set name, queries, ours, plain OR, title-weighted OR, AND) for every set whose index is available;
    `sets`: "all", "old" (the sets from before issue 13) or "new" (people and multi-concept)."""
    out: list[Row] = []
    if sets != "new":
        s = seeds()
        out.append(_row("seeds (paper first)", len(s), (judge_lookups(seed_db, f, s, "id") for f in SEARCHERS)))
    if full_db is None:
        return out
    if sets != "new":
        t = topics()
        clean = [(q, rx) for q, _, rx in t]
        typo = [(tq, rx) for _, tq, rx in t]
        out.append(_row("ICML 2026 topics", len(t), (judge_topics(full_db, f, clean) for f in SEARCHERS)))
        out.append(_row("ICML 2026 topics, typo", len(t), (judge_topics(full_db, f, typo) for f in SEARCHERS)))
        first = [(first_letter_typo(q), rx) for q, _, rx in t]
        out.append(_row("ICML 2026 topics, 1st letter", len(t), (judge_topics(full_db, f, first) for f in SEARCHERS)))
        ti = titles()
        out.append(
            _row("ICML 2026 titles, typo", len(ti), (judge_lookups(full_db, f, ti, "source_id") for f in SEARCHERS))
        )
    if sets != "old":
        mc, blind = multiconcept(), multiconcept(BLIND)

        def typed(qs: Queries, _: str) -> Queries:
            return [(typo_query(q), rx) for q, rx in qs]

        def first_letter(qs: Queries, _: str) -> Queries:
            return [(first_letter_typo(q), rx) for q, rx in qs]

        def as_written(qs: Queries, _: str) -> Queries:
            return qs

        variants: list[tuple[str, list[tuple[str, str, re.Pattern[str]]], Callable[[Queries, str], Queries]]] = [
            ("multi-concept", mc, as_written),
            ("multi-concept typo", mc, typed),
            ("multi-concept 1st letter", mc, first_letter),
            # Tune frames for the tune half, held-out ones for the other
            ("multi-concept asked", mc, asked),
            ("multi-concept blind set", blind, as_written),
            ("multi-concept blind typo", blind, typed),
        ]
        for name, rows, make in variants:
            for half in HALVES:
                qs = make([(q, rx) for q, h, rx in rows if h == half], half)
                out.append(_row(f"{name}, {half}", len(qs), (judge_topics(full_db, f, qs) for f in SEARCHERS)))
        slipped = hyphenated()
        for half in HALVES:
            pairs = [(q, term) for q, term, h in slipped if h == half]
            label = f"hyphenated terms slipped, {half}"
            out.append(_row(label, len(pairs), (judge_terms(full_db, f, pairs) for f in SEARCHERS)))
        qs = asked([(q, rx) for q, _, rx in topics()], "held-out")
        out.append(_row("topics asked, held-out frames", len(qs), (judge_topics(full_db, f, qs) for f in SEARCHERS)))
        persons = people()
        for form in name_forms("A B"):
            for half in HALVES:
                ps = [p for p in persons if p.half == half]
                label = f"people {form}, {half}"
                out.append(_row(label, len(ps), (judge_people(full_db, f, ps, form) for f in SEARCHERS)))
        fits = initial_fits(persons)
        # The initial form where it names one person: what is left when nothing is ambiguous
        for half in HALVES:
            ps = [p for p in persons if p.half == half and fits[p.name].fitting == 1]
            label = f"people initial, one fits, {half}"
            out.append(_row(label, len(ps), (judge_people(full_db, f, ps, "initial") for f in SEARCHERS)))
    return out


def initial_ceiling(persons: list[Person]) -> str:
    """Per half, how many drawn people their initial and surname name alone, and how many have the most papers of
    those it fits: the ceilings of the initial rows for an answer certain of the person, and for one that lists the
    most prolific first."""
    fits = initial_fits(persons)
    parts = []
    for half in HALVES:
        ps = [p for p in persons if p.half == half]
        one = sum(fits[p.name].fitting == 1 for p in ps)
        most = sum(fits[p.name].most for p in ps)
        parts.append(
            f"{half}: one author fits for {one}/{len(ps)} ({one / len(ps):.3f}), the most papers of those who fit"
            f" for {most}/{len(ps)} ({most / len(ps):.3f})"
        )
    return "people initial, ceilings (initial + surname, ICML 2026 authors): " + "; ".join(parts)


def multiconcept_ceilings(db: Any, set_file: str = "icml2026_multiconcept.tsv") -> dict[str, dict[str, float]]:
    """Per half, the best P@5 a ranker could reach if it ranked the papers its judge accepts first (the mean of
    min(5, such papers) / 5), among all papers, papers holding a word (or acronym, or spelling) of each of the
    query's ideas, and papers holding every query word. A ranker of query words puts papers about every idea first,
    so the middle figure is the most it can take from those; below 1.0, some query has fewer than five."""
    titles = dict(db.execute("SELECT rowid, title FROM papers").fetchall())
    cache = index_cache(db)
    out: dict[str, dict[str, float]] = {}
    for half in HALVES:
        sums = dict.fromkeys(("all papers", "papers holding a word of every idea", "papers holding every word"), 0.0)
        queries = [(q, rx) for q, h, rx in multiconcept(set_file) if h == half]
        for query, about in queries:
            accepted = {rowid for rowid, title in titles.items() if about.search(title)}
            plan = QueryPlanner(db, cache, ql.parse(query)).build()
            ideas: dict[int, list[str]] = {}
            for group in plan.groups:
                ideas.setdefault(group.concept, []).append(group.expression())
            each_idea = " AND ".join("(" + " OR ".join(parts) + ")" for parts in ideas.values())
            every_word = " AND ".join(g.expression() for g in plan.groups)
            sql = "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?"
            among = [set(titles)] + [{rowid for (rowid,) in db.execute(sql, [e])} for e in (each_idea, every_word)]
            for name, papers in zip(sums, among, strict=True):
                sums[name] += min(5, len(accepted & papers)) / 5
        out[half] = {name: total / max(1, len(queries)) for name, total in sums.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verbose", action="store_true", help="list the results judged not relevant")
    parser.add_argument("--sets", choices=("all", "old", "new"), default="all", help="which query sets to run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        seed_db = index.connect(build(Path(tmp) / "seeds.db", []), readonly=True)
        full_db = index.connect(build(Path(tmp) / "full.db", [ICML2026]), readonly=True) if ICML2026.exists() else None
        if full_db is None:
            print(f"({ICML2026} not found: only the seed set)")
        rows = run(seed_db, full_db, args.sets)
        graded_lines = []
        # The graded set (bench/quality/graded.py), over the same index
        if full_db is not None and args.sets != "old":
            qs = graded_queries()
            graded_lines = graded.table(graded.runs(full_db, qs, graded.stored_encoder()), qs, graded.judgments())
        ceilings = {}
        if full_db is not None and args.sets != "old":
            for label, name in (("multi-concept", "icml2026_multiconcept.tsv"), ("multi-concept blind set", BLIND)):
                for half, by_set in multiconcept_ceilings(full_db, name).items():
                    ceilings[f"{label}, {half}"] = by_set
    print(
        f"{'query set':34} {'n':>4}  {'MRR':>6} {'P@5':>6}  {'plain OR':>8} {'P@5':>6}  "
        f"{'title OR':>8} {'P@5':>6}  {'bm25 AND':>8} {'P@5':>6}"
    )
    for name, n, mine, plain, base_or, base_and in rows:
        print(
            f"{name:34} {n:>4}  {mine.mrr:6.3f} {mine.p5:6.3f}  {plain.mrr:8.3f} {plain.p5:6.3f}  "
            f"{base_or.mrr:8.3f} {base_or.p5:6.3f}  {base_and.mrr:8.3f} {base_and.p5:6.3f}"
        )
    print(
        "P@5 = share of the top five whose title is about the topic; for look-up sets it is hit@1 (paper first; for"
        " slipped terms, a title holding the term first); for"
        " people, the share of the person's papers in the top min(5, their count). plain OR: FTS5 bm25, columns"
        " alike; title OR: bm25 with the index's title weight; both every word quoted."
    )
    if full_db is not None and args.sets != "old":
        print(initial_ceiling(people()))
    for label, by_set in ceilings.items():
        print(
            f"{label}: best P@5 if the judged-relevant papers came first, among "
            + "; ".join(f"{name} {value:.3f}" for name, value in by_set.items())
        )
    if graded_lines:
        print("graded set, nDCG@10 (bench/quality/graded.py; MiniLM from its stored top 10s):")
        print("\n".join(graded_lines))
    by = {name: mine for name, _, mine, _, _, _ in rows}
    if "ICML 2026 topics" in by:
        print(
            f"typo'd topic queries keep {by['ICML 2026 topics, typo'].p5 / max(by['ICML 2026 topics'].p5, 1e-9):.0%}"
            " of the clean queries' precision@5"
        )
    if args.verbose:
        for name, _, mine, _, _, _ in rows:
            for miss in mine.misses:
                print(f"  [{name}] {miss}")


if __name__ == "__main__":
    main()
