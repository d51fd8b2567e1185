"""One `/icml` call as every subcommand handler takes it (commands.py dispatches; team and digest commands answer)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from slack_sdk import WebClient

from bot.slack.services import Services


@dataclass(frozen=True)
class Invocation:
    """One `/icml` call: the words after the subcommand, who asked, in which channel, and the app's dependencies."""

    args: str
    user_id: str
    channel_id: str
    deps: Services
    # The workspace, from Slack's payload: saves and channel lists are kept per workspace
    team_id: str = ""
    client: WebClient | None = None  # for work after the ack (file uploads); None in previews
    response_url: str = ""
    # Run after the ack, in a small pool
    later: list[Callable[[], None]] = field(default_factory=list)
    # The workspace's Enterprise Grid org, if any (an org-wide install posts its digests)
    enterprise_id: str = ""
