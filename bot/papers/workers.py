"""Work spread over spawned worker processes, a bounded batch at a time, that stop with the parent however it ends."""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

BATCH = 500  # items per batch sent to the workers; two batches in flight bound the memory
CHUNK = 100  # items per task: small enough that a stop waits for little, large enough to amortise the pickling
PR_SET_PDEATHSIG = 1  # prctl(2) on Linux

In = TypeVar("In")
Out = TypeVar("Out")


def in_workers(items: Iterator[In], work: Callable[[list[In]], list[Out]], workers: int) -> Iterator[Out]:
    """`work` over chunks of `items` in `workers` processes, two batches in flight at most, in the original order.

    `work` must be a module-level function (workers import it by name). Workers are spawned, never forked: a fork
    copies whatever locks and signal handlers the parent holds (the CLI turns SIGTERM into an exception), which is how
    a forked pool hung. They ignore Ctrl-C and SIGTERM, since the parent stops them (a worker killed while sending a
    result leaves half a message that the pool's reader waits on forever), and die with the parent however it ends. The
    pool is shut down and joined, never terminated, on success and on every error, and pending work is cancelled
    first, so a stop takes one chunk's time at most. A killed worker raises BrokenProcessPool.
    """
    with _starting_processes():
        pool = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=(os.getpid(),)
        )
    try:
        pending: list[Future[list[Out]]] = []
        while batch := list(itertools.islice(items, BATCH)):
            with _starting_processes():  # submit() starts the workers
                jobs = [pool.submit(work, batch[i : i + CHUNK]) for i in range(0, len(batch), CHUNK)]
            for job in pending:
                yield from job.result()
            pending = jobs
        for job in pending:
            yield from job.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _starting_processes() -> Iterator[None]:
    """Start processes with Ctrl-C and SIGTERM blocked and standard error on /dev/null, which they inherit.

    A process killed while Python is still starting in it, or orphaned then because the parent was killed, prints
    Python's own traceback (KeyboardInterrupt, or EOFError from the half-sent start-up data) onto the user's terminal.
    Workers need no standard error: their exceptions come back through their futures. A signal blocked here reaches
    the parent when the block ends; in the workers it stays blocked until they ignore it.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _start_worker(parent: int) -> None:
    """In each worker: ignore the signals that stop the parent (it stops us), and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # so does systemd's stop; being killed mid-result hangs the pool
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the kernel kills us when the parent dies, even by SIGKILL
    if os.getppid() != parent:  # the parent died before that took effect
        os._exit(1)
    if sys.platform != "linux":
        threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """Where the kernel cannot kill a worker with its parent: exit within a second of being orphaned."""
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)
