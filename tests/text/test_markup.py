"""Markdown emphasis, TeX quotes and dashes, and HTML entities in raw text."""

from __future__ import annotations

import pytest

from bot import text
from tests.support.marks import mrkdwn


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("**R**eward-free **A**lignment", "Reward-free Alignment"),
        ("a **bold** and *italic* and __strong__", "a *bold* and _italic_ and *strong*"),
        ("an ``inverted U'' and ''zoom-in\" view", "an “inverted U” and “zoom-in” view"),
        ("Petrov--Galerkin and world---model", "Petrov–Galerkin and world—model"),
    ],
)
def test_markdown_quotes_and_dashes(raw: str, expected: str) -> None:
    assert mrkdwn(raw) == expected


def test_html_entities() -> None:
    assert mrkdwn("bias is _ubiquitous_&mdash;80% of personas") == "bias is _ubiquitous_—80% of personas"
    assert mrkdwn("a *&lt;/think&gt;* token &amp; more") == "a _</think>_ token & more"
    assert text.to_plain_text("whether&mdash;or to what extent&mdash;training") == "whether—or to what extent—training"


def test_to_mrkdwn_does_not_html_escape() -> None:
    assert mrkdwn("x < y & z > w") == "x < y & z > w"
