"""`icml-bot search QUERY` as a whole process beside `sqlite-utils search` over an FTS5 table of the same papers.

Run: python -m bench cli [--pairs N] [--before GIT-REF]

Builds the index the way users do (`icml-bot index` of the seeds and ../shared/data/icml2026.jsonl, 5,863 papers; the
seeds alone when ../shared is absent), copies its ids, titles and abstracts into a plain table and gives it an FTS5
index with `sqlite-utils enable-fts`: the peer CLI of our own stack. Then, for 1-, 2- and 4-word queries, runs the two
commands pair by pair, alternating which goes first, so machine load hits both alike, and prints the medians and
their ratio (the target: no slower). Both print five results. `--before REF` also runs `icml-bot search` from that
commit (exported to a temp folder, same index) in every round, and the start-up (`python -c "import bot.cli"`) of
both, for before/after figures from one run.

Like with like: pip compiles an installed package's bytecode, as sqlite-utils' is, but an editable checkout run with
PYTHONDONTWRITEBYTECODE=1 compiles every bot/ module from source on each start, so the bench compiles the code under
test (and the --before export) first (`python -m compileall`, into __pycache__ folders git ignores).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ICML2026, ROOT

QUERIES = (  # 1, 2 and 4 words; the 4-word ones also weigh meaning (the embedding model loads)
    "grokking",
    "diffusion",
    "kv cache",
    "graph transformers",
    "sparse attention long context",
    "reinforcement learning human feedback",
)
LIMIT = 5


def icml_bot() -> list[str]:
    """The command line (what the `icml-bot` script runs) of the checkout it is started in: `python -c` puts its
    working directory first on sys.path, so `cwd=` picks this checkout or an older commit's."""
    return [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())"]


def sqlite_utils() -> list[str]:
    script = Path(sys.executable).with_name("sqlite-utils")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sqlite_utils"]


def build(folder: Path) -> tuple[Path, Path, int]:
    """The bot's index, and the peer database: a papers table (id, title, abstract) with sqlite-utils' FTS5 index."""
    index, peer = folder / "papers.db", folder / "peer.db"
    sources = [str(ROOT / "seeds"), *([str(ICML2026)] if ICML2026.exists() else [])]
    subprocess.run([*icml_bot(), "--db", str(index), "index", *sources], cwd=ROOT, check=True, capture_output=True)
    conn = sqlite3.connect(peer)
    conn.execute("ATTACH ? AS idx", [str(index)])
    conn.execute("CREATE TABLE papers AS SELECT id, title, abstract FROM idx.papers")
    conn.commit()
    papers = int(conn.execute("SELECT count(*) FROM papers").fetchone()[0])
    conn.close()
    subprocess.run([*sqlite_utils(), "enable-fts", str(peer), "papers", "title", "abstract", "--fts5"], check=True)
    return index, peer, papers


def seconds(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall time of one whole process started in `cwd`, which must succeed and print something."""
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    spent = time.perf_counter() - started
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return spent


def export(ref: str, folder: Path) -> Path:
    """The bot package of commit `ref`, unpacked under `folder`."""
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "bot"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def compiled(code: Path) -> Path:
    """The checkout at `code` with its bytecode written, as a pip install leaves a package."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "bot")], check=True)
    return code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=7, help="runs of each command per query (default 7)")
    parser.add_argument("--before", metavar="REF", help="also time `icml-bot search` of this commit (e.g. HEAD~3)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ICML_BOT_", "SLACK_"))}
    with tempfile.TemporaryDirectory() as tmp:
        index, peer, papers = build(Path(tmp))
        env["ICML_BOT_DB"], env["ICML_BOT_STATE"] = str(index), str(Path(tmp) / "state.db")
        old = compiled(export(args.before, Path(tmp) / "before")) if args.before else None
        checkouts = {"icml-bot": compiled(ROOT), **({"before": old} if old else {}), "sqlite-utils": ROOT}
        print(f"Whole processes over {papers:,} papers, {args.pairs} alternating runs per query, median seconds")
        print("(bytecode compiled for both CLIs, as pip installs them):")
        print(f"  {'query':40} {'icml-bot':>9} {'sqlite-utils':>13} {'ratio':>6}" + (f" {'before':>7}" if old else ""))
        every: dict[str, list[float]] = {"icml-bot": [], "sqlite-utils": [], "before": []}
        for query in QUERIES:
            commands = {name: [*icml_bot(), "search", *query.split(), "--limit", str(LIMIT)] for name in checkouts}
            commands["sqlite-utils"] = [*sqlite_utils(), "search", str(peer), "papers", query, "--limit", str(LIMIT)]
            times: dict[str, list[float]] = {name: [] for name in commands}
            for run in range(args.pairs):
                order = list(commands) if run % 2 == 0 else list(reversed(commands))
                for name in order:
                    times[name].append(seconds(commands[name], env, checkouts[name]))
            medians = {name: statistics.median(t) for name, t in times.items()}
            for name, t in times.items():
                every[name] += t
            ratio = medians["icml-bot"] / medians["sqlite-utils"]
            before = f" {medians['before']:7.3f}" if old else ""
            print(f"  {query:40} {medians['icml-bot']:9.3f} {medians['sqlite-utils']:13.3f} {ratio:5.2f}x{before}")
        ours, peers = statistics.median(every["icml-bot"]), statistics.median(every["sqlite-utils"])
        before = f" {statistics.median(every['before']):7.3f}" if old else ""
        print(f"  {'all queries':40} {ours:9.3f} {peers:13.3f} {ours / peers:5.2f}x{before}")
        verdict = "no slower" if ours <= peers else f"{ours / peers:.2f}x slower"
        print(f"icml-bot search beside sqlite-utils search: {verdict} (target: no slower)")
        starts = {"python -c pass": ("pass", ROOT), "import bot.cli": ("import bot.cli", ROOT)}
        if old:
            starts["import bot.cli before"] = ("import bot.cli", old)
        figures: dict[str, list[float]] = {name: [] for name in starts}
        for _ in range(args.pairs):
            for name, (code, checkout) in starts.items():
                started = time.perf_counter()
                subprocess.run([sys.executable, "-c", code], env=env, cwd=checkout, check=True)
                figures[name].append(time.perf_counter() - started)
        print("Start-up, median seconds: " + ", ".join(f"{n} {statistics.median(t):.3f}" for n, t in figures.items()))


if __name__ == "__main__":
    main()
