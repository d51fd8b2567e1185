"""Save, Unsave and `/icml saved` through the real app: signed requests in, what the user sees out of the fake Slack."""

from __future__ import annotations

from typing import Any

from bot.slack.blocks.team import HOME_SAVED, MAX_HOME_BLOCKS
from bot.team import feedback, saves
from tests.support.block_checks import problems
from tests.support.fake_slack import FakeSlack
from tests.support.seed_ids import DEFENSIVE_KV, VEGAS
from tests.support.slack_clicks import find_button, press
from tests.support.slack_harness import SlackHttp, buttons, texts
from tests.support.slack_requests import mention_event


def answer(fake: FakeSlack, name: str) -> dict[str, Any]:
    """What the app posted to the response_url called `name`."""
    return fake.wait_for(lambda c: c.method == "response" and c.name == name, ok=True)[-1].params


def save_labels(message: dict[str, Any], paper_id: str) -> list[str]:
    """Labels of the Save/Saved buttons of one paper in a message."""
    return [
        b["text"]["text"]
        for b in buttons(message)
        if b["action_id"] in ("paper_save", "paper_unsave") and paper_id in b["value"]
    ]


def test_save_in_search_results_confirms_in_place_and_lists_it(slack_http: SlackHttp, fake: FakeSlack) -> None:
    results = slack_http.command("kv cache").json()
    assert save_labels(results, DEFENSIVE_KV) == ["Save"]
    assert press(slack_http, fake, results, "Save", DEFENSIVE_KV, name="s1").status == 200
    rebuilt = answer(fake, "s1")
    assert rebuilt["replace_original"] is True  # the same ephemeral list, the button now says Saved
    saved_button = find_button(rebuilt, "Saved", DEFENSIVE_KV)
    assert saved_button["style"] == "primary"
    assert saved_button["confirm"]["confirm"]["text"] == "Unsave"  # pressing Saved offers Unsave
    assert [
        b["text"]["text"] for b in buttons(rebuilt) if DEFENSIVE_KV not in b["value"] and "save" in b["action_id"]
    ] == ["Save"] * (len(save_labels(rebuilt, "")) - 1)
    assert problems(rebuilt) == []
    # The next search already knows: the button says Saved.
    assert save_labels(slack_http.command("kv cache").json(), DEFENSIVE_KV) == ["Saved"]
    listed = slack_http.command("saved").json()
    assert listed["response_type"] == "ephemeral"
    assert "*Your saved papers* (1)" in texts(listed)
    assert "DefensiveKV" in texts(listed)
    assert [b["text"]["text"] for b in buttons(listed)] == ["Unsave", "Similar", "Abstract"]
    # The Home tab follows every save.
    home = fake.wait_for("views.publish", ok=True)[-1].params
    assert home["user_id"] == "U1"
    assert "DefensiveKV" in texts(home["view"])


def test_unsave_from_saved_and_from_the_list(slack_http: SlackHttp, fake: FakeSlack) -> None:
    results = slack_http.command("kv cache").json()
    press(slack_http, fake, results, "Save", DEFENSIVE_KV, name="s1")
    # Confirmed Unsave in the dialog
    press(slack_http, fake, answer(fake, "s1"), "Saved", DEFENSIVE_KV, name="s2")
    again = answer(fake, "s2")
    assert again["replace_original"] is True
    assert save_labels(again, DEFENSIVE_KV) == ["Save"]
    assert "no saved papers yet" in texts(slack_http.command("saved").json())
    press(slack_http, fake, results, "Save", DEFENSIVE_KV, name="s3")
    answer(fake, "s3")  # the save is done once its answer is out
    listed = slack_http.command("saved").json()
    press(slack_http, fake, listed, "Unsave", DEFENSIVE_KV, name="s4")
    # The list shown again, in place, without it
    assert "no saved papers yet" in texts(answer(fake, "s4"))


def test_double_click_saves_once_and_keeps_the_first_time(slack_http: SlackHttp, fake: FakeSlack) -> None:
    results = slack_http.command("kv cache").json()
    press(slack_http, fake, results, "Save", DEFENSIVE_KV, name="a")
    press(slack_http, fake, results, "Save", DEFENSIVE_KV, name="b")  # the same, stale button again
    assert save_labels(answer(fake, "b"), DEFENSIVE_KV) == ["Saved"]
    slack_http.drain()
    state = slack_http.state
    assert saves.count(state, "T1", "U1") == 1


def test_save_on_a_message_everyone_sees_answers_only_the_clicker(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.event(mention_event("speculative decoding"))
    post = fake.wait_for("chat.postMessage", ok=True)[0].params
    assert save_labels(post, VEGAS) == ["Save"]  # a thread answer: everyone's Save
    press(slack_http, fake, post, "Save", VEGAS, user="U2", ephemeral=False, name="p")
    said = answer(fake, "p")
    assert (said["response_type"], said["replace_original"]) == ("ephemeral", False)
    assert said["text"].startswith("Saved Vegas")
    assert find_button(said, "Unsave", VEGAS)
    press(slack_http, fake, said, "Unsave", VEGAS, user="U2", name="u")
    assert answer(fake, "u")["text"].startswith("Unsaved")


def test_save_on_a_digest_counts_as_more_like_this(slack_http: SlackHttp, fake: FakeSlack) -> None:
    slack_http.command("digest subscribe at 09:00", channel_id="C0DIGEST7")
    slack_http.command("digest now", channel_id="C0DIGEST7")
    posted = fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params.get("channel") == "C0DIGEST7", ok=True)
    digest = posted[0].params
    paper = find_button(digest, "Save")["value"]
    press(slack_http, fake, digest, "Save", paper, user="U3", channel="C0DIGEST7", ephemeral=False, name="d")
    assert "counts as *More like this*" in texts(answer(fake, "d"))
    assert feedback.channel_feedback(slack_http.state, "T1", "C0DIGEST7").liked == (paper,)
    status = texts(slack_http.command("digest status", channel_id="C0DIGEST7").json())
    assert "Liked (1)" in status
    # Its Unsave, pressed in the same channel, takes the save and the +1 it counted as back.
    press(slack_http, fake, answer(fake, "d"), "Unsave", paper, user="U3", channel="C0DIGEST7", name="du")
    assert answer(fake, "du")["text"].startswith("Unsaved")
    assert feedback.channel_feedback(slack_http.state, "T1", "C0DIGEST7").liked == ()
    assert saves.count(slack_http.state, "T1", "U3") == 0


def test_one_user_never_sees_anothers_saves(slack_http: SlackHttp, fake: FakeSlack) -> None:
    press(slack_http, fake, slack_http.command("kv cache").json(), "Save", DEFENSIVE_KV, name="x")
    answer(fake, "x")
    assert "no saved papers yet" in texts(slack_http.command("saved", user_id="U2").json())
    # Same id, other workspace
    assert "no saved papers yet" in texts(slack_http.command("saved", team_id="T2").json())
    assert save_labels(slack_http.command("kv cache", user_id="U2").json(), DEFENSIVE_KV) == ["Save"]
    assert "DefensiveKV" not in texts(slack_http.command("export bibtex", user_id="U2").json())


def test_unknown_ids_and_papers_gone_from_the_index(slack_http: SlackHttp, fake: FakeSlack) -> None:
    message: dict[str, Any] = {
        "blocks": [
            {"type": "actions", "elements": [find_button(slack_http.command("kv cache").json(), "Save", DEFENSIVE_KV)]}
        ]
    }
    message["blocks"][0]["elements"][0] = {**message["blocks"][0]["elements"][0], "value": "nosuchpaper"}
    press(slack_http, fake, message, "Save", name="n")
    assert "no longer in the index" in texts(answer(fake, "n"))
    # A save whose paper later left the index (a re-index without it) is kept, shown as gone, and can be unsaved.
    saves.save(slack_http.state, "T1", "U1", "gone0001", 1_700_000_000.0)
    listed = slack_http.command("saved").json()
    assert "`gone0001` is no longer in the index" in texts(listed)
    press(slack_http, fake, listed, "Unsave", "gone0001", name="g")
    assert "no saved papers yet" in texts(answer(fake, "g"))
    assert "Usage: `/icml saved`" in texts(slack_http.command("saved lots").json())


def test_two_hundred_saves_page_within_block_kit_limits(slack_http: SlackHttp, fake: FakeSlack) -> None:
    ids = [f"extra{i:03d}" for i in range(198)] + [
        DEFENSIVE_KV,
        VEGAS,
    ]  # most of them gone from the index: the worst case
    state = slack_http.state
    for n, paper_id in enumerate(ids):
        saves.save(state, "T1", "U1", paper_id, 1_700_000_000.0 + n)
    total = saves.count(state, "T1", "U1")
    assert total == 200
    seen: list[str] = []
    page = slack_http.command("saved").json()
    for n in range(40):
        assert problems(page) == [], problems(page)
        assert len(page["blocks"]) <= 50
        seen += [b["value"].split('"p":"')[1].split('"')[0] for b in buttons(page) if b["text"]["text"] == "Unsave"]
        nexts = [b for b in buttons(page) if b["text"]["text"] == "Next"]
        if not nexts:
            break
        press(slack_http, fake, page, "Next", name=f"page{n}")
        page = answer(fake, f"page{n}")
        assert page["replace_original"] is True
    assert len(seen) == total
    assert len(set(seen)) == total
    assert seen[:2] == [VEGAS, DEFENSIVE_KV]  # newest first
    slack_http.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home", "event_ts": "1.0"})
    view = fake.wait_for("views.publish", ok=True)[-1].params["view"]
    assert len(view["blocks"]) <= MAX_HOME_BLOCKS
    assert sum(b["text"]["text"] == "Unsave" for b in buttons(view)) == HOME_SAVED
    assert problems({"text": "home", **view}) == []


def test_more_and_less_like_this_on_a_digest_say_what_changes(slack_http: SlackHttp, fake: FakeSlack) -> None:
    channel = "C0DIGEST8"
    slack_http.command("digest subscribe at 09:00", channel_id=channel)
    slack_http.command("digest now", channel_id=channel)
    digest = fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params.get("channel") == channel, ok=True)
    post = digest[0].params
    first, second = [b["value"] for b in buttons(post) if b["text"]["text"] == "More like this"][:2]
    press(slack_http, fake, post, "More like this", first, channel=channel, ephemeral=False, name="m")
    said = answer(fake, "m")
    assert said["response_type"] == "ephemeral"
    assert "Noted: more like" in texts(said)
    assert "coming digests will bring papers close to it first" in texts(said)
    press(slack_http, fake, post, "More like this", first, user="U2", channel=channel, ephemeral=False, name="m2")
    assert "already asked for more like" in texts(answer(fake, "m2"))
    press(slack_http, fake, post, "Less like this", second, channel=channel, ephemeral=False, name="l")
    assert "push papers close to it to the back" in texts(answer(fake, "l"))
    status = texts(slack_http.command("digest status", channel_id=channel).json())
    assert "Liked (1)" in status
    assert "*Less like this:* 1 paper" in status
    preview = slack_http.command("digest preview", channel_id=channel).json()
    shown = [b["value"] for b in buttons(preview) if b["text"]["text"] == "More like this"]
    similar = slack_http.command(f"similar {first}").json()
    close = [b["value"] for b in buttons(similar) if b["text"]["text"] == "Similar"]
    assert shown[0] in close  # the next digest starts with a paper like the liked one
    bad = {"blocks": [{"type": "actions", "elements": [{**find_button(post, "Less like this"), "value": "nosuch"}]}]}
    press(slack_http, fake, bad, "Less like this", channel=channel, ephemeral=False, name="bad")
    assert "no longer in the index" in texts(answer(fake, "bad"))


def test_views_opened_from_buttons_know_what_the_clicker_saved(slack_http: SlackHttp, fake: FakeSlack) -> None:
    results = slack_http.command("kv cache").json()
    press(slack_http, fake, results, "Save", DEFENSIVE_KV, name="s")
    answer(fake, "s")
    press(slack_http, fake, results, "Abstract", DEFENSIVE_KV, name="abs")
    assert save_labels(answer(fake, "abs"), DEFENSIVE_KV) == ["Saved"]
    press(slack_http, fake, results, "Abstract", DEFENSIVE_KV, user="U2", name="abs2")
    # Another user's view of the same paper
    assert save_labels(answer(fake, "abs2"), DEFENSIVE_KV) == ["Save"]
