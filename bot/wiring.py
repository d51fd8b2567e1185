"""The one place that builds the bot's parts from a Config: the paper reader, the state, the digests and their poster.

The CLI and every serving process (bot/serve) call `build`; bot/slack/app.py builds the Bolt app on what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from slack_sdk import WebClient

from bot.config import Config
from bot.digest import schedules
from bot.digest.building import DigestBuilder
from bot.digest.channels import ChannelDigests
from bot.digest.model import validate_channel
from bot.digest.service import DigestService
from bot.digest.subscriptions import Subscriptions
from bot.search.reader import Papers
from bot.slack import oauth
from bot.slack.digest_post import SlackPoster
from bot.slack.reminders import ReminderDesk, SlackReminders
from bot.slack.services import Services
from bot.state import State


@dataclass(frozen=True)
class Parts:
    """What the commands and the listeners work with: the index reader, the state database and the digests."""

    papers: Papers
    state: State
    digests: DigestService
    # conference-day DMs before saved papers' sessions (started by serve)
    reminders: ReminderDesk | None = None

    @property
    def services(self) -> Services:
        """The same parts as the listeners take them."""
        return Services(papers=self.papers, state=self.state, digests=self.digests)

    def close(self) -> None:
        """Stop the digests (a post under way is not waited for) and the reminders, and close the state."""
        self.digests.stop()
        if self.reminders is not None:
            self.reminders.stop(timeout=0)
        self.state.close()


def build(config: Config, client: WebClient | None = None) -> Parts:
    """Open the state database and build the reader and the digests (ICML_DIGEST_CHANNEL checked before they post).

    `client` is the Slack Web API client the digests post with (its token and URL); by default the bot token's.
    """
    reader = papers(config)
    state = State(config.state_target)
    service = digests(config, reader, state, client)
    return Parts(reader, state, service, reminders(reader, state, service))


def papers(config: Config) -> Papers:
    """The paper index as everyone reads it (ICML_BOT_DB), covering ICML_BOT_VENUES."""
    return Papers(config.db_path, config.venues)


def digests(config: Config, reader: Papers, state: State, client: WebClient | None = None) -> DigestService:
    """The digests of this process, posting with the bot token (with many workspaces, each workspace's own)."""
    if config.digest_channel:
        validate_channel(config.digest_channel)
    subscriptions = Subscriptions(state, config)
    builder = DigestBuilder(state, reader, subscriptions, next_run=schedules.next_run)
    posting = ChannelDigests(state, builder, poster(config, state, client), grace=config.digest_grace)
    return DigestService(subscriptions, builder, posting, state.leases, takeover=float(config.digest_takeover))


def poster(config: Config, state: State, client: WebClient | None = None) -> SlackPoster:
    """The digests' Slack poster: the bot token, or with SLACK_CLIENT_ID each channel's workspace installation."""
    # Each channel's digest posts with the bot token of the workspace it belongs to
    if config.many_workspaces:
        installations = oauth.open_installations(config)
        # Workspace → its Enterprise Grid org, once found (a workspace keeps its org)
        orgs: dict[str, str] = {}

        def token_for(team: str) -> str | None:
            """Its own installation's token, else its org's: the state database is asked for the org only when the
            workspace has no installation of its own and its org is not known yet (never once per post)."""
            token = installations.bot_token(team, orgs.get(team, ""))
            if token is None and team not in orgs and (org := state.digests.enterprise_of(team)):
                orgs[team] = org
                token = installations.bot_token(team, org)
            return token

        return SlackPoster(WebClient(base_url=config.api_url), token_for=token_for)
    return SlackPoster(client or WebClient(token=config.bot_token, base_url=config.api_url))


def reminders(reader: Papers, state: State, service: DigestService) -> ReminderDesk | None:
    """The conference-day reminders of this process, sent with the digests' Slack client (each workspace's own)."""
    sender = service.digests.poster
    return ReminderDesk(state, reader, SlackReminders(sender.client_for)) if isinstance(sender, SlackPoster) else None
