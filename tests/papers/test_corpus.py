"""Reading sources: the seed format's variations, structured lists, and clear errors for broken files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.papers import corpus
from bot.papers.corpus import Paper, Skip, SourceError
from tests.support.paths import SEED_FILE

ABSTRACT_A = (
    "We propose Vegas, a self-speculative decoding method with verification-guided sparse attention. "
    "Vegas achieves a 1.25$\\times$ speedup in decoding throughput over default vLLM."
)
ABSTRACT_B = (
    "In this paper, we introduce TokSuite, a collection of models and a benchmark that supports research "
    "into tokenization's influence on language models."
)


def papers(path: Path) -> list[Paper]:
    return [r for r in corpus.read(path) if isinstance(r, Paper)]


def test_real_seed_file_has_19_abstracts_and_its_conference() -> None:
    found = papers(SEED_FILE)
    assert len(found) == 19
    assert {(p.conference, p.year) for p in found} == {("ICML", 2026)}
    assert all(p.title and p.title_derived for p in found)
    assert found[0].line == 3  # the header is line 1, a blank line 2


@pytest.mark.parametrize(
    "content",
    [
        f"ICML 2026 论文列表\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n",
        f"\ufeffICML 2026 论文列表\r\n\r\n{ABSTRACT_A}\r\n\r\n{ABSTRACT_B}\r\n",  # BOM + CRLF
        # header without Chinese, many blanks
        f"ICML 2026   \n\n\n\n{ABSTRACT_A}   \n   \n\n{ABSTRACT_B}\t\n\n\n",
        f"ICML 2026 论文列表\r{ABSTRACT_A}\r\r{ABSTRACT_B}",  # old Mac line ends, no blank after header
    ],
)
def test_seed_format_variations(tmp_path: Path, content: str) -> None:
    path = tmp_path / "list.txt"
    path.write_text(content, encoding="utf-8")
    found = papers(path)
    assert [p.name for p in found] == ["Vegas", "TokSuite"]
    assert {(p.conference, p.year) for p in found} == {("ICML", 2026)}
    assert "1.25×" in found[0].abstract
    assert "$" not in found[0].abstract


def test_seed_without_header_takes_conference_from_file_name(tmp_path: Path) -> None:
    path = tmp_path / "iclr2025_picks.txt"
    path.write_text(f"{ABSTRACT_A}\n\n{ABSTRACT_B}\n", encoding="utf-8")
    found = papers(path)
    assert len(found) == 2
    assert (found[0].conference, found[0].year) == ("ICLR", 2025)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"   \n\n  \n", "the file is empty"),
        (b"ICML 2026\n\nshort one\n\nanother short\n", "no abstracts found"),
        (b"ICML 2026\n\n" + ABSTRACT_A.encode() + b"\n\nbad \xff byte here\n", "not UTF-8"),
    ],
)
def test_broken_seed_files_name_the_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "broken.txt"
    path.write_bytes(content)
    with pytest.raises(SourceError) as err:
        list(corpus.read(path))
    assert str(err.value).startswith(str(path))
    assert message in str(err.value)
    if message == "not UTF-8":
        assert f"{path}:5:" in str(err.value)
        assert "offset" in str(err.value)


def test_jsonl_fields_unknown_keys_and_skips(tmp_path: Path) -> None:
    path = tmp_path / "list.jsonl"
    rows = [
        {
            "id": "abc123",
            "title": "TokSuite: Measuring Tokenizers",
            "abstract": ABSTRACT_B,
            "authors": ["A. One", "B. Two"],
            "url": "https://openreview.net/forum?id=abc123",
            "code_url": "https://github.com/x/toksuite.",
            "status": "Oral",
            "session": "Poster Session 2",
            "area": "Deep Learning",
            "shoe_size": 44,
        },
        {"title": "No abstract here", "abstract": ""},
        {"title": "Nothing at all"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    records = list(corpus.read(path))
    paper, skip1, skip2 = records
    assert isinstance(paper, Paper)
    assert isinstance(skip1, Skip)
    assert isinstance(skip2, Skip)
    assert (skip1.line, skip1.reason, skip2.line) == (2, "no abstract", 3)
    assert paper.title == "TokSuite: Measuring Tokenizers"
    assert not paper.title_derived
    assert paper.name == "TokSuite"
    assert paper.authors == ["A. One", "B. Two"]
    assert paper.code_url == "https://github.com/x/toksuite"
    assert (paper.status, paper.session, paper.area, paper.source_id) == (
        "Oral",
        "Poster Session 2",
        "Deep Learning",
        "abc123",
    )


def test_json_array_and_csv_read_the_same_papers(tmp_path: Path) -> None:
    rows = [
        {
            "title": "Vegas: Fast Decoding",
            "abstract": ABSTRACT_A,
            "authors": "Ann Lee; Bo Chen",
            "url": "https://example.org/vegas",
            "status": "Spotlight",
        },
        {
            "title": "TokSuite: Tokenizers",
            "abstract": ABSTRACT_B,
            "authors": "Cy Dee",
            "url": "",
            "status": "ICML 2026 Poster",
        },
    ]
    as_json = tmp_path / "list.json"
    as_json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    as_csv = tmp_path / "list.csv"
    header = "title,abstract,authors,url,status,extra"
    lines = [header] + [
        ",".join(json.dumps(r[k]) for k in ("title", "abstract", "authors", "url", "status")) + ",x" for r in rows
    ]
    as_csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for path in (as_json, as_csv):
        found = papers(path)
        assert [p.title for p in found] == ["Vegas: Fast Decoding", "TokSuite: Tokenizers"]
        assert found[0].authors == ["Ann Lee", "Bo Chen"]
        assert [p.status for p in found] == ["Spotlight", "Poster"]


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        ("bad.jsonl", '{"title": "ok", "abstract": "%s"}\n{"title": "broken", \n' % ("x" * 100), ":2:"),
        ("bad.jsonl", '{"title": "ok", "abstract": "%s"}\n[1, 2]\n' % ("x" * 100), ":2:"),
        ("bad.json", '[{"title": "ok", "abstract": "%s"},\n {"title": oops}]' % ("x" * 100), ":2:"),
        ("bad.json", '{"not": "a list"}', ":1:"),
        ("bad.csv", 'title,abstract\n"ok","%s"\n"a","b","c"\n' % ("x" * 100), ":3:"),
        ("bad.jsonl", '{"title": {"nested": 1}, "abstract": "%s"}\n' % ("x" * 100), ":1:"),
    ],
)
def test_malformed_records_name_file_and_line(tmp_path: Path, name: str, content: str, where: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SourceError) as err:
        list(corpus.read(path))
    assert str(err.value).startswith(f"{path}{where}")


def test_folder_sources_and_missing_paths(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(f"ICML 2026\n\n{ABSTRACT_A}\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("ignored", encoding="utf-8")
    assert [p.name for p in corpus.expand_sources([tmp_path])] == ["a.txt"]
    with pytest.raises(SourceError, match="no such file"):
        corpus.expand_sources([tmp_path / "missing.jsonl"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no paper files"):
        corpus.expand_sources([empty])
