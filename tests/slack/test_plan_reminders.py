"""Reminders before each saved paper's session through the served app, on ICML 2026 fetched from the fake site:
`/icml remind 15` and `off`, DMs sent exactly once by two app instances on one state and after a restart, moved by a
re-fetch that moves a session, cancelled by an unsave and an opt-out; on SQLite and PostgreSQL. Times are passed in."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from bot.slack.reminders import ReminderDesk
from bot.state.reminders import Sent
from bot.team.reminders import Outcome
from tests.slack.test_plan import NEW_YORK, SEOUL, days_index, ids, numbered, save  # noqa: F401  (fixtures)
from tests.slack.test_team_saves import answer
from tests.support.conference_days import days_conference, fetch_index
from tests.support.fake_slack import FakeSlack
from tests.support.slack_clicks import press
from tests.support.slack_harness import SlackHttp, slack_config, texts


def at(when: str) -> datetime:
    """A moment in UTC, `2026-07-14 00:45`."""
    return datetime.fromisoformat(when).replace(tzinfo=UTC)


def desk(app: SlackHttp) -> ReminderDesk:
    """The app instance's reminders (as `serve` starts them, here ticked by hand with the time passed in)."""
    assert app.parts.reminders is not None
    return app.parts.reminders


def dms(fake: FakeSlack) -> list[str]:
    """The text of every DM the app sent, in order."""
    return [texts(p) for p in fake.posts() if str(p["channel"]).startswith("D")]


def unsave(app: SlackHttp, fake: FakeSlack, pid: str, user: str = "U1") -> None:
    """`user` presses Saved (confirming Unsave) under `/icml paper <pid>`."""
    press(app, fake, app.command(f"paper {pid}", user_id=user).json(), "Saved", pid, user=user, name=f"un-{pid}")
    assert "Save" in texts(answer(fake, f"un-{pid}"))


def test_reminders_go_out_once_across_two_instances_and_a_restart_move_with_a_refetch_and_stop_when_cancelled(
    fake: FakeSlack,
    days_index: Path,  # noqa: F811
    ids: dict[int, str],  # noqa: F811
    tmp_path: Path,
    state_target: Path | str,
) -> None:
    served = tmp_path / "papers.db"
    shutil.copy(days_index, served)  # this test publishes a re-fetched index over it
    config = slack_config(fake, served, state_target)
    fake.people.set_user("U1", tz=SEOUL)
    fake.people.set_user("U2", tz=NEW_YORK)
    first, second = SlackHttp(config), SlackHttp(config)  # two replicas on one state database
    try:
        first.parts.digests.clock = lambda: at("2026-07-13 12:00")
        for n in (0, 4, 6, 10):
            save(first, fake, ids[n])
        said = texts(first.command("remind 15").json())
        assert "I'll DM you 15 minutes before each session of your saved papers" in said
        assert "(times in Asia/Seoul)" in said
        assert "• Tue 14 Jul *09:45* for Oral 1A (10:00–11:00, Hall A)" in said
        assert "• Tue 14 Jul *10:45* for Poster Session 1 (11:00–12:30, Hall B)" in said
        assert "• Wed 15 Jul *10:45* for Poster Session 3 (11:00–12:30, Hall B)" in said

        assert desk(first).send_due(at("2026-07-14 00:44")) == []  # not yet
        sent = desk(first).send_due(at("2026-07-14 00:45")) + desk(second).send_due(at("2026-07-14 00:45"))
        assert [(d.user, d.session.name, d.outcome) for d in sent] == [("U1", "Oral 1A", Outcome.SENT)]
        assert desk(second).send_due(at("2026-07-14 00:50")) == []  # claimed: never again
        [oral] = dms(fake)
        assert "*Oral 1A* starts in 15 minutes (10:00–11:00, Hall A)" in oral
        assert "Generated Paper 0" in oral
        assert desk(first).tick(at("2026-07-14 00:51")) == []  # the lease: one process ticks
        assert desk(second).tick(at("2026-07-14 00:51")) is None
    finally:
        first.stop()
        second.stop()

    again = SlackHttp(config)  # a restart: a new process on the same state
    try:
        assert desk(again).send_due(at("2026-07-14 00:55")) == []
        moved = fetch_index(
            days_conference(moved={"Poster Session 1": ("2026-07-14", "14:00", "15:30", "Hall B")}),
            tmp_path / "refetched" / "papers.db",
            tmp_path / "refetched" / "cache",
        )
        assert numbered(moved) == ids  # the same papers, one session later in the day
        os.replace(moved, served)  # published over the served index, as `icml-bot publish` does
        assert desk(again).send_due(at("2026-07-14 01:45")) == []  # its old time: nothing
        [ps1] = desk(again).send_due(at("2026-07-14 04:46"))
        assert ps1.session.name == "Poster Session 1"
        dm = dms(fake)[-1]
        assert "*Poster Session 1* starts in 14 minutes (14:00–15:30, Hall B)" in dm
        assert dm.index("#1000 ") < dm.index("#1004 ")  # both saved posters, by board

        unsave(again, fake, ids[6])
        unsave(again, fake, ids[10])
        # Poster Session 3: nothing saved there any more
        assert desk(again).send_due(at("2026-07-15 01:45")) == []

        save(again, fake, ids[3], user="U2")  # Poster Session 4: Wed 07:30 UTC
        assert "10 minutes before" in texts(again.command("remind 10", user_id="U2").json())
        assert "Reminders are off" in texts(again.command("remind off", user_id="U2").json())
        assert desk(again).send_due(at("2026-07-15 07:20")) == []
        assert len(dms(fake)) == 2
        claims = again.state.reminders.claims("T1", "U1")
        assert [(c.session, c.status) for c in claims] == [
            ("2026-07-14T01:00Z Oral 1A", Sent.SENT),
            ("2026-07-14T05:00Z Poster Session 1", Sent.SENT),
        ]
    finally:
        again.stop()


def test_a_dm_slack_refused_is_tried_again_and_one_that_may_have_arrived_is_not(
    fake: FakeSlack,
    days_index: Path,  # noqa: F811
    ids: dict[int, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    app = SlackHttp(slack_config(fake, days_index, tmp_path / "state.db"))
    try:
        fake.people.set_user("U1", tz=SEOUL)
        save(app, fake, ids[0])
        app.command("remind 15")
        fake.fail_next("chat.postMessage", error="restricted_action")
        assert [d.outcome for d in desk(app).send_due(at("2026-07-14 00:45"))] == [Outcome.RETRY]
        assert [d.outcome for d in desk(app).send_due(at("2026-07-14 00:46"))] == [Outcome.SENT]
        fake.fail_next("chat.postMessage", error="internal_error", status=500)
        assert [d.outcome for d in desk(app).send_due(at("2026-07-14 01:45"))] == [Outcome.UNCERTAIN]
        assert desk(app).send_due(at("2026-07-14 01:46")) == []  # maybe sent: never twice
        assert len(dms(fake)) == 1
    finally:
        app.stop()


def test_remind_input_errors_get_one_clear_line(
    fake: FakeSlack,
    days_index: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    app = SlackHttp(slack_config(fake, days_index, tmp_path / "state.db"))
    try:
        for bad in ("remind soon", "remind 0", "remind 100000", "remind -5", "remind <!here>"):
            said = texts(app.command(bad).json())
            assert "Usage: `/icml remind" in said, bad
            assert "<!here>" not in said
        assert "Usage: `/icml remind" in texts(app.command("remind").json())  # not on: how to
        assert "You had no reminders on" in texts(app.command("remind off").json())
        app.parts.digests.clock = lambda: at("2026-07-13 12:00")
        assert "None of your saved papers has a session ahead yet" in texts(app.command("remind 5").json())
        # On: what it does
        assert "I'll DM you 5 minutes before" in texts(app.command("remind").json())
    finally:
        app.stop()
