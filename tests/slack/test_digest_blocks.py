"""The digest message: Block Kit limits, escaping, the same buttons as search results, the marker, one day only."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.digest.model import Digest
from bot.digest.subscriptions import Settings
from bot.digest.words import footer
from bot.slack import blocks
from bot.slack.blocks.digest import digest_message, is_digest, marker_block_id, metadata
from tests.support import block_checks
from tests.support.digest import make_digests
from tests.support.seed_ids import SEED_ORDER, VEGAS

DAY = date(2026, 3, 9)
NOW = datetime(2026, 3, 9, 0, 0, tzinfo=UTC)
PINGS = ("<!channel>", "<!here>", "<!everyone>", "<@U123>", "<@U999>", "<https://evil.example")


def plan(index_path: Path, tmp_path: Path, size: int = 3, topics: str = "") -> Digest:
    d = make_digests(None, index_path, tmp_path / "state.db", digest_size=size)
    d.subscriptions.subscribe("C0BLOCKS01", NOW, Settings(topics=topics, tz=ZoneInfo("Asia/Seoul")))
    return d.builder.plan("C0BLOCKS01", DAY)


def test_the_message_has_header_papers_buttons_and_footer(seed_index_path: Path, tmp_path: Path) -> None:
    digest = plan(seed_index_path, tmp_path)
    msg = digest_message(digest)
    assert block_checks.problems(msg) == []
    kinds = [b["type"] for b in msg["blocks"]]
    assert kinds == ["header"] + ["section", "context", "actions", "divider"] * 3 + ["context"]
    assert msg["blocks"][0]["text"]["text"] == "ICML 2026 digest · Mon 9 Mar 2026"
    assert msg["blocks"][0]["block_id"] == "icml_digest:C0BLOCKS01:2026-03-09"
    first = msg["blocks"][1]["text"]["text"]
    assert first.startswith(
        "*Vegas: A self-speculative decoding method with verification-guided sparse attention*\n"
        "_We propose Vegas, a self-speculative decoding method with verification-guided sparse "
        "attention._\nLong-context large language model (LLM) inference has become the norm"
    )
    assert "<https://github.com/platformxlab/vegas|code>" in msg["blocks"][2]["elements"][0]["text"]
    buttons = msg["blocks"][3]["elements"]
    assert [(b["text"]["text"], b["action_id"], b["value"]) for b in buttons] == [
        ("Similar", blocks.ACTION_SIMILAR, VEGAS),
        ("Abstract", blocks.ACTION_ABSTRACT, VEGAS),
        ("Save", "paper_save", VEGAS),
        ("Add to channel list", "list_add", VEGAS),
        ("More like this", "digest_more", VEGAS),
        ("Less like this", "digest_less", VEGAS),
    ]
    assert msg["blocks"][-1]["elements"][0]["text"] == "Papers 1-3 of 19 · next digest Tue 09:00 KST"
    assert msg["text"].startswith("ICML 2026 digest, Mon 9 Mar 2026: Vegas: A self-speculative decoding method")


def test_the_message_names_only_that_days_papers(seed_index_path: Path, tmp_path: Path) -> None:
    digest = plan(seed_index_path, tmp_path)
    text = json.dumps(digest_message(digest), ensure_ascii=False)
    for paper_id in SEED_ORDER:
        assert (f'"{paper_id}"' in text) == (paper_id in SEED_ORDER[:3]), paper_id
    assert "TokSuite" not in text
    assert "DefensiveKV" not in text


def test_ten_papers_fit_slacks_limits_and_every_text_is_escaped(slack_index_path: Path, tmp_path: Path) -> None:
    digest = plan(slack_index_path, tmp_path, size=10, topics="<!channel> & friends")
    assert digest.papers[0]["title"].startswith("<!channel> Attention")  # the only Oral goes first
    msg = digest_message(digest)
    assert block_checks.problems(msg) == []
    assert len(msg["blocks"]) <= blocks.MAX_BLOCKS
    raw = json.dumps(msg, ensure_ascii=False)
    for ping in PINGS:
        assert ping not in raw, ping
    first = msg["blocks"][2]["text"]["text"]  # after the header and the topics line
    assert first.startswith("*!channel Attention &amp; Friends @U999*\n_We study &lt;!here&gt; pings in abstracts")
    assert (
        msg["blocks"][1]["elements"][0]["text"] == "Papers on *&lt;!channel&gt; &amp; friends* first, then the "
        "rest of ICML 2026."
    )
    assert "javascript:" not in raw


def test_the_last_digest_of_a_round_says_so(seed_index_path: Path, tmp_path: Path) -> None:
    digest = plan(seed_index_path, tmp_path)
    last = Digest(digest.channel, DAY, digest.papers[:1], 19, 19, 1, True, next_at=None)
    msg = digest_message(last)
    assert "That's all 19 papers" in msg["blocks"][-2]["text"]["text"]
    assert footer(last) == "Paper 19 of 19"


def test_the_marker_finds_our_digest_and_nothing_else(seed_index_path: Path, tmp_path: Path) -> None:
    digest = plan(seed_index_path, tmp_path)
    msg = digest_message(digest)
    ours = {"bot_id": "B1", "metadata": metadata(digest), "blocks": msg["blocks"]}
    assert is_digest(ours, "C0BLOCKS01", DAY)
    # metadata stripped: the block_id still says
    assert is_digest({"blocks": msg["blocks"]}, "C0BLOCKS01", DAY)
    assert not is_digest(ours, "C0BLOCKS01", date(2026, 3, 10))
    assert not is_digest({"metadata": metadata(digest)}, "C0OTHER01", DAY)
    assert not is_digest({"text": "icml_digest 2026-03-09"}, "C0BLOCKS01", DAY)
    assert marker_block_id("C0BLOCKS01", DAY) in json.dumps(msg)
