"""bot/search/turns.py: searches take turns in the order they asked, and a search inside a search goes on."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from bot.search.turns import Turns


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.001)


def test_turns_go_in_the_order_they_were_asked_for() -> None:
    turns, order = Turns(), list[int]()
    threads = [threading.Thread(target=_take, args=(turns, order, n)) for n in range(6)]
    with turns:
        for n, thread in enumerate(threads, 1):
            thread.start()
            wait_until(lambda: turns.waiting() == n)  # noqa: B023 (each asks after the one before)
    for thread in threads:
        thread.join(5)
    assert order == list(range(6))
    assert turns.waiting() == 0


def _take(turns: Turns, order: list[int], n: int) -> None:
    with turns:
        order.append(n)


def test_a_turn_taken_again_by_its_holder_goes_on_and_ends_with_the_outer_one() -> None:
    turns, took = Turns(), threading.Event()
    with turns:
        with turns:  # Papers.similar searches for a title inside its own turn
            pass
        other = threading.Thread(target=_take_and_say, args=(turns, took))
        other.start()
        wait_until(lambda: turns.waiting() == 1)
        assert not took.is_set()  # still ours after the inner turn ended
    other.join(5)
    assert took.is_set()


def _take_and_say(turns: Turns, took: threading.Event) -> None:
    with turns:
        took.set()
