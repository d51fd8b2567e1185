"""The worker pool: results in order, errors raised in the parent, and a stop or a killed worker never hangs it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from bot.papers.workers import WorkerStalled, in_workers
from tests.support.processes import children, kill_session, wait_session_empty
from tests.support.sources import ROOT
from tests.support.workers import fails_at_777, hangs_at_777, squares, unpicklable

STOP_SECONDS = 5


def test_results_come_back_in_the_order_of_the_items() -> None:
    assert list(in_workers(iter(range(2_345)), squares, workers=2)) == [n * n for n in range(2_345)]
    assert list(in_workers(iter([]), squares, workers=2)) == []


def test_an_error_in_the_work_is_raised_in_the_parent_and_the_workers_end() -> None:
    with pytest.raises(ValueError, match="item 777 is broken"):
        list(in_workers(iter(range(5_000)), fails_at_777, workers=2))
    with pytest.raises(RuntimeError, match="could not send back"):
        list(in_workers(iter(range(10)), unpicklable, workers=2))
    assert [p for p in children(os.getpid()) if b"spawn_main" in _cmdline(p)] == []


@pytest.mark.timeout(60)
def test_a_chunk_that_never_finishes_raises_after_the_deadline_and_the_workers_end() -> None:
    # One record sending the cleaning into a loop used to hang `icml-bot index` (and a refresh) for ever. The
    # deadline leaves room for a loaded machine: at 1 s a worker's first chunk, with its start, could overrun it.
    with pytest.raises(WorkerStalled, match="more than 5 s on a chunk of 100 items") as stalled:
        list(in_workers(iter(range(5_000)), hangs_at_777, workers=2, stall=5.0))
    assert 777 in stalled.value.chunk
    assert [p for p in children(os.getpid()) if b"spawn_main" in _cmdline(p)] == []


# A command like `icml-bot index`: SIGTERM becomes an exception in the parent; a killed worker is one line.
COMMAND = """
import signal, sys
from bot.papers.workers import WorkerKilled, in_workers
from tests.support.workers import large_results

class Stopped(Exception):
    pass

def stop(signum, frame):
    raise Stopped()

signal.signal(signal.SIGTERM, stop)
try:
    for n, _ in enumerate(in_workers(iter(range(10**6)), large_results, workers=2)):
        if n == 0:
            print("running", flush=True)
except Stopped:
    sys.exit(143)
except WorkerKilled as exc:
    print(f"killed: {exc}", file=sys.stderr)
    sys.exit(3)
"""


@pytest.mark.parametrize("how", ["term-group", "kill-a-worker"])
def test_a_stop_or_a_killed_worker_while_workers_send_results_ends_everything(how: str) -> None:
    # A worker killed half-way through writing a result leaves a partial message in the pipe. ProcessPoolExecutor's
    # result reader waited for the rest of it forever, so the parent never got past shutting the pool down.
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for attempt in range(4):
        where = f"{how}, seed {seed}, attempt {attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-c", COMMAND],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "running\n", proc.communicate()[1]
            # mid-stream: the workers spend most of their time sending
            time.sleep(rng.uniform(0, 0.3))
            if how == "term-group":
                os.killpg(proc.pid, signal.SIGTERM)
            else:
                os.kill(next(p for p in children(proc.pid) if b"spawn_main" in _cmdline(p)), signal.SIGKILL)
            try:
                _, err = proc.communicate(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                pytest.fail(f"{where}: still running {STOP_SECONDS} s after the signal")
            assert wait_session_empty(proc.pid) == [], f"{where}: workers left behind"
        finally:
            kill_session(proc.pid)
        if how == "term-group":
            assert proc.returncode == 143, (where, proc.returncode, err)
        else:
            assert proc.returncode == 3, (where, proc.returncode, err)
            assert err.startswith("killed: worker "), (where, err)
            assert err.rstrip().endswith("ended with -9"), (where, err)


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


# A serving process that loads a refreshed index while its other threads log (`icml-bot serve`, ICML_BOT_REFRESH).
LOGGING_BESIDE = """
import os, sys, threading, time
from bot.papers.workers import WorkerStalled, in_workers
from tests.support.workers import squares

started, done = threading.Event(), threading.Event()

def log() -> None:
    n = 0
    while not done.is_set() or n < 200:
        os.write(2, f"line {n}\\n".encode())
        n += 1
        started.set()
        time.sleep(0.0002)  # (starting a worker takes milliseconds: many lines fall in that window)
    os.write(2, f"wrote {n}\\n".encode())

writer = threading.Thread(target=log)
writer.start()
started.wait()
for _ in range(3):
    assert list(in_workers(iter(range(500)), squares, workers=2)) == [n * n for n in range(500)]
done.set()
writer.join()
"""


def test_starting_workers_loses_no_line_another_thread_writes_to_standard_error() -> None:
    # Workers were started with the whole process's standard error pointed at /dev/null for a moment.
    proc = subprocess.run(
        [sys.executable, "-c", LOGGING_BESIDE],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    wrote = int(lines[-1].split()[1])
    assert lines[:-1] == [f"line {n}" for n in range(wrote)]
