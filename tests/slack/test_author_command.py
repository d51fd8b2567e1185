"""`/icml author <name>` end to end: signed requests into the served app, pages through the fake Slack."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.papers import index
from bot.slack import blocks
from tests.support.block_checks import problems
from tests.support.digest import digest_ids
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, buttons, serving, texts
from tests.support.slack_requests import block_action_payload

TOPICS = ["Reasoning", "Video", "Retrieval", "Grounding", "Planning", "Dialogue", "Calibration"]
PAPERS = (
    [
        {
            "id": f"MB{i}",
            "title": f"{topic} with Language Models, Part {i}",
            "abstract": f"We study {topic.lower()} in language models and show consistent gains on benchmarks. " * 3,
            "authors": ["Mohit Bansal", "Elias Stengel-Eskin"] if i < 4 else ["Jaemin Cho", "Mohit Bansal"],
        }
        for i, topic in enumerate(TOPICS)
    ]
    + [
        {
            "id": f"Z{i}",
            "title": f"Sparse Attention at Scale, Study {i}",
            "abstract": f"We make attention sparse in study {i} and measure what it costs and saves on long inputs. "
            * 3,
            "authors": [f"{given} Zhang"],
        }
        for i, given in enumerate(["Bo", "Yi", "Min", "Lei", "Hao", "Wei"])
    ]
    + [
        {
            "id": "BG1",
            "title": "Basal Ganglia Circuits for Action Selection",
            "abstract": "The basal ganglia select actions; we model basal circuits with spiking networks. " * 3,
            "authors": ["Ada <!everyone> Lovelace"],
        },
        {
            "id": "AA1",
            "title": "Author Attribution for Machine Text",
            "abstract": "Which model wrote this text? We study author attribution for machine generated text. " * 3,
            "authors": ["Alan Turing"],
        },
        {
            "id": "MA1",
            "title": "Integer Programming Cuts for Scheduling",
            "abstract": "We strengthen integer programming relaxations with new cuts for scheduling problems. " * 3,
            "authors": ["Manish Bansal"],
        },
    ]
)


@pytest.fixture
def people_http(fake: FakeSlack, tmp_path: Path) -> Iterator[SlackHttp]:
    with serving(fake, tmp_path, PAPERS) as served:
        yield served


def shown(message: dict[str, Any]) -> list[str]:
    return [b["value"] for b in buttons(message) if b["action_id"] == blocks.ACTION_SIMILAR]


def test_author_lists_their_papers_with_coauthors_and_pages(people_http: SlackHttp, fake: FakeSlack) -> None:
    first = people_http.command("author bansal, mohit").json()
    assert first["response_type"] == "ephemeral"
    assert "Co-authors: Elias Stengel-Eskin (4), Jaemin Cho (3)" in texts(first)
    assert "7 papers by *Mohit Bansal*" in texts(first)
    assert first["blocks"][-1]["text"]["text"].startswith("1-5 of 7 for ")
    assert problems(first) == []
    more = buttons(first)[-1]
    assert more["text"]["text"] == "More results"
    people_http.action(block_action_payload(more["action_id"], more["value"], response_url=fake.response_url("p2")))
    (call,) = fake.wait_for("response")
    second = call.params
    assert second["blocks"][-1]["text"]["text"].startswith("6-7 of 7 for ")
    everyone = shown(first) + shown(second)
    assert len(everyone) == 7
    assert len(set(everyone)) == 7  # each paper once across the pages, only theirs
    assert "BG1" not in everyone


def test_author_with_a_typo_or_an_unknown_name(people_http: SlackHttp) -> None:
    typo = people_http.command("author Mohit Bansl").json()
    assert "7 papers by *Mohit Bansal*" in texts(typo)
    unknown = people_http.command("author attribution").json()
    assert "No author is called *attribution*; here is what a search for *author attribution* finds." in texts(unknown)
    assert "*Author Attribution for Machine Text*" in texts(unknown)
    usage = people_http.command("author").json()
    assert usage["blocks"][0]["text"]["text"].startswith("Usage: `/icml author &lt;name&gt;`")


def test_author_with_a_surname_many_share_lists_their_papers_and_asks_for_a_first_name(people_http: SlackHttp) -> None:
    # It said "No author is called Zhang" and searched for the words `author Zhang`.
    body = people_http.command("author Zhang").json()
    said = texts(body)
    assert "No author is called" not in said
    assert "Many authors are called *Zhang*: add a first name or an initial for one person's papers" in said
    assert len(shown(body)) == 5
    assert said.count("*Sparse Attention at Scale, Study") == 5  # the page holds only their papers
    assert "Many authors are called" not in texts(people_http.command("Bo Zhang").json())
    plain = people_http.command("Zhang").json()  # a plain search says the same
    assert "Many authors are called *Zhang*: add a first name or an initial for one person's papers" in texts(plain)
    assert texts(plain).count("*Sparse Attention at Scale, Study") == 5


def test_author_with_a_surname_few_share_is_the_one_with_most_papers(people_http: SlackHttp) -> None:
    # It said "No author is called Bansal": two authors are, and Mohit Bansal wrote seven of their eight papers.
    body = people_http.command("author Bansal").json()
    said = texts(body)
    assert "No author is called" not in said
    assert "Co-authors: Elias Stengel-Eskin (4), Jaemin Cho (3)" in said


def test_a_plain_search_for_a_name_says_whose_papers_these_are(people_http: SlackHttp) -> None:
    body = people_http.command("Mohit Bansal").json()
    assert "7 papers by *Mohit Bansal*" in texts(body)
    assert "Basal" not in texts(body)  # never "corrected" into the basal ganglia
    # A name with a ping in it stays escaped
    coauthor = people_http.command("author Ada Lovelace").json()
    assert "<!everyone>" not in json.dumps(coauthor)


def test_a_digest_can_follow_a_person(people_http: SlackHttp, fake: FakeSlack, tmp_path: Path) -> None:
    channel = "C0PEOPLE01"
    reply = people_http.command('digest subscribe author:"Mohit Bansal" 5 papers', channel_id=channel).json()
    assert "Subscribed this channel to the daily ICML 2026 digest" in texts(reply)
    assert "Posted the digest" in texts(people_http.command("digest now", channel_id=channel).json())
    [post] = fake.posts(channel)
    assert len(digest_ids(post)) == 5
    db = index.connect(tmp_path / "papers.db", readonly=True)
    theirs = {pid for (pid,) in db.execute("SELECT id FROM papers WHERE source_id LIKE 'MB%'")}
    db.conn.close()
    assert len(theirs) == 7
    assert set(digest_ids(post)) <= theirs  # only their papers, though two others' exist
    # And each card shows him in bold where he is listed, as a search's answer does
    said = texts(post)
    assert said.count("*Mohit Bansal*, Elias Stengel-Eskin") + said.count("Jaemin Cho, *Mohit Bansal*") == 5


def test_author_by_initials_answers_as_a_search_for_them(people_http: SlackHttp, fake: FakeSlack) -> None:
    first = people_http.command("author M. Bansal").json()
    # The one with the most papers
    assert "Co-authors: Elias Stengel-Eskin (4), Jaemin Cho (3)" in texts(first)
    assert (
        "7 papers by *Mohit Bansal* (you typed *M. Bansal*). Also fits, listed after: Manish Bansal (1); type the"
        " full name for one person's papers." in texts(first)
    )
    # The same papers as a plain search
    assert shown(first) == shown(people_http.command("M. Bansal").json())
    more = buttons(first)[-1]
    people_http.action(block_action_payload(more["action_id"], more["value"], response_url=fake.response_url("p2")))
    (call,) = fake.wait_for("response")
    second = call.params
    assert second["blocks"][-1]["text"]["text"].startswith("6-8 of 8 for ")
    # Manish Bansal's, after Mohit's seven
    assert "*Integer Programming Cuts for Scheduling*" in texts(second)


def test_a_person_listed_several_ways_is_named_as_names_are_usually_written(fake: FakeSlack, tmp_path: Path) -> None:
    # It answered "3 papers by *min zhang*": the spelling of the first paper that listed him.
    spellings = ["min zhang", "MIN ZHANG", "Min Zhang"]
    papers = [
        {
            "id": f"MZ{i}",
            "title": f"Sparse Attention at Scale, Study {i}",
            "abstract": f"We make attention sparse in study {i} and measure what it costs on long inputs. " * 3,
            "authors": [name, "Wei Li"],
        }
        for i, name in enumerate(spellings)
    ]
    with serving(fake, tmp_path, papers) as served:
        for command in ("author min zhang", "Min Zhang"):
            said = texts(served.command(command).json())
            assert "3 papers by *Min Zhang*" in said, command
            # Each paper's own author list still shows it as listed
            assert said.count("papers by") == 1


def test_the_person_an_answer_found_is_shown_in_each_papers_author_line(fake: FakeSlack, tmp_path: Path) -> None:
    # Authors past the third were cut to "et al.": an answer listing Mohit Bansal's papers hid him in most of them.
    crowd = ["Ana One", "Ben Two", "Cleo Three", "Dan Four"]
    papers = [
        {
            "id": "MB9",
            "title": "Planning with Language Models at Length",
            "abstract": "We study planning in language models over long horizons and show gains on benchmarks. " * 3,
            "authors": [*crowd, "Mohit Bansal", "Eve Five"],
        },
        *PAPERS,
    ]
    with serving(fake, tmp_path, papers) as served:
        for command in ("Mohit Bansal planning", "author Mohit Bansal", "M. Bansal planning"):
            said = texts(served.command(command).json())
            assert "Ana One, Ben Two, Cleo Three, … *Mohit Bansal* et al." in said, command
        said = texts(served.command("author Bansal Mohit").json())
        assert "*Mohit Bansal*, Elias Stengel-Eskin" in said  # first: in bold where he is
        # The author: filter marks its author too
        said = texts(served.command("author:Bansal planning").json())
        assert "Ana One, Ben Two, Cleo Three, … *Mohit Bansal* et al." in said
        said = texts(served.command("planning").json())  # no person asked for: nobody in bold
        assert "Ana One, Ben Two, Cleo Three et al." in said


def test_a_question_around_a_name_is_about_its_topic(people_http: SlackHttp) -> None:
    # The request after a name stayed query words: "7 papers by Mohit Bansal, those about *papers reasoning* first"
    # and "No paper matches every word", as no paper says "papers" or "publish".
    for question in (
        "Mohit Bansal papers on reasoning",
        "What did Mohit Bansal publish on reasoning?",
        "Mohit Bansal's work on reasoning",
        "what has Mohit Bansal written about reasoning",
        # It said "those about *about reasoning* first"
        "show me papers from Mohit Bansal about reasoning",
    ):
        body = people_http.command(question).json()
        said = texts(body)
        assert "7 papers by *Mohit Bansal*, those about *reasoning* first" in said, question
        assert "match some" not in said, question
        assert said.index("Reasoning with Language Models, Part 0") < said.index("Video with Language Models"), question
    for question in (
        "who is Mohit Bansal?",
        "what has Mohit Bansal published?",
        "Mohit Bansal about",
        # It said "7 papers by Mohit Bansal, none about *publish*"
        "What did Mohit Bansal publish?",
        "find Mohit Bansal",
        "please list Mohit Bansal works",  # (`/icml list` is the reading list)
        "give me Mohit Bansal's latest",
    ):
        said = texts(people_http.command(question).json())
        assert "7 papers by *Mohit Bansal*" in said, question
        assert "those about" not in said, question  # it said "those about *who is* first"
        assert "none about" not in said, question
        assert "match some" not in said, question
    # A filter beside a name, not a word
    said = texts(people_http.command("Mohit Bansal oral papers").json())
    assert "No papers by *Mohit Bansal* with these filters" in said
    assert "0 papers" not in said


def test_who_works_on_a_topic_is_answered_with_the_people_with_most_papers_on_it(people_http: SlackHttp) -> None:
    said = texts(people_http.command("who works on language models?").json())
    assert "Most papers on *language models* here: Mohit Bansal (7), Elias Stengel-Eskin (4), Jaemin Cho (3)" in said
    # Only when asked who
    assert "Most papers on" not in texts(people_http.command("language models").json())
    # One paper each
    assert "Most papers on" not in texts(people_http.command("who works on basal ganglia").json())


def test_two_people_named_list_their_joint_papers_first_and_mark_both(people_http: SlackHttp) -> None:
    # It said "those about *jaemin cho* first", as if the second name were topic words.
    for query in ("Mohit Bansal and Jaemin Cho", "Mohit Bansal Jaemin Cho"):
        body = people_http.command(query).json()
        said = texts(body)
        assert "7 papers by *Mohit Bansal*, those with *Jaemin Cho* first" in said, query
        # Their three joint papers, both in bold
        assert said.count("*Jaemin Cho*, *Mohit Bansal*") == 3, query
        first = [b["text"]["text"] for b in body["blocks"] if b.get("type") == "section"][:3]
        assert all("Part 4" in t or "Part 5" in t or "Part 6" in t for t in first), query
