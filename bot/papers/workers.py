"""Work spread over spawned worker processes, a few chunks ahead each, that stop with the parent however it ends."""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any, Generic, TypeVar

# items per task: small enough that little is lost to a stop, large enough to amortise the pickling
CHUNK = 100
# chunks sent to each worker before its oldest is read back: it works while the parent writes the index
AHEAD = 3
# A chunk unfinished this long after the parent asked for it hangs: a healthy one takes a small fraction of this.
STALL_SECONDS = 600.0
PR_SET_PDEATHSIG = 1  # prctl(2) on Linux

In = TypeVar("In")
Out = TypeVar("Out")


class WorkerKilled(Exception):
    """A worker process died (out of memory, or a signal sent to it alone) before sending its chunk back."""


class WorkerStalled(Exception):
    """A worker spent more than the deadline on one chunk: something in it hangs. The chunk is kept so the caller
    can say which items those were."""

    def __init__(self, chunk: list[Any], seconds: float) -> None:
        self.chunk, self.seconds = chunk, seconds
        self.waited = f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} s"
        super().__init__(f"a worker spent more than {self.waited} on a chunk of {len(chunk)} items")


def in_workers(
    items: Iterator[In], work: Callable[[list[In]], list[Out]], workers: int, stall: float = STALL_SECONDS
) -> Iterator[Out]:
    """`work` over chunks of `items` in `workers` processes, a few chunks ahead each, in the original order.

    `work` must be a module-level function (workers import it by name). Workers are spawned, never forked: a fork
    copies whatever locks and signal handlers the parent holds (the CLI turns SIGTERM into an exception), which is how
    a forked pool hung. Each worker talks to the parent over its own socket pair, whose far end only the worker holds,
    so a worker that dies, even half-way through sending a result, is an end of file here and raises WorkerKilled;
    ProcessPoolExecutor's shared result pipe waited forever for the rest of such a message. Workers ignore Ctrl-C and
    SIGTERM (they reach the whole process group): the parent stops them, at once, however it ends, and the kernel
    kills them if the parent dies. A chunk still unfinished `stall` seconds after the parent asked for it raises
    WorkerStalled, so one record that sends the work into a loop cannot hang the caller.
    """
    context = multiprocessing.get_context("spawn")
    pool: list[_Worker[In, Out]] = []
    try:
        with _starting_processes():
            for _ in range(workers):
                pool.append(_Worker(context, work))
        chunks = iter(lambda: list(itertools.islice(items, CHUNK)), [])
        # Each chunk sent and its worker, oldest first
        in_flight: deque[tuple[_Worker[In, Out], list[In]]] = deque()

        def send_next(worker: _Worker[In, Out]) -> None:
            if (chunk := next(chunks, None)) is not None:
                worker.send(chunk)
                in_flight.append((worker, chunk))

        for _ in range(AHEAD):
            for worker in pool:
                send_next(worker)
        while in_flight:
            worker, chunk = in_flight.popleft()
            if not worker.ready(stall):
                raise WorkerStalled(chunk, stall)
            done = worker.receive()
            # Before handing the results on, so that the worker has work meanwhile
            send_next(worker)
            yield from done
    finally:
        for worker in pool:
            worker.stop()


class _Worker(Generic[In, Out]):
    """One worker process and the parent's end of its socket pair."""

    def __init__(self, context: SpawnContext, work: Callable[[list[In]], list[Out]]) -> None:
        self.conn, theirs = context.Pipe()
        self.process: SpawnProcess = context.Process(
            target=_serve, args=(theirs, work, os.getpid()), name="icml-bot-worker", daemon=True
        )
        self.process.start()
        # The worker's end lives in the worker alone, so its death is an end of file here
        theirs.close()

    def send(self, chunk: list[In]) -> None:
        try:
            self.conn.send(chunk)
        except OSError:  # a broken pipe: the worker is gone
            raise self._killed() from None

    def ready(self, timeout: float) -> bool:
        """Whether the worker sent something (or ended) within `timeout` seconds."""
        try:
            return self.conn.poll(timeout)
        except OSError:
            return True  # (broken: receive() says how)

    def receive(self) -> list[Out]:
        try:
            ok, value = self.conn.recv()
        except (EOFError, OSError):
            raise self._killed() from None
        if not ok:
            raise value
        result: list[Out] = value
        return result

    def stop(self) -> None:
        """Kill and reap the process: whatever it was doing is no longer wanted, and it holds nothing shared."""
        self.conn.close()
        self.process.kill()
        self.process.join()

    def _killed(self) -> WorkerKilled:
        self.process.join(1)
        return WorkerKilled(f"worker {self.process.pid} ended with {self.process.exitcode}")


def _serve(conn: Connection, work: Callable[[list[Any]], list[Any]], parent: int) -> None:
    """In each worker: do `work` on each chunk as it comes, reading the next ones meanwhile, until the parent is done.

    A thread reads the chunks as they arrive, so the parent never waits to send while this process waits to send
    a result back (each end blocked writing to the other, with pipes full both ways, would hang both).
    """
    _start_worker(parent)
    chunks: queue.SimpleQueue[list[Any] | None] = queue.SimpleQueue()
    threading.Thread(target=_read_chunks, args=(conn, chunks), name="read-chunks", daemon=True).start()
    while (chunk := chunks.get()) is not None:
        try:
            reply: tuple[bool, Any] = (True, work(chunk))
        except Exception as exc:  # sent back and raised in the parent, as if the work had run there
            reply = (False, exc)
        try:
            conn.send(reply)
        except OSError:
            return  # the parent is gone or done
        # The reply would not pickle: say so rather than die without a word
        except Exception as failure:
            conn.send((False, RuntimeError(f"a worker could not send back {reply[1]!r:.200}: {failure}")))
            return


def _read_chunks(conn: Connection, chunks: queue.SimpleQueue[list[Any] | None]) -> None:
    try:
        while True:
            chunks.put(conn.recv())
    except (EOFError, OSError):
        chunks.put(None)  # the parent closed its end: stop after the chunk at hand


@contextmanager
def _starting_processes() -> Iterator[None]:
    """Start processes with Ctrl-C and SIGTERM blocked and, in a process running no other thread, standard error on
    /dev/null, which they inherit.

    A worker orphaned while Python is still starting in it, because the parent was killed, prints Python's own
    traceback (EOFError from the half-sent start-up data) onto the user's terminal; workers need no standard error,
    their exceptions come back to the parent. Standard error is the whole process's, though: where other threads may
    write to it (`icml-bot serve` refreshing the index), their lines would be lost meanwhile, so it is left alone.
    A signal blocked here reaches the parent when the block ends; the workers keep it blocked, then ignore it.
    """
    quiet = threading.active_count() == 1
    sys.stderr.flush()
    saved = os.dup(2) if quiet else -1
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        if quiet:
            with open(os.devnull, "wb") as devnull:
                os.dup2(devnull.fileno(), 2)
        yield
    finally:
        if quiet:
            os.dup2(saved, 2)
            os.close(saved)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _start_worker(parent: int) -> None:
    """In each worker: ignore the signals that stop the parent (it stops us), and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # so does systemd's stop
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        # The kernel kills us when the parent dies, even by SIGKILL
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before that took effect
        os._exit(1)
    if sys.platform != "linux":
        threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """Where the kernel cannot kill a worker with its parent: exit within a second of being orphaned."""
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)
