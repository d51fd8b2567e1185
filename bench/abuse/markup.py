"""Raw markup in figures: the CPU a 40,000-character `<#C1|` mention costs, beside a plain mention and the old pattern.

Run: python -m bench markup (a few seconds). The served app (`icml-bot serve --http` as the tests start it, the
19 bundled abstracts, a local fake of the Slack Web API) gets signed app_mention events; the process's CPU is read
from the event's arrival until its reply is posted. Beside it, the function the app reads a mention with, and the
old unbounded `<[^>]*>` patterns over the same text (the baseline, measured in the same run).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

RAW_MARKUP = "<#C1|" * 8_000  # 40,000 characters posted through the API (unescaped)
PLAIN = "speculative decoding for long kv caches?"  # 40 characters
# The patterns that read mentions before the cut (bot/slack/message_text.py): each `[^>]*` ran to the text's end.
OLD_PATTERNS = (
    re.compile(r"<(https?://[^|>\s]+)(?:\|[^>]*)?>"),
    re.compile(r"<(https?://[^|>]+)\|([^>]*)>"),
    re.compile(r"<#[A-Z0-9]+\|([^>]*)>"),
    re.compile(r"<[^>]*>"),
)


def cpu_ms(work: Callable[[], object]) -> float:
    """Milliseconds of this process's CPU that `work` took."""
    started = time.process_time()
    work()
    return (time.process_time() - started) * 1000


def old_read(text: str) -> str:
    """A mention read the old way: every markup pattern over the whole text."""
    for pattern in OLD_PATTERNS:
        text = pattern.sub(" ", text)
    return text


def figures() -> list[str]:
    """CPU for a raw-markup mention through the served app and through its reading function, each beside baselines."""
    from bot.slack.commands import MAX_INPUT_CHARS
    from bot.slack.message_text import slack_to_plain
    from tests.support.fake_slack import FakeSlack
    from tests.support.slack_harness import SlackHttp, build_slack_index, slack_config
    from tests.support.slack_requests import mention_event

    read = cpu_ms(lambda: slack_to_plain(RAW_MARKUP, MAX_INPUT_CHARS, keep_links=True))
    read_plain = cpu_ms(lambda: slack_to_plain(PLAIN, MAX_INPUT_CHARS, keep_links=True))
    old = cpu_ms(lambda: old_read(RAW_MARKUP))
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as fake:
        served = SlackHttp(slack_config(fake, build_slack_index(Path(tmp)), Path(tmp) / "state.db"))
        try:

            def reply(text: str, n: int) -> float:
                return cpu_ms(lambda: (served.event(mention_event(text)), fake.wait_for("chat.postMessage", count=n)))

            reply(PLAIN, 1)  # (warm: the first search loads what ranking needs)
            served_plain = reply(PLAIN, 2)
            served_raw = reply(RAW_MARKUP, 3)
        finally:
            served.stop()
    return [
        f"40,000-character raw-markup mention, served (event to posted reply): {served_raw:.1f} ms CPU "
        f"(a plain 40-character mention, searched: {served_plain:.1f} ms)",
        f"reading it (slack_to_plain): {read:.2f} ms CPU (a plain 40-character mention: {read_plain:.2f} ms; "
        f"the old unbounded <[^>]*> patterns over it: {old:.0f} ms)",
    ]


if __name__ == "__main__":
    print("\n".join(figures()))
