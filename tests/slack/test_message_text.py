"""Reading a mention's words out of Slack markup: what stays, and what hostile markup costs."""

from __future__ import annotations

import time

import pytest

from bot.slack.message_text import opening, slack_to_plain

# Generous, and still well below what `<[^>]*>`-style patterns took on each of these (docs/benchmarks.md).
CPU_SECONDS = 0.3


def test_markup_is_dropped_and_words_links_and_labels_stay() -> None:
    text = "<@U1> hi <#C1|general> <https://x.org/a_b|label> <https://y.org> :tada: *bold* &amp; <!here>"
    assert slack_to_plain(text, 500, keep_links=True) == "hi general https://x.org/a_b https://y.org bold &"
    assert slack_to_plain(text, 500) == "hi general label bold &"


def test_a_long_message_is_read_to_its_opening_without_half_an_element() -> None:
    assert opening("kv cache " * 100, 100) == ("kv cache " * 100)[:500]
    # "<@U" cut in half is not read as words
    assert opening("a" * 498 + "<@U12345>", 100) == "a" * 498
    # 15 characters of markup may hold 3 of words
    assert opening("short <@U1>", 3) == "short <@U1>"


@pytest.mark.parametrize("unit", ["<#C1|", "<", "<https://a", "<https://a|", "<@"])
def test_every_pattern_reads_hostile_markup_in_linear_time(unit: str) -> None:
    raw = unit * (40_000 // len(unit))  # posted through the API, unescaped
    started = time.process_time()
    # A limit that cuts nothing: the patterns alone are bounded
    slack_to_plain(raw, len(raw), keep_links=True)
    assert time.process_time() - started < CPU_SECONDS
