"""The app's Home tab: published on `app_home_opened` and again whenever the user saves or unsaves a paper.

Listeners only hand the view to the HomePublisher (bot/slack/home_publisher.py), which talks to Slack.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.digest.words import day_label, when_label
from bot.slack import commands
from bot.slack.blocks import Block
from bot.slack.blocks import digest as digest_blocks
from bot.slack.blocks import history as history_blocks
from bot.slack.blocks import plan as plan_blocks
from bot.slack.blocks import team as team_blocks
from bot.slack.home_publisher import HomePublisher
from bot.slack.plan_command import person_zone
from bot.slack.services import Services
from bot.state import State
from bot.team import history, saves, wants
from bot.team import plan as plans
from bot.team.listing import Page, lookup_all
from bot.team.saves import SavedPaper

EVENTS = ("app_home_opened",)


def digest_lines(deps: Services, team: str) -> list[team_blocks.DigestLine]:
    """Workspace `team`'s channel digests with their schedule and next time (none without a digest service).

    A subscription made before workspaces were recorded (team "") belongs to the one workspace of a single-workspace
    install; with many workspaces it is nobody's until a workspace adopts it (bot/slack/digest_commands.py).
    """
    service = deps.digests
    if service is None:
        return []
    now = service.clock()
    lines = []
    # Another workspace's channels are not this one's business
    for sub in service.subscriptions.active(team):
        at = service.next_slot(sub, now)
        label = f"{when_label(at)} ({day_label(at.date())})" if at else None
        lines.append(team_blocks.DigestLine(sub.channel, digest_blocks.schedule_text(sub), label))
    return lines


def help_lines() -> list[tuple[str, str]]:
    """`/icml` usage from the command table, as `/icml help` shows it."""
    entries = [
        commands.SEARCH_HELP,
        *((" ".join(filter(None, (s.name, s.usage))), s.help) for s in commands.SUBCOMMANDS),
    ]
    return [(f"{commands.COMMAND} {usage}", text) for usage, text in entries]


def today_blocks(deps: Services, state: State, team: str, user: str, client: WebClient | None) -> list[Block]:
    """During a venue's days, the person's plan for today in their Slack time zone (the date from the services'
    clock, as the digests'); nothing otherwise, and then no users.info call."""
    now = deps.digests.clock() if deps.digests is not None else datetime.now(UTC)
    wanted = wants.of_user(state, deps.papers, team, user)
    if not plans.around(wanted, now):
        return []
    tz, note = person_zone(client, user)
    found = plans.today(wanted, tz, now)
    return plan_blocks.today_blocks(*found, tz_note=note) if found else []


def home_view(
    deps: Services, team: str, user: str, similar_to: str = "", client: WebClient | None = None
) -> dict[str, Any]:
    """The Home view for one user: their plan for today during a venue's days, their newest saves, the digests,
    help; papers similar to `similar_to` on top. `client`: reads the person's time zone for today's plan."""
    state = deps.state
    if state is None:
        raise RuntimeError("the Home tab needs the state database")
    page = saves.saved(state, deps.papers, team, user, limit=team_blocks.HOME_SAVED)
    similar = None
    paper = deps.papers.get(similar_to) if similar_to else None
    if paper is not None:
        similar = (paper, [r.paper for r in deps.papers.similar(str(paper["id"]), k=5)])
    return team_blocks.home_view(
        page,
        digest_lines(deps, team),
        help_lines(),
        similar,
        saves.saved_ids(state, team, user),
        *home_history(deps, state, team, user, page),
        today_blocks(deps, state, team, user, client),
    )


def home_history(
    deps: Services, state: State, team: str, user: str, page: Page[SavedPaper]
) -> tuple[dict[str, str], list[team_blocks.Discussed]]:
    """The workspace's memory on the Home tab: a line per saved paper (who else saved it, where it was shared), and
    the papers shared or unfurled in the workspace lately."""
    now = time.time()
    ids = [item.paper_id for item in page.items]
    lines = {pid: history_blocks.home_line(m, user, now) for pid, m in history.memories(state, team, ids).items()}
    lately = history.recently_discussed(state, team, team_blocks.HOME_DISCUSSED)
    papers = lookup_all(deps.papers, [m.paper_id for m in lately])
    discussed = [
        team_blocks.Discussed(paper, history_blocks.discussed_line(m, now))
        for m, paper in zip(lately, papers, strict=True)
        if paper is not None
    ]
    return lines, discussed


def publish(
    publisher: HomePublisher, client: WebClient, deps: Services, team: str, user: str, similar_to: str = ""
) -> None:
    """Have the user's Home view published soon (with their state then), without waiting for Slack here."""
    publisher.submit(team, user, client, lambda: home_view(deps, team, user, similar_to, client))


class Home:
    """The app_home_opened listener; a bound method so Bolt can read its parameter names."""

    def __init__(self, deps: Services, publisher: HomePublisher) -> None:
        self.deps = deps
        self.publisher = publisher

    def on_home_opened(self, event: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        """Publish the Home view when the user opens the Home tab (not the Messages tab)."""
        if event.get("tab", "home") != "home" or not event.get("user"):
            return
        team = str(body.get("team_id") or (body.get("authorizations") or [{}])[0].get("team_id") or "")
        publish(self.publisher, client, self.deps, team, str(event["user"]))


def register(app: App, deps: Services, publisher: HomePublisher) -> None:
    """Register the app_home_opened listener (manifest.yml subscribes to the event and enables the Home tab)."""
    app.event("app_home_opened")(Home(deps, publisher).on_home_opened)
