"""Hostile sources at `icml-bot index`: an oversized record is cut (and the load says which and where), control and
bidi characters never reach the index, malformed numbers and nesting are one line with exit 2, a list cannot claim
precedence, titles of no words are no identity, and links that disguise where they go are refused."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.papers import corpus, index
from bot.papers.corpus import Paper
from tests.support.sources import seed_abstracts

ABSTRACT = (
    "We study speculative decoding for large language models: a small draft model proposes tokens that the large "
    "model verifies in one pass, which keeps the output exact while cutting the time per token."
)
# Every character the index must not keep: ESC (with a screen clear), BEL, NUL, DEL, C1 (CSI, NEL), bidi
# overrides, embeddings, isolates and marks, an interlinear annotation, invisible tag characters.
CONTROLS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufff9-\ufffb\U000e0000-\U000e007f]"
)


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def index_cli(capsys: pytest.CaptureFixture[str], db: Path, *paths: Path) -> tuple[int, str, str]:
    code = main(["index", *map(str, paths), "--db", str(db)])
    out, err = capsys.readouterr()
    return code, out, err


def rows(db: Path) -> list[dict[str, Any]]:
    conn = index.connect(db, readonly=True)
    try:
        return [dict[str, Any](index.decode(row)) for row in conn.query("SELECT * FROM papers ORDER BY seq")]
    finally:
        conn.conn.close()


# ---------------------------------------------------------------------- one oversized record


def test_a_record_of_megabytes_is_cut_at_indexing_and_the_load_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ~5.4 MB
    huge = " ".join(f"Speculative decoding sentence {n} keeps the cache warm." for n in range(100_000))
    records = [
        {"id": "ok1", "title": "Plain Paper", "abstract": ABSTRACT, "authors": ["Ada Lovelace"]},
        {
            "id": "big1",
            "title": "Huge " * 2_000,
            "abstract": huge,
            "authors": [f"Author {n}" for n in range(5_000)],
            "url": "https://openreview.net/forum?id=big1&" + "x" * 5_000,
            "session": "Poster Session 1 " * 500,
        },
    ]
    source = write_jsonl(tmp_path / "list.jsonl", records)
    code, out, err = index_cli(capsys, tmp_path / "papers.db", source)
    assert (code, err) == (0, "")
    assert "Indexed 2 papers" in out
    notes = [line for line in out.splitlines() if line.startswith("  note")]
    assert notes == [
        "  note 1: `abstract` longer than 20,000 characters: cut there (first at list.jsonl:2)",
        "  note 1: `authors` has more than 1,000 entries: the rest left out (first at list.jsonl:2)",
        "  note 1: `session` longer than 1,000 characters: cut there (first at list.jsonl:2)",
        "  note 1: `title` longer than 1,000 characters: cut there (first at list.jsonl:2)",
        "  note 1: `url` longer than 3,000 characters: left out (first at list.jsonl:2)",
    ]
    plain, big = rows(tmp_path / "papers.db")
    assert plain["abstract"] == ABSTRACT
    assert 19_000 < len(big["abstract"]) <= 20_000
    assert big["abstract"].startswith("Speculative decoding sentence 0 keeps the cache warm. Speculative")
    assert big["abstract"].endswith("…")
    assert len(big["title"]) <= 1_000
    assert big["authors"][-1] == "Author 999"
    assert big["url"] is None
    assert len(big["session"]) <= 1_000


def test_a_seed_paragraph_of_megabytes_is_cut_too(tmp_path: Path) -> None:
    seed = tmp_path / "icml2026.txt"
    seed.write_text("ICML 2026\n\n" + "We propose Vegas, a decoding method. " * 200_000 + "\n", encoding="utf-8")
    records = list(corpus.read(seed))
    notes = [r for r in records if isinstance(r, corpus.Notice)]
    papers = [r for r in records if isinstance(r, Paper)]
    assert [(n.line, n.reason) for n in notes] == [(3, "`abstract` longer than 20,000 characters: cut there")]
    assert len(papers) == 1
    assert len(papers[0].abstract) <= 20_000
    assert papers[0].name == "Vegas"


# ---------------------------------------------------------------------- control characters


def test_control_and_bidi_characters_never_reach_the_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = {
        "id": "ctl\x1b1",
        "title": "Attention\x1b[2J Is\x07 All\u202e You\x00 Need\U000e0041",
        "abstract": f"First part\x9b31m of it, {ABSTRACT}\u2029Second\x0bpart \u2066isolated\u2069 text\x85here.",
        "authors": ["Ada\u202e Lovelace", "Alan\x1b]0;pwned\x07 Turing"],
        "keywords": ["kv\x1b cache"],
        "session": "Poster\x1b[5m Session 1",
        "area": "Deep\u200e Learning",
        "bibtex": "@inproceedings{x,\n\ttitle={Attention\x1b[2J}\n}",
        "schedule": [{"name": "Poster\x07 Session 1", "room": "Hall\u202e A"}],
        "tldr": "Faster\x1b decoding.",
    }
    code, _, _ = index_cli(capsys, tmp_path / "papers.db", write_jsonl(tmp_path / "list.jsonl", [record]))
    assert code == 0
    (paper,) = rows(tmp_path / "papers.db")
    stored = json.dumps(paper, ensure_ascii=False)
    assert CONTROLS.findall(stored) == []
    assert paper["title"] == "Attention[2J Is All You Need"
    assert paper["authors"] == ["Ada Lovelace", "Alan]0;pwned Turing"]
    assert paper["source_id"] == "ctl1"
    assert paper["abstract"].startswith("First part31m of it, We study speculative decoding")
    # line and paragraph breaks kept as such
    assert paper["abstract"].endswith("\n\nSecond part isolated text here.")
    # Tabs and newlines stay
    assert paper["bibtex"] == "@inproceedings{x,\n\ttitle={Attention[2J}\n}"


# ---------------------------------------------------------------------- one line and exit 2


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "nested.jsonl",
            f'{{"title": "x", "abstract": "{ABSTRACT}", "extra": {_deep(100_000)}}}\n',
            "nested too deeply",
        ),
        ("nested.json", f"[{_deep(100_000)}]", "nested too deeply"),
        ("nested-object.json", f'{{"papers": {_deep(100_000)}}}', "nested too deeply"),
        ("number.jsonl", f'{{"title": "x", "abstract": "{ABSTRACT}", "n": {"9" * 5_000}}}\n', "more than 4,300 digits"),
        ("number.json", f'[{{"title": "x", "abstract": "{ABSTRACT}", "year": {"9" * 5_000}}}]', "4,300 digits"),
        ("superscript.jsonl", f'{{"title": "x", "abstract": "{ABSTRACT}", "year": "²"}}\n', "not '²'"),
        ("circled.jsonl", f'{{"title": "x", "abstract": "{ABSTRACT}", "year": "①"}}\n', "not '①'"),
        ("overflow.jsonl", f'{{"title": "x", "abstract": "{ABSTRACT}", "year": "99999999999999999999"}}\n', "2026"),
        ("overflow-int.jsonl", f'{{"title": "x", "abstract": "{ABSTRACT}", "year": 99999999999999999999}}\n', "2026"),
        ("superscript.csv", f'title,abstract,year\nx,"{ABSTRACT}",²\n', "field `year` should be a year"),
        ("authors.jsonl", f'{{"title": "x", "abstract": "{ABSTRACT}", "authors": [{_deep(50)}]}}\n', "`authors`"),
    ],
)
def test_malformed_numbers_and_nesting_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, expected: str
) -> None:
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    code, out, err = index_cli(capsys, tmp_path / "papers.db", source)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"icml-bot: error: {source}:")
    assert expected in err
    assert not (tmp_path / "papers.db").exists()  # a first load that fails leaves no index


# ---------------------------------------------------------------------- identity


def test_titles_of_no_words_do_not_make_unrelated_papers_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    titles = ["🚀", "🔥🔥", "\u202e\u202d", "\u200b\u200b", "😀 😀", "\u2066\u2069", "…", "🎉 — 🎉"]
    records = [  # eight unrelated papers (the bundled abstracts)
        {"title": title, "abstract": abstract, "year": 2026}
        for title, abstract in zip(titles, seed_abstracts(), strict=False)
    ]
    records += [  # abstracts of no words either: known by their whole text
        {"title": "🌍", "abstract": "🌍🌍🌍 🌍🌍", "year": 2026},
        {"title": "🌊", "abstract": "🌊🌊🌊 🌊🌊", "year": 2026},
    ]
    source = write_jsonl(tmp_path / "list.jsonl", records)
    code, out, _ = index_cli(capsys, tmp_path / "papers.db", source)
    assert code == 0
    assert "Indexed 10 papers" in out
    assert "10 added, 0 merged" in out
    # The same file again: the same ten papers
    again = index_cli(capsys, tmp_path / "papers.db", source)[1]
    assert "Indexed 10 papers" in again
    assert "0 added, 0 merged, 0 updated, 10 unchanged" in again


# ---------------------------------------------------------------------- links


def test_links_that_disguise_where_they_go_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = {
        "title": "Disguised Links",
        "abstract": f"{ABSTRACT} Code: https://github.com/evil\u202e/gpj.exe and https://github.com/honest/code.",
        "url": "https://openreview.net@evil.example/forum?id=1",
        "pdf_url": "https://user:secret@openreview.net/pdf?id=1",
        "dataset_url": "https://hugging\u200bface.co/datasets/x",
        "site_url": "https://icml.cc/virtual/2026/poster/\x1b[2J1",
    }
    code, _, _ = index_cli(capsys, tmp_path / "papers.db", write_jsonl(tmp_path / "list.jsonl", [record]))
    assert code == 0
    (paper,) = rows(tmp_path / "papers.db")
    assert [paper[k] for k in ("url", "pdf_url", "dataset_url", "site_url")] == [None] * 4
    # The first link that shows where it goes
    assert paper["code_url"] == "https://github.com/honest/code"
