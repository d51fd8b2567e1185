"""`/icml trend <topic>` through the app as served: the numbers in the ack, the chart uploaded into the channel
through the fake Slack's external upload flow, and the counts equal to what `/icml <topic> venue:<v>` reports."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, slack_config, texts
from tests.support.venue_index import build_four_venue_index

VENUES = {"ICLR 2024": "iclr2024", "ICML 2024": "icml2024", "ICLR 2026": "iclr2026", "ICML 2026": "icml2026"}
# S: the first chart imports matplotlib (a bound for a slow shared machine, not a timing test)
UPLOAD_WAIT = 120


@pytest.fixture(scope="module")
def four_venues(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_four_venue_index(tmp_path_factory.mktemp("slack-trend"))


@pytest.fixture
def app(fake: FakeSlack, four_venues: Path, tmp_path: Path) -> Iterator[SlackHttp]:
    http = SlackHttp(slack_config(fake, four_venues, tmp_path / "state.db"))
    yield http
    http.stop()


def table(text: str) -> dict[str, tuple[int, int, str]]:
    """The numbers of a trend's code block: venue label → (papers, on topic, share)."""
    (block,) = re.findall(r"```(.*?)```", text, re.DOTALL)
    rows: dict[str, tuple[int, int, str]] = {}
    for line in block.splitlines()[1:]:
        found = re.fullmatch(r"(\S+ \d{4})\s+([\d,]+)\s+([\d,]+)\+?\*?\s+(\S+)", line)
        if found:
            rows[found[1]] = (int(found[2].replace(",", "")), int(found[3].replace(",", "")), found[4])
    return rows


def search_total(app: SlackHttp, query: str) -> int:
    """The total `/icml <query>` reports in its footer (`1-3 of 3 for …`), 0 when nothing matches."""
    body = texts(app.command(query).json())
    if "No papers match" in body:
        return 0
    found = re.search(r"\d+-\d+ of (?:at least )?([\d,]+) for", body)
    assert found, body
    return int(found[1].replace(",", ""))


def test_trend_answers_with_the_numbers_and_uploads_the_chart_into_the_channel(app: SlackHttp, fake: FakeSlack) -> None:
    reply = app.command("trend kv cache", user_id="U7", response_url=fake.response_url("trend")).json()
    assert reply["response_type"] == "ephemeral"
    assert problems(reply) == []
    said = texts(reply)
    assert "Papers on *kv cache* per venue" in said
    assert "Drawing the chart: it appears in this channel in a moment." in said
    numbers = table(said)
    assert numbers == {
        "ICLR 2024": (4, 1, "25.0%"),
        "ICML 2024": (3, 3, "100.0%"),
        "ICLR 2026": (4, 3, "75.0%"),
        "ICML 2026": (21, 4, "19.0%"),
    }
    # The very totals the search shows, venue by venue
    for label, (_, on_topic, _) in numbers.items():
        assert search_total(app, f"kv cache venue:{VENUES[label]}") == on_topic

    fake.wait_for("files.completeUploadExternal", ok=True, timeout=UPLOAD_WAIT)
    [chart] = fake.shared_files()
    assert chart.channel == "C1"
    assert chart.filename == "icml-trend-kv-cache.png"
    assert "<@U7> asked for the trend of *kv cache*" in chart.initial_comment
    assert table(chart.initial_comment) == numbers  # the numbers beside the chart are the bars'
    image = Image.open(io.BytesIO(chart.content or b""))
    image.verify()  # a whole, valid PNG
    image = Image.open(io.BytesIO(chart.content or b""))
    assert image.format == "PNG"
    assert image.size == (900, 600)
    # Drawn: bars and text, not blank
    assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 20
    # Nothing went wrong to tell
    assert [c for c in fake.calls("response") if c.name == "trend"] == []


def test_a_typo_is_counted_as_the_search_corrects_it(app: SlackHttp, fake: FakeSlack) -> None:
    said = texts(app.command("trend kv cahce").json())
    assert "Papers on *kv cache* (you typed *kv cahce*) per venue" in said
    assert table(said)["ICML 2024"] == (3, 3, "100.0%")
    fake.wait_for("files.completeUploadExternal", ok=True, timeout=UPLOAD_WAIT)
    assert fake.shared_files()[0].filename == "icml-trend-kv-cache.png"


def test_where_the_bot_is_not_in_the_channel_the_user_is_told_how_to_invite_it(app: SlackHttp, fake: FakeSlack) -> None:
    fake.set_channel("C9", is_member=False)
    reply = app.command("trend kv cache", channel_id="C9", response_url=fake.response_url("out")).json()
    assert "ICML 2026" in texts(reply)  # the numbers came at once
    told: dict[str, Any] = fake.wait_for(
        lambda c: c.method == "response" and c.name == "out", ok=True, timeout=UPLOAD_WAIT
    )[-1].params
    assert told["response_type"] == "ephemeral"
    assert "I couldn't post the file here (not_in_channel)" in texts(told)
    assert "/invite @icml-bot" in texts(told)
    assert fake.shared_files() == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("trend", "Usage: `/icml trend &lt;topic&gt;`: the topic's papers per venue and year as a chart"),
        ("trend kv cache venue:icml2024", "A trend covers every venue and year already: leave out venue: and year:."),
        ("trend kv cache year:2024", "leave out venue: and year:"),
        ("trend any papers?", "Which topic? Name one"),
        ("trend qqxqzv zzyzx", "No papers on *qqxqzv zzyzx* in any venue here (ICLR 2024, ICML 2024, ICLR 2026"),
        ("trend <!channel> & <@U1>", "No papers on *&lt;!channel&gt; &amp; &lt;@U1&gt;* in any venue here"),
    ],
)
def test_what_cannot_be_charted_gets_one_clear_line_and_no_upload(
    app: SlackHttp, fake: FakeSlack, text: str, expected: str
) -> None:
    reply = app.command(text).json()
    assert expected in texts(reply)
    assert problems(reply) == []
    assert "<!channel>" not in texts(reply)
    assert not fake.calls("files.getUploadURLExternal")  # (nothing was scheduled after the ack)


def test_help_lists_trend(app: SlackHttp) -> None:
    assert "/icml trend &lt;topic&gt;" in texts(app.command("help").json())
