"""Which papers a person or a channel wants to see at a conference: their saves and reading list, as Wanted papers.

Read from the state database (one workspace's saves and lists) and looked up in the index; bot/team/plan.py places
them in their sessions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.team.plan import Wanted


def wanted_from(papers: Any, rows: Iterable[tuple[str, tuple[str, ...], bool]]) -> list[Wanted]:
    """Wanted papers from (paper id, savers, listed) rows, each looked up in the index once (`papers.get`)."""
    return [Wanted(pid, papers.get(pid), savers, listed) for pid, savers, listed in rows]


def of_user(state: Any, papers: Any, team: str, user: str) -> list[Wanted]:
    """A person's saved papers (in their workspace), as wanted papers."""
    rows, _ = state.saves.page(team, user, None, 0)
    return wanted_from(papers, ((row.paper_id, (user,), False) for row in rows))


def of_channel(state: Any, papers: Any, team: str, channel: str, members: Iterable[str] | None) -> list[Wanted]:
    """A channel's reading list and what its members saved (`members` None: everyone in the workspace, as a channel's
    "today" digest counts them), counted in one workspace (`team`: saves are kept per workspace, so in a Slack
    Connect channel the other workspace's members count nothing here)."""
    listed, _ = state.lists.page(team, channel, None, 0)
    savers: dict[str, list[str]] = {}
    saves = state.saves.of_team(team) if members is None else state.saves.of_users(team, list(members))
    for user, paper_id in saves:
        savers.setdefault(paper_id, []).append(user)
    on_list = {row.paper_id for row in listed}
    ids = dict.fromkeys([*(row.paper_id for row in listed), *savers])
    return wanted_from(papers, ((pid, tuple(sorted(savers.get(pid, ()))), pid in on_list) for pid in ids))
