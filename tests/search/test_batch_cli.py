"""`icml-bot search --batch`: one JSON line per query, the shape `search --json` prints, errors in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.support.seed_ids import DEFENSIVE_KV


def test_batch_cli_writes_one_json_line_per_query(
    seed_index_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = ["kv cahce", "", "TokSuite", "🤖", 'AND "unbalanced', "status:oral"]
    batch = tmp_path / "queries.txt"
    batch.write_text("\n".join(queries) + "\n", encoding="utf-8")
    assert main(["search", "--db", str(seed_index_path), "--batch", str(batch), "--json", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(queries)
    answers = [json.loads(line) for line in lines]
    assert [a["query"] for a in answers] == queries
    assert answers[0]["corrected"] == "kv cache"
    assert answers[0]["took_ms"] > 0
    assert answers[0]["results"][0]["id"] == DEFENSIVE_KV
    assert len(answers[0]["results"]) == 2
    assert answers[2]["results"][0]["name"] == "TokSuite"
    assert answers[1]["results"] == []
    assert answers[3]["results"] == []
    # One shape: `search --json` prints what a batch line holds (all but the time it took).
    assert main(["search", "--db", str(seed_index_path), "kv cahce", "--json", "--limit", "2"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone.pop("took_ms") > 0
    assert alone == {key: value for key, value in answers[0].items() if key != "took_ms"}


def test_batch_cli_errors_are_one_line(
    seed_index_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "--db", str(seed_index_path), "--batch", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read the batch file" in capsys.readouterr().err
    assert main(["search", "--db", str(seed_index_path), "--batch", "x.txt", "kv"]) == 2
    assert main(["search", "--db", str(seed_index_path)]) == 2
    assert "nothing to search for" in capsys.readouterr().err
