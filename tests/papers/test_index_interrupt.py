"""A parallel `icml-bot index` stopped at random points: it exits promptly, leaves no process and an intact index."""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.papers import corpus, index
from tests.support.processes import children, kill_session, session_members, wait_session_empty
from tests.support.sources import ROOT, large_jsonl
from tests.support.workers import hangs_on_line_250

pytestmark = pytest.mark.slow  # worker processes started and stopped: the quick loop leaves them out

STOP_SECONDS = 5  # the bound on how long a stopped index may take to exit


@pytest.fixture(scope="module")
def big_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """4,000 generated papers (~5 MB): large enough for the cleaning workers."""
    return large_jsonl(tmp_path_factory.mktemp("big") / "generated.jsonl")


def _seed_index(path: Path) -> int:
    db = index.connect(path)
    index.load(db, [ROOT / "seeds"], workers=1)
    count = db["papers"].count
    db.conn.close()
    return count


def _start(db: Path, source: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ICML_BOT_DB": str(db)}
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "index", str(source)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child: Ctrl-C's default action. A shell starts background jobs with SIGINT ignored, which Python then
    keeps; run under `pytest &`, the Ctrl-C case would time out because the command never saw the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_until_running(proc: subprocess.Popen[str], timeout: float = 60) -> None:
    """Wait until `icml-bot` has imported everything and runs its command (or has already ended).

    cli.main sets a SIGTERM handler around the command; /proc/PID/status shows it in the caught-signals mask.
    """
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        status = Path(f"/proc/{proc.pid}/status").read_text()
        mask = re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.MULTILINE)
        assert mask is not None
        caught = int(mask.group(1), 16)
        if caught >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.01)


def _papers(path: Path) -> tuple[str, int]:
    conn = sqlite3.connect(path)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        return check, conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    finally:
        conn.close()


def test_an_uninterrupted_parallel_index_uses_workers_and_leaves_nothing(tmp_path: Path, big_source: Path) -> None:
    db = tmp_path / "papers.db"
    before = _seed_index(db)
    proc = _start(db, big_source)
    seen_workers = 0
    while proc.poll() is None:
        seen_workers = max(seen_workers, len(session_members(proc.pid)) - 1)
        time.sleep(0.05)
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert "Indexed 4000 papers" in out
    assert "3981 added, 19 merged" in out
    assert seen_workers >= 1  # the file really was cleaned in worker processes
    assert wait_session_empty(proc.pid) == []
    assert before == 19
    assert _papers(db) == ("ok", 4000)


# Where and how a run is stopped: SIGTERM to the command (a supervisor), Ctrl-C (SIGINT to the whole process
# group), SIGTERM to the group (systemd's default), and SIGKILL (the OOM killer), each at random moments.
HOW = ["term", "ctrl-c", "term-group", "kill"]


@pytest.mark.parametrize("how", HOW)
def test_a_stopped_index_exits_promptly_and_leaves_no_process(tmp_path: Path, big_source: Path, how: str) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    db = tmp_path / "papers.db"
    current = _seed_index(db)
    for attempt in range(3):
        proc = _start(db, big_source)
        try:
            # From interpreter start-up to the middle of the cleaning. A Ctrl-C while Python itself is still importing
            # prints Python's own KeyboardInterrupt traceback, as for any Python program, so that one first waits
            # until the command runs (however long the imports took on a busy machine).
            if how == "ctrl-c":
                _wait_until_running(proc)
            time.sleep(rng.uniform(0.05, 2.1))
            if how == "term":
                proc.send_signal(signal.SIGTERM)
            elif how == "kill":
                proc.send_signal(signal.SIGKILL)
            else:
                os.killpg(proc.pid, signal.SIGINT if how == "ctrl-c" else signal.SIGTERM)
            try:
                _, err = proc.communicate(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                pytest.fail(f"{how} (seed {seed}, attempt {attempt}): still running {STOP_SECONDS} s after the signal")
            left = wait_session_empty(proc.pid)
            assert left == [], f"{how} (seed {seed}, attempt {attempt}): processes left behind: {left}"
        finally:
            kill_session(proc.pid)
        assert "Traceback" not in err, f"{how} (seed {seed}, attempt {attempt}):\n{err}"
        if proc.returncode != 0:  # it may have finished before the signal landed
            # -15 and -2: the signal came before Python had set up its handlers, so nothing had been written
            assert proc.returncode in {-9, -15, -2, 2, 130, 128 + signal.SIGTERM}, (proc.returncode, err)
            assert _papers(db) == ("ok", current), f"{how} (seed {seed}): the index changed although the load stopped"
        else:
            current = 4000
            assert _papers(db) == ("ok", current)


def test_a_killed_cleaning_worker_is_one_line_naming_the_file_and_the_index_is_unchanged(
    tmp_path: Path, big_source: Path
) -> None:
    # The out-of-memory killer picks one process; a worker killed alone used to leave the index running forever
    # when it died while sending its results back.
    db = tmp_path / "papers.db"
    before = _seed_index(db)
    proc = _start(db, big_source)
    try:
        worker = _first_worker(proc)
        os.kill(worker, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {STOP_SECONDS} s after a worker was killed")
        assert wait_session_empty(proc.pid) == []
    finally:
        kill_session(proc.pid)
    assert proc.returncode == 2, (out, err)
    assert err.strip().splitlines() == [
        f"icml-bot: error: {big_source}: a text-cleaning worker process was killed (out of memory, or a signal); "
        "nothing was indexed, run `icml-bot index` again"
    ]
    assert _papers(db) == ("ok", before)


@pytest.mark.timeout(60)
def test_records_whose_cleaning_never_finishes_are_named_by_their_lines(big_source: Path) -> None:
    # Without a deadline, one record sending a cleaning regex into a loop hung the index for ever, silently.
    raw = corpus._read_raw(big_source, None)
    with pytest.raises(corpus.SourceError) as stopped:
        list(corpus._parallel(raw, 2, big_source, work=hangs_on_line_250, stall=1.0))
    assert str(stopped.value) == (
        f"{big_source}:201-300: cleaning the records on these lines took more than 1 s and was stopped; nothing was "
        "indexed. Please report the file; to index the rest now, move those records to a file of their own and run "
        "`icml-bot index` without it"
    )
    assert [pid for pid in children(os.getpid()) if b"spawn_main" in _cmdline(pid)] == []


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _first_worker(proc: subprocess.Popen[str], timeout: float = 60) -> int:
    """The pid of the first cleaning worker of `proc`, once it has one."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        for pid in session_members(proc.pid):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline:
                return pid
        time.sleep(0.01)
    pytest.fail(f"no worker process appeared (exit status {proc.poll()})")
