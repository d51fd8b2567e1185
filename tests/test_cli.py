"""The command line as a user runs it: first-use index build, reports, JSON output, one-line errors."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from tests.support.paths import ROOT, SEEDS


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never read or write the user's real index."""
    for var in ("ICML_BOT_DB", "ICML_BOT_STATE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def test_first_search_builds_the_index_from_seeds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "papers.db"
    assert main(["search", "kv cache", "--db", str(db), "--json"]) == 0
    out, err = capsys.readouterr()
    assert "building it from" in err
    results = json.loads(out)["results"]
    # The two KV cache papers of the seeds
    assert [r["name"] for r in results] == ["DefensiveKV", "Vegas"]
    assert {"id", "name", "title", "abstract", "authors", "url", "code_url", "score"} <= set(results[0])
    assert db.exists()


def test_default_location_is_under_xdg_data_home(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["papers"] == 19
    assert (tmp_path / "xdg" / "icml-bot" / "papers.db").exists()


def test_stats_say_whether_search_has_meaning_vectors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "papers.db"
    assert main(["--db", str(db), "index"]) == 0
    assert main(["--db", str(db), "stats"]) == 0
    assert "Meaning vectors: 19 papers (static-minilm-l6-256-tuned)" in capsys.readouterr().out
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE paper_vectors")  # an index built before this version
    conn.commit()
    conn.close()
    assert main(["--db", str(db), "stats"]) == 0
    assert "run `icml-bot index` to add them" in capsys.readouterr().out
    # By words, still
    assert main(["search", "making decoding faster with a draft model", "--db", str(db)]) == 0


def test_index_reports_and_is_idempotent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "papers.db")
    assert main(["--db", db, "index"]) == 0
    assert "19 added, 0 merged, 0 updated, 0 unchanged, 0 skipped" in capsys.readouterr().out
    assert main(["index", str(SEEDS), "--db", db]) == 0
    assert "0 added, 0 merged, 0 updated, 19 unchanged, 0 skipped" in capsys.readouterr().out


def test_skipped_records_are_counted_with_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "list.jsonl"
    good = {"title": "Real Paper", "abstract": "We study an important question about attention. " * 3}
    source.write_text(
        "\n".join(json.dumps(r) for r in [good, {"title": "No abstract"}, {"title": "Also none"}]), encoding="utf-8"
    )
    assert main(["index", str(source), "--db", str(tmp_path / "p.db")]) == 0
    out = capsys.readouterr().out
    assert "1 added" in out
    assert "2 skipped" in out
    assert "skipped 2: no abstract (first at list.jsonl:2)" in out


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "the file is empty"),
        (b"ICML 2026\n\n\xff\xfe broken\n", "not UTF-8"),
        (b"ICML 2026\n\nshort\n", "no abstracts found"),
    ],
)
def test_broken_source_is_one_line_exit_2_and_index_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expected: str
) -> None:
    db = str(tmp_path / "papers.db")
    assert main(["index", "--db", db]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    assert main(["index", str(bad), "--db", db]) == 2
    _out, err = capsys.readouterr()
    assert err.count("\n") == 1
    assert err.startswith("icml-bot: error: ")
    assert str(bad) in err
    assert expected in err
    assert "Traceback" not in err
    assert main(["stats", "--json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["papers"] == 19


def test_corrupt_index_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "papers.db"
    db.write_bytes(b"this is not a database" * 100)
    assert main(["stats", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("icml-bot: error: ")
    assert "icml-bot index" in err
    assert "Traceback" not in err


def test_unwritable_index_path_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main(["index", "--db", str(blocker / "sub" / "papers.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("icml-bot: error: ")
    assert str(blocker) in err
    assert "Traceback" not in err


def test_unknown_paper_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "papers.db")
    assert main(["paper", "TokSuite", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "TokSuite"
    assert main(["paper", "nope", "--db", db]) == 2
    assert "no paper with id or name 'nope'" in capsys.readouterr().err


def test_python_dash_m_bot_runs_the_same_cli(tmp_path: Path) -> None:
    env = {**os.environ, "ICML_BOT_DB": str(tmp_path / "papers.db"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "search", "TokSuite", "--limit", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "TokSuite" in done.stdout.splitlines()[0]


def test_serve_workers_is_a_count_or_auto(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli_parser import build_parser

    parser = build_parser()
    assert parser.parse_args(["serve"]).workers == 1
    assert parser.parse_args(["serve", "--workers", "3"]).workers == 3
    assert parser.parse_args(["serve", "--workers", "auto"]).workers == len(os.sched_getaffinity(0))
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(["serve", "--workers", "0"])
    assert stopped.value.code == 2
    assert "'0' is not a whole number of at least 1" in capsys.readouterr().err


def test_publish_puts_a_built_index_in_place_of_the_served_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served, built = tmp_path / "srv" / "papers.db", tmp_path / "build" / "papers.db"
    assert main(["index", str(SEEDS), "--db", str(built)]) == 0
    capsys.readouterr()
    assert main(["publish", str(built), "--db", str(served)]) == 0
    assert capsys.readouterr().out == f"published 19 papers from {built} to {served}\n"
    conn = sqlite3.connect(served)
    assert conn.execute("SELECT count(*) FROM papers").fetchone() == (19,)
    # No -wal file to pair with the wrong file
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    conn.close()
    # No temporary copy left behind
    assert sorted(p.name for p in served.parent.iterdir()) == ["papers.db"]


@pytest.mark.parametrize("folder", ["what?", "notes #2", "100% done"])
def test_an_index_in_a_folder_whose_name_is_uri_syntax_is_searched_and_published(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    built, served = tmp_path / folder / "built.db", tmp_path / folder / "papers.db"
    assert main(["index", str(SEEDS), "--db", str(built)]) == 0
    assert main(["publish", str(built), "--db", str(served)]) == 0
    capsys.readouterr()
    assert main(["search", "--db", str(served), "--json", "kv", "cache"]) == 0
    assert [r["name"] for r in json.loads(capsys.readouterr().out)["results"]] == ["DefensiveKV", "Vegas"]


def test_publish_refuses_what_is_not_an_index_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "incoming.db"
    junk.write_text("not a database at all " * 100)
    assert main(["publish", str(junk), "--db", str(tmp_path / "papers.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"icml-bot: error: {junk} cannot be published (file is not a database)")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "papers.db").exists()


def test_text_results_mark_the_author_a_search_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shell's author line shows the person a search found, after "…" when listed past the first four (it once
    showed the first four only, as if the paper were not theirs)."""
    source = tmp_path / "people2026.jsonl"
    authors = ["Ann One", "Ben Two", "Cy Three", "Di Four", "Ed Five", "Zoe Sixth", "Al Seven"]
    paper = {"id": "P1", "title": "Sparse Attention Revisited", "abstract": "We revisit sparse attention. " * 5}
    source.write_text(json.dumps({**paper, "authors": authors}) + "\n", encoding="utf-8")
    db = str(tmp_path / "people.db")
    assert main(["index", str(source), "--db", db]) == 0
    capsys.readouterr()
    assert main(["search", 'author:"Zoe Sixth"', "--db", db]) == 0
    # A pipe: plain
    assert "   Ann One, Ben Two, Cy Three, Di Four, … Zoe Sixth et al.\n" in capsys.readouterr().out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["search", 'author:"Zoe Sixth"', "--db", db]) == 0
    assert "   Ann One, Ben Two, Cy Three, Di Four, … \x1b[1mZoe Sixth\x1b[0m et al.\n" in capsys.readouterr().out


def test_search_output_carries_no_slack_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shell prints plain text (ANSI bold on a terminal) and --json gives the matched words as offsets: none of
    Slack's *bold* (it once printed `*KV cache*` in snippets and `*qqxqzv*` in notes)."""
    db = str(tmp_path / "papers.db")
    assert main(["search", "kv cache qqxqzv", "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.startswith("No paper here writes qqxqzv; showing papers with the other words.\n1. [txyyds] DefensiveKV")
    assert "   …reliance on self-attention, particularly the large KV cache for long-sequence inference." in out
    assert "*" not in out
    assert main(["search", "kv cache qqxqzv", "--db", db, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["notes"] == ["No paper here writes qqxqzv; showing papers with the other words."]
    first = answer["results"][0]
    assert first["snippet"].startswith("…reliance on self-attention, particularly the large KV cache for long-sequence")
    assert [first["snippet"][s:e] for s, e in first["snippet_matches"]] == ["KV cache", "KV cache", "KV"]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["search", "kv cache qqxqzv", "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.startswith("No paper here writes \x1b[1mqqxqzv\x1b[0m; showing papers with the other words.\n")
    assert "particularly the large \x1b[1mKV cache\x1b[0m for long-sequence inference." in out


def test_an_index_that_stores_slack_markup_is_named_until_its_sources_are_loaded_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index built before abstracts were stored as plain text holds Slack markup, which the shell and --json would
    print: each command that reads it says so in one line, and loading the sources again ends it."""
    db = tmp_path / "papers.db"
    assert main(["index", "--db", str(db)]) == 0
    # as older versions left it: mrkdwn abstracts, no emphasis spans, no meta key
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE papers SET abstract = replace(abstract, 'half', '_half_'), abstract_emphasis = NULL")
        conn.execute("DELETE FROM meta WHERE key = 'plain_abstracts'")
    conn.close()
    capsys.readouterr()
    assert main(["search", "kv cache", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    notice = (
        f"abstracts in {db} were indexed by an older icml-bot as Slack markup (*bold*, _italic_); load its sources "
        "again with `icml-bot index` (and `icml-bot fetch`) to store plain text\n"
    )
    assert err == notice  # (once)
    assert main(["index", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["search", "kv cache", "--db", str(db)]) == 0
    assert capsys.readouterr().err == ""
    assert main(["paper", "DefensiveKV", "--db", str(db), "--json"]) == 0
    assert "_half_" not in json.loads(capsys.readouterr().out)["abstract"]


def test_a_question_with_no_topic_gets_the_hint_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "who works on", "--db", str(tmp_path / "papers.db")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Which topic? Name one")
    assert "No papers match" not in out  # (nothing was searched)


def test_the_hint_for_a_question_with_no_topic_quotes_its_examples_without_slack_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json and the shell quote the queries to type (they once carried Slack's `backticks`; Slack still shows code:
    tests/slack/test_http.py)."""
    db = str(tmp_path / "papers.db")
    hint = 'Which topic? Name one, as in "any papers on grokking?" or "who works on kv cache?"'
    assert main(["search", "any papers?", "--db", db, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["notes"], answer["results"]) == ([hint], [])
    assert main(["search", "any papers?", "--db", db]) == 0
    assert capsys.readouterr().out == hint + "\n"


def test_json_results_carry_the_abstracts_emphasis_as_offsets_in_one_shape_with_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DefensiveKV's abstract stresses *half* (the source wrote `_half_`): --json gives the span in the plain abstract,
    and each --batch --json line is the same answer."""
    db = str(tmp_path / "papers.db")
    assert main(["search", "DefensiveKV", "--db", db, "--json"]) == 0
    (first, *_) = json.loads(capsys.readouterr().out)["results"]
    assert first["id"] == "txyyds"
    assert [(first["abstract"][s:e], kind) for s, e, kind in first["abstract_emphasis"]] == [("half", "italic")]
    assert "_" not in first["abstract"]
    batch = tmp_path / "queries.txt"
    batch.write_text("DefensiveKV\n", encoding="utf-8")
    assert main(["search", "--batch", str(batch), "--db", db, "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["results"][0]["abstract_emphasis"] == first["abstract_emphasis"]


# ICML_BOT_STATE URLs libpq cannot use, each with the parts of its password that must never be printed.
BAD_STATE_URLS = {
    # libpq: invalid percent-encoded token: "Xy7%zQw9"
    "postgresql://bot:Xy7%zQw9@db/icml": ("Xy7%zQw9", "zQw9"),
    # libpq: unexpected spaces found in "my secret"
    "postgresql://bot:my secret@db/icml": ("my secret", "secret"),
    # libpq only fails when it connects
    "postgresql://bot:Xy7-zQw9@db:notaport/icml": ("Xy7-zQw9",),
    "postgresql://bot:Xy7-zQw9@[::1/icml": ("Xy7-zQw9",),  # urlsplit raised: a traceback
}


@pytest.mark.parametrize("command", ["stats", "serve"])
@pytest.mark.parametrize("url", BAD_STATE_URLS)
def test_a_bad_state_url_is_one_line_naming_it_without_the_password(tmp_path: Path, command: str, url: str) -> None:
    env = {**os.environ, "ICML_BOT_DB": str(tmp_path / "papers.db"), "ICML_BOT_STATE": url, "PYTHONPATH": str(ROOT)}
    env.update(SLACK_BOT_TOKEN="xoxb-1", SLACK_APP_TOKEN="xapp-1")
    done = subprocess.run([sys.executable, "-m", "bot", command], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("icml-bot: error: ICML_BOT_STATE=postgresql://"), line
    assert " is not a PostgreSQL URL the bot can use: " in line
    for secret in BAD_STATE_URLS[url]:
        assert secret not in line


# What a command that does not serve Slack, use PostgreSQL, fetch or weigh meaning must not import: each costs
# start-up time on every `icml-bot search` (docs/benchmarks.md). Reading the index takes no sqlite-utils (nor the
# numpy it imports); importlib.metadata is what finding sqlite-utils plugins imports.
NOT_FOR_A_SEARCH = (
    "sqlite_utils",
    "numpy",
    "psycopg",
    "slack_bolt",
    "slack_sdk",
    "sqlalchemy",
    "gunicorn",
    "tokenizers",
    "bot.papers.fetch",
    "importlib.metadata",
    "matplotlib",  # only a trend chart draws (bot/charts.py)
)


def _imported_by(code: str, env: dict[str, str]) -> list[str]:
    """Which of NOT_FOR_A_SEARCH a fresh interpreter has imported after running `code`."""
    probe = f"{code}; import json, sys; print(json.dumps([m for m in {NOT_FOR_A_SEARCH!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def test_the_command_line_imports_no_server_driver_or_fetcher(tmp_path: Path) -> None:
    env = {**os.environ, "ICML_BOT_DB": str(tmp_path / "papers.db"), "PYTHONPATH": str(ROOT)}
    assert _imported_by("import bot.cli", env) == []


# A typo asks the model's words
@pytest.mark.parametrize("query", ["TokSuite", "kv cache", "speculatve decodng"])
def test_a_short_search_imports_no_server_driver_fetcher_or_model(tmp_path: Path, query: str) -> None:
    env = {**os.environ, "ICML_BOT_DB": str(tmp_path / "papers.db"), "PYTHONPATH": str(ROOT)}
    # Building it would import the readers
    assert main(["--db", str(tmp_path / "papers.db"), "index"]) == 0
    assert _imported_by(f"from bot.cli import main; assert main(['search', {query!r}]) == 0", env) == []
