"""The terminal output of `icml-bot search`, `--json` and `paper`: a control character still in an index (one built
before indexing dropped them) is written as an escape, never sent to the terminal to obey."""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from bot.cli import main
from tests.support.seed_ids import DEFENSIVE_KV

# What a terminal obeys (ESC sequences: clear the screen, set the title, write the clipboard; BEL; C1's CSI) or
# what reorders a line (bidi overrides and isolates); a carriage return writes over the line.
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
TITLE = "DefensiveKV\x1b]0;owned\x07\x1b[2J \u202eevil"
ESCAPED_TITLE = "DefensiveKV\\x1b]0;owned\\x07\\x1b[2J \\u202eevil"
ABSTRACT = "Which KV\x08 cache entries matter\U000e0041 for long inputs."


@pytest.fixture
def older_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The seed index, one paper's fields holding control characters as an index built before stripping them can."""
    db = tmp_path / "papers.db"
    assert main(["index", "--db", str(db)]) == 0
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE papers SET title = ?, authors = ?, url = ?, abstract = ? WHERE id = ?",
            [TITLE, json.dumps(["Ada\x9b31m Lovelace"]), "https://openreview.net/\x1b[2J\rx", ABSTRACT, DEFENSIVE_KV],
        )
    conn.close()
    capsys.readouterr()
    return db


@pytest.mark.parametrize("terminal", [False, True])
def test_search_writes_control_characters_as_escapes(
    older_index: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: terminal)
    assert main(["search", "defensivekv cache\x1b[5m", "--db", str(older_index)]) == 0
    out = capsys.readouterr().out
    assert f"1. [{DEFENSIVE_KV}] {ESCAPED_TITLE}\n" in out
    assert "   Ada\\x9b31m Lovelace\n" in out
    assert "   https://openreview.net/\\x1b[2J\\x0dx" in out
    assert "   Which KV\\x08 cache entries matter\\U000e0041 for long inputs.\n" in out.replace("\x1b[1m", "").replace(
        "\x1b[0m", ""
    )
    # Only the shell's own bold
    assert OBEYED.findall(out.replace("\x1b[1m", "").replace("\x1b[0m", "")) == []


def test_json_and_paper_write_them_as_json_escapes_that_read_back_the_same(
    older_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["paper", DEFENSIVE_KV, "--db", str(older_index)]) == 0  # (as text)
    out = capsys.readouterr().out
    assert OBEYED.findall(out) == []
    assert "\\u202e" in out
    assert main(["paper", DEFENSIVE_KV, "--json", "--db", str(older_index)]) == 0
    out = capsys.readouterr().out
    assert OBEYED.findall(out) == []
    assert "\\u202e" in out
    assert json.loads(out)["title"] == TITLE
    assert main(["search", "defensivekv", "--json", "--db", str(older_index)]) == 0
    out = capsys.readouterr().out
    assert OBEYED.findall(out) == []
    first = json.loads(out)["results"][0]
    assert (first["title"], first["authors"], first["abstract"]) == (TITLE, ["Ada\x9b31m Lovelace"], ABSTRACT)
