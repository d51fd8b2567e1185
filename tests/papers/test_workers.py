"""A worker pool stopped by SIGTERM to its whole process group (systemd's stop) exits, whatever its workers do."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from tests.support.processes import kill_session, wait_session_empty
from tests.support.sources import ROOT

STOP_SECONDS = 5

# A command like `icml-bot index`: SIGTERM becomes an exception in the parent, which then shuts the pool down.
COMMAND = """
import signal, sys
from bot.papers.workers import in_workers
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
"""


def test_sigterm_to_the_group_while_workers_send_results_stops_everything() -> None:
    # A worker killed half-way through writing a result leaves a partial message in the pipe, and the pool's
    # result reader waits for the rest of it forever: the parent then never got past shutting the pool down.
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for attempt in range(4):
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
            time.sleep(rng.uniform(0, 0.3))  # mid-stream: the workers spend most of their time sending
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                _, err = proc.communicate(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                where = f"seed {seed}, attempt {attempt}"
                pytest.fail(f"{where}: still running {STOP_SECONDS} s after SIGTERM to the group")
            assert wait_session_empty(proc.pid) == [], f"seed {seed}, attempt {attempt}: workers left behind"
        finally:
            kill_session(proc.pid)
        assert proc.returncode == 143, (proc.returncode, err)
