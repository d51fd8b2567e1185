"""Block Kit builders: escaping, links, Slack's size limits, and messages slack_sdk's own models accept."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from slack_sdk.models.blocks import Block

from bot.papers.row import PaperRow
from bot.search import Result, SearchResponse
from bot.slack import blocks
from bot.text.marked import Strong, marked
from tests.support import block_checks
from tests.support.seed_ids import DEFENSIVE_KV

# Only the columns the builders read: the rest of a row would be noise here.
PAPER = cast(
    PaperRow,
    {
        "id": DEFENSIVE_KV,
        "name": "DefensiveKV",
        "title": "DefensiveKV: Identifying critical KV cache entries",
        "headline": "A formal study of which KV cache entries matter.",
        "abstract": "Large language models " * 40,
        "authors": ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"],
        "url": "https://openreview.net/forum?id=abc&x=1",
        "code_url": "https://github.com/FFY0/DefensiveKV",
        "status": "Oral",
        "session": "Poster Session 2",
    },
)


def response(
    results: list[Result],
    query: str = "kv cache",
    total: int | None = None,
    offset: int = 0,
    corrected: str | None = None,
    suggestions: list[str] | None = None,
) -> SearchResponse:
    return SearchResponse(
        query, results, len(results) if total is None else total, offset, corrected, suggestions or []
    )


def sdk_accepts(message: dict[str, Any]) -> None:
    """slack_sdk's models raise SlackObjectFormationError for anything over Slack's limits."""
    for block in message["blocks"]:
        parsed = Block.parse(block)
        assert parsed is not None
        parsed.to_dict()


def test_escape_only_the_three_control_characters() -> None:
    assert blocks.escape("<!channel> & <@U123> don't *bold*") == "&lt;!channel&gt; &amp; &lt;@U123&gt; don't *bold*"
    assert blocks.escape(None) == ""


@pytest.mark.parametrize(
    ("url", "label", "expected"),
    [
        ("https://a.org/x?a=1&b=2", "Title | with <pipes>", "<https://a.org/x?a=1&amp;b=2|Title with pipes>"),
        ("http://a.org", "*Bold* & co", "<http://a.org|Bold &amp; co>"),
        ("javascript:alert(1)", "click", "click"),
        ("mailto:a@b.c", "mail", "mail"),
        ("https://a.org/a|b>c", "x", "<https://a.org/a%7Cb%3Ec|x>"),
        (None, "<!here>", "!here"),
        ("https://a.org", "", "<https://a.org>"),
    ],
)
def test_links_only_http_and_labels_cannot_break_out(url: str | None, label: str, expected: str) -> None:
    assert blocks.link(url, label) == expected


@pytest.mark.parametrize(
    ("url", "label", "expected"),
    [
        ("https://openreview.net@evil.example/x", "paper", "paper"),  # the host is evil.example
        ("https://user:secret@openreview.net/x", "paper", "paper"),
        ("https://openreview.net/\u202egnp.exe", "pdf", "pdf"),  # shows as …/exe.png
        ("https://git\u200bhub.com/a/b", "code", "code"),
        ("https://a.org/\x1b[2J", "x", "x"),
        (
            "https://evil.example/p",
            "https://openreview.net/forum?id=1",
            "https://openreview.net/forum?id=1 (<https://evil.example/p|evil.example>)",
        ),
        (
            "https://evil.example/p",
            "See openreview.net/forum",
            "See openreview.net/forum (<https://evil.example/p|evil.example>)",
        ),
        ("https://evil.example/p", "openreview.net", "openreview.net (<https://evil.example/p|evil.example>)"),
        (
            "https://evil.example/p",
            "ｏｐｅｎｒｅｖｉｅｗ．ｎｅｔ",
            "ｏｐｅｎｒｅｖｉｅｗ．ｎｅｔ (<https://evil.example/p|evil.example>)",
        ),
        (
            "https://evil.example/p",
            "www.\u202eten.weivernepo",
            "www.ten.weivernepo (<https://evil.example/p|evil.example>)",
        ),
        (
            "https://openreview.net/f?id=1",
            "https://openreview.net/f?id=1",
            "<https://openreview.net/f?id=1|https://openreview.net/f?id=1>",
        ),
        ("https://www.openreview.net/f", "openreview.net", "<https://www.openreview.net/f|openreview.net>"),
        ("https://a.org/p", "Scaling GPT-4.5 with jax.numpy", "<https://a.org/p|Scaling GPT-4.5 with jax.numpy>"),
    ],
)
def test_links_that_disguise_their_target_are_not_made(url: str, label: str, expected: str) -> None:
    assert blocks.link(url, label) == expected


def test_control_and_bidi_characters_never_reach_a_payload() -> None:
    assert blocks.escape("a\x1b[2Jb\u202ec\x07 <d>") == "a[2Jbc &lt;d&gt;"
    assert blocks.plain_text("Title\x1b]0;x\x07 \u2066here\u2069")["text"] == "Title]0;x here"
    msg = blocks.paper_message({**PAPER, "title": "T\x9b31m", "abstract": "A\x00b \u202ec.", "authors": ["Ada\u200e"]})
    assert not {ch for ch in json.dumps(msg, ensure_ascii=False) if ch in "\x00\x9b\u202e\u200e"}


def test_mention_only_for_real_user_ids() -> None:
    assert blocks.mention("U012AB3CD") == "<@U012AB3CD>"
    assert blocks.mention("!channel") == "someone"
    assert blocks.mention("U1>|<!here") == "someone"


def test_truncate_never_cuts_an_entity_a_link_or_a_bold_span() -> None:
    assert blocks.truncate("abc", 10) == "abc"
    cut = blocks.truncate("x" * 8 + "&amp;yyyy", 11)
    assert cut == "x" * 8 + "…"
    assert blocks.truncate("see <https://a.org/long|a long label here>", 20) == "see…"
    # No lone asterisk left
    assert blocks.truncate("a *bold span that goes on* and on", 15) == "a bold span t…"
    long = blocks.truncate("word " * 1000, 3000)
    assert len(long) <= 3000
    assert long.endswith("word word…")


def test_split_text_keeps_every_piece_under_the_limit() -> None:
    text = blocks.escape("<&> " * 2000)
    pieces = blocks.split_text(text, 3000)
    assert all(len(p) <= 3000 for p in pieces)
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")


def _split_by_slicing(text: str, limit: int) -> list[str]:
    """split_text as it was written first (cutting the rest off the text each time): the rules it must keep."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        cut = rest.rfind(" ", 0, limit)
        if cut <= limit // 2:
            cut = limit
            amp = rest.rfind("&", cut - 5, cut)
            if amp != -1 and ";" not in rest[amp:cut]:
                cut = amp
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["word", "&amp;", "&lt;!here&gt;", " ", "  ", "\n", "x" * 37, "ü"]), max_size=120),
    st.integers(min_value=12, max_value=60),
)
def test_split_text_cuts_where_it_always_did(parts: list[str], limit: int) -> None:
    text = "".join(parts)
    assert blocks.split_text(text, limit) == _split_by_slicing(text, limit)


def test_split_text_of_megabytes_keeps_every_word_and_entity_whole() -> None:
    # ~10 MB of escaped mrkdwn
    words = [f"w{n}&amp;x" if n % 7 == 0 else f"word{n}" for n in range(1_200_000)]
    text = " ".join(words)
    pieces = blocks.split_text(text)
    assert all(0 < len(p) <= blocks.MAX_SECTION_TEXT for p in pieces)
    assert " ".join(pieces).split(" ") == words  # cut only at spaces: no word or entity split
    assert len(pieces) == pytest.approx(len(text) / blocks.MAX_SECTION_TEXT, rel=0.01)


def test_split_text_gives_only_the_pieces_a_message_can_show() -> None:
    # ~20 MB: only the first 47 pieces fit a message
    text = " ".join(f"word{n}" for n in range(2_000_000))
    shown = blocks.split_text(text, most=blocks.MAX_BLOCKS - 3)
    assert len(shown) == blocks.MAX_BLOCKS - 3
    assert shown[0].startswith("word0 word1 ")
    assert " ".join(shown).split(" ") == [f"word{n}" for n in range(len(" ".join(shown).split(" ")))]
    assert blocks.split_text("a b c", 3, most=0) == []
    assert blocks.split_text("  short  ", most=1) == ["short"]


def test_abstract_of_megabytes_shows_what_a_message_holds() -> None:
    # ~39 MB
    paper: PaperRow = {**PAPER, "abstract": "Large language models compress caches. " * 1_000_000}
    for msg in (blocks.paper_message(paper), blocks.abstract_message(paper)):
        assert len(msg["blocks"]) <= blocks.MAX_BLOCKS
        assert block_checks.problems(msg) == []
    shown = [b["text"]["text"] for b in blocks.abstract_message(paper)["blocks"] if b["type"] == "section"][1:]
    assert len(shown) == blocks.MAX_BLOCKS - 3
    assert shown[0].startswith("Large language models compress caches. Large")


def test_result_card_shows_title_link_headline_snippet_authors_meta_and_buttons() -> None:
    msg = blocks.results_message(
        response([Result(PAPER, 1.0, marked("…reduce ", Strong("KV"), " cache size…"))], total=12)
    )
    section, context, actions = msg["blocks"][:3]
    assert section["text"]["text"] == (
        "*<https://openreview.net/forum?id=abc&amp;x=1|DefensiveKV: Identifying critical KV cache entries>*\n"
        "A formal study of which KV cache entries matter.\n…reduce *KV* cache size…"
    )
    assert context["elements"][0]["text"] == (
        "Ada Lovelace, Alan Turing, Grace Hopper et al. · Oral · Poster Session 2 · "
        f"<https://github.com/FFY0/DefensiveKV|code> · `{DEFENSIVE_KV}`"
    )
    assert [(b["text"]["text"], b["action_id"], b["value"]) for b in actions["elements"]] == [
        ("Similar", "paper_similar", DEFENSIVE_KV),
        ("Share to channel", "paper_share", DEFENSIVE_KV),
        ("Abstract", "paper_abstract", DEFENSIVE_KV),
        ("Save", "paper_save", f'{{"p":"{DEFENSIVE_KV}","v":["s","kv cache",0]}}'),
    ]
    footer = msg["blocks"][-1]
    assert footer["text"]["text"] == "1-1 of 12 for *kv cache*"
    assert footer["accessory"]["action_id"] == "results_page"
    assert json.loads(footer["accessory"]["value"]) == {"q": "kv cache", "o": 1, "r": 1}
    assert msg["text"].startswith("1-1 of 12 papers for “kv cache”")
    assert block_checks.problems(msg) == []
    sdk_accepts(msg)


@pytest.mark.parametrize(
    ("named", "line"),
    [
        ([], "Ada Lovelace, Alan Turing, Grace Hopper et al."),
        (["Alan Turing"], "Ada Lovelace, *Alan Turing*, Grace Hopper et al."),
        (["Edsger Dijkstra"], "Ada Lovelace, Alan Turing, Grace Hopper, *Edsger Dijkstra* et al."),
        (["Barbara Liskov"], "Ada Lovelace, Alan Turing, Grace Hopper, … *Barbara Liskov*"),
        (
            ["Barbara Liskov", "John Backus"],
            "Ada Lovelace, Alan Turing, Grace Hopper, … *John Backus*, … *Barbara Liskov*",
        ),
        (["Ken *<!here>* Thompson"], "Ada Lovelace, Alan Turing, Grace Hopper, … *Ken &lt;!here&gt; Thompson* et al."),
    ],
)
def test_the_author_a_search_named_is_shown_in_bold_wherever_they_are_listed(named: list[str], line: str) -> None:
    # 5th, 6th, 7th
    authors = [*PAPER["authors"], "John Backus", "Ken *<!here>* Thompson", "Barbara Liskov"]
    result = Result({**PAPER, "authors": authors}, 1.0, marked("…"), named=named)
    msg = blocks.results_message(response([result]))
    assert msg["blocks"][1]["elements"][0]["text"].split(" · ")[0] == line
    assert block_checks.problems(msg) == []


def test_public_results_have_no_share_button_and_page_without_replacing() -> None:
    msg = blocks.results_message(response([Result(PAPER, 1.0, marked())], total=9), public=True)
    labels = [b["text"]["text"] for b in msg["blocks"][2]["elements"]]
    assert labels == ["Similar", "Abstract", "Save", "Add to channel list"]
    assert json.loads(msg["blocks"][-1]["accessory"]["value"])["r"] == 0


def test_last_page_has_no_more_button_and_typo_notice_is_shown() -> None:
    msg = blocks.results_message(
        response([Result(PAPER, 1.0, marked())], query="kv cahce", total=6, offset=5, corrected="kv cache")
    )
    assert msg["blocks"][0]["elements"][0]["text"] == "Showing results for *kv cache* (you typed *kv cahce*)"
    assert msg["blocks"][-1] == {
        "type": "section",
        "text": {"type": "mrkdwn", "text": "6-6 of 6 for *kv cache*", "verbatim": True},
    }


def test_a_lower_bound_total_says_plus_and_offers_more() -> None:
    common = response([Result(PAPER, 1.0, marked())], query="large language models", total=1000)
    common.total_exact = False  # very common words: counting them all is not worth it
    footer = blocks.results_message(common)["blocks"][-1]
    assert footer["text"]["text"] == "1-1 of at least 1,000 for *large language models*"
    assert footer["accessory"]["action_id"] == "results_page"
    past = response([], query="large language models", total=120, offset=185)
    past.total_exact = False
    assert "No more papers for *large language models* (185 in all)." in json.dumps(blocks.results_message(past))


def test_no_results_says_so_and_offers_suggestions_as_buttons() -> None:
    msg = blocks.results_message(response([], query="kv cahce <!channel>", suggestions=["kv cache"]))
    assert msg["blocks"][0]["text"]["text"] == "No papers match *kv cahce &lt;!channel&gt;*. Did you mean *kv cache*?"
    (button,) = msg["blocks"][1]["elements"]
    assert button["text"]["text"] == "kv cache"
    assert json.loads(button["value"])["q"] == "kv cache"
    plain = blocks.results_message(response([], query="zzz"))
    assert "No papers match *zzz*." in plain["blocks"][0]["text"]["text"]
    assert "<!channel>" not in json.dumps(msg)


def test_page_value_fits_2000_characters_and_round_trips() -> None:
    value = blocks.page_value("ä" * 5000, 35)
    assert len(value) <= blocks.MAX_BUTTON_VALUE
    parsed = blocks.parse_page_value(value)
    assert parsed is not None
    query, offset, replace = parsed
    assert offset == 35
    assert replace
    assert set(query) == {"ä"}
    assert blocks.parse_page_value("not json") is None
    assert blocks.parse_page_value('{"q": "x", "o": -1}') is None


def test_paper_message_shows_the_whole_abstract_in_pieces_and_a_short_header() -> None:
    paper: PaperRow = {**PAPER, "title": "T" * 400, "name": None, "abstract": "word " * 1500}
    msg = blocks.paper_message(paper)
    assert msg["blocks"][0]["type"] == "header"
    assert len(msg["blocks"][0]["text"]["text"]) == 150
    abstract = [b["text"]["text"] for b in msg["blocks"] if b["type"] == "section"][1:]
    assert len(abstract) == 3
    assert " ".join(abstract).split() == ["word"] * 1500
    assert block_checks.problems(msg) == []
    sdk_accepts(msg)


def test_shared_message_is_attributed() -> None:
    msg = blocks.shared_message(PAPER, "U042")
    assert msg["blocks"][2]["elements"][0]["text"] == "Shared by <@U042> with `/icml`"
    assert msg["text"].startswith("<@U042> shared DefensiveKV")


def test_message_never_exceeds_50_blocks() -> None:
    msg = blocks.message("x", [blocks.section(str(i)) for i in range(80)])
    assert len(msg["blocks"]) == 50
    assert block_checks.problems(msg) == []


def test_problems_finds_raw_markup_and_oversized_parts() -> None:
    button = {"type": "button", "action_id": "a", "value": "v" * 2001, "text": {"type": "plain_text", "text": "b" * 80}}
    bad = {
        "text": "",
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": "<!channel> " + "x" * 3000}},
            {"type": "actions", "elements": [button]},
        ],
    }
    found = block_checks.problems(bad)
    assert any("fallback" in p for p in found)
    assert any("unsafe markup '<!channel>'" in p for p in found)
    assert any("section text" in p for p in found)
    assert any("button value" in p for p in found)
    assert any("button text" in p for p in found)


paper_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=4000)


@settings(max_examples=60, deadline=None)
@given(
    title=paper_text,
    headline=paper_text,
    abstract=paper_text,
    snippet=paper_text,
    query=paper_text,
    authors=st.lists(paper_text, max_size=60),
    url=paper_text,
)
def test_any_paper_text_gives_a_valid_escaped_message(
    title: str, headline: str, abstract: str, snippet: str, query: str, authors: list[str], url: str
) -> None:
    paper: PaperRow = {
        **PAPER,
        "title": title,
        "name": title[:20],
        "headline": headline,
        "abstract": abstract,
        "authors": authors,
        "url": url,
        "code_url": url,
        "session": headline[:100],
    }
    for msg in (
        blocks.results_message(
            response([Result(paper, 1.0, marked(snippet))] * 5, query=query, total=99, corrected=query[::-1])
        ),
        blocks.paper_message(paper),
        blocks.abstract_message(paper),
        blocks.shared_message(paper, "U1"),
        blocks.similar_message(paper, [Result(paper, 1.0, marked(snippet))] * 5),
    ):
        assert block_checks.problems(msg) == []
        assert len(msg["text"]) <= blocks.MAX_FALLBACK_TEXT
        assert "<" not in msg["text"].replace("<@U1>", "")
        sdk_accepts(msg)


def test_search_notes_are_shown_escaped() -> None:
    resp = response([Result(PAPER, 1.0, marked())])
    resp.notes = [
        marked("has:<!here> is not a filter; try has:code"),
        marked("Also showing papers with ", Strong("cache"), "."),
    ]
    notes = blocks.results_message(resp)["blocks"][0]["elements"]
    assert [n["text"] for n in notes] == [
        "has:&lt;!here&gt; is not a filter; try has:code",
        "Also showing papers with *cache*.",
    ]


@pytest.mark.parametrize(
    ("name", "title", "derived", "shown"),
    [
        (
            "LatentForcing",
            "Latent Forcing: Reordering the Diffusion Trajectory",
            False,
            "Latent Forcing: Reordering the Diffusion Trajectory",
        ),
        (
            "TransFormU",
            "Context Tuning for In-Context Optimization",
            False,
            "Context Tuning for In-Context Optimization",
        ),
        # A seed: derived title
        ("Vegas", "Fast decoding with a cache", True, "Vegas: Fast decoding with a cache"),
        ("Vegas", "Vegas: fast decoding", True, "Vegas: fast decoding"),
    ],
)
def test_official_titles_are_shown_as_published_and_only_derived_ones_get_a_name(
    name: str, title: str, derived: bool, shown: str
) -> None:
    paper: PaperRow = {**PAPER, "name": name, "title": title, "title_derived": derived}
    assert blocks.display_title(paper) == shown
