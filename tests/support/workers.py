"""Work for worker-pool tests; module level, since spawned workers import it by name."""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.papers import corpus

# Per item: a chunk's result is ~20 MB, many pipe-buffers long, so sending it takes a while
RESULT_BYTES = 200_000


def large_results(chunk: list[int]) -> list[bytes]:
    """A large result for every item, so that workers spend most of their time writing to the result pipe."""
    return [bytes(RESULT_BYTES) for _ in chunk]


def squares(chunk: list[int]) -> list[int]:
    return [n * n for n in chunk]


def fails_at_777(chunk: list[int]) -> list[int]:
    if 777 in chunk:
        raise ValueError("item 777 is broken")
    return chunk


def unpicklable(chunk: list[int]) -> list[Callable[[], int]]:
    def constant(n: int) -> Callable[[], int]:
        return lambda: n  # a closure: pickle refuses it

    return [constant(n) for n in chunk]


def hangs_at_777(chunk: list[int]) -> list[int]:
    """Work that never ends for one item, as a record sending a cleaning regex into a loop would."""
    while 777 in chunk:
        time.sleep(1)
    return chunk


def hangs_on_line_250(chunk: list[corpus.Raw | corpus.Skip]) -> list[corpus.Record]:
    """The cleaning workers' work, except that the record on line 250 never finishes."""
    while any(record.line == 250 for record in chunk):
        time.sleep(1)
    return corpus._finish_chunk(chunk)
