"""Many workspaces: Bolt's own OAuth flow ("Add to Slack") with slack_sdk's SQLAlchemy installation store, kept in the
state database (the SQLite file or PostgreSQL), so every process and replica sees every installation. Its tables are
made by the state's migrations (bot/state/migrations.py); the OAuth state is signed, not stored (oauth_state.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from slack_bolt import App, BoltContext
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore

from bot.config import Config
from bot.slack.oauth_state import SignedStates
from bot.slack.services import Services
from bot.state import ERRORS
from bot.team import history

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
STATE_EXPIRY_SECONDS = 600  # an "Add to Slack" click must come back within 10 minutes
# The bot scopes asked for at install; manifest.yml declares the same (tests/slack/test_oauth.py checks).
LIFECYCLE_EVENTS = ("app_uninstalled", "tokens_revoked")  # handled (tokens deleted), never answered
BOT_SCOPES = (
    "commands",
    "chat:write",
    "app_mentions:read",
    "channels:history",
    "groups:history",
    "files:write",
    "im:write",
    "links:read",
    "links:write",
    "users:read",
    "channels:read",
    "groups:read",
)

log = logging.getLogger(__name__)


def engine_url(config: Config) -> str:
    """SQLAlchemy's URL for the state database: psycopg 3 for PostgreSQL, the stdlib driver for the SQLite file."""
    if config.state_url:
        return "postgresql+psycopg://" + config.state_url.split("://", 1)[1]
    return f"sqlite:///{config.state_path}"


@dataclass(frozen=True)
class Installations:
    """The installation store behind the OAuth flow, and the bot token of each installed workspace."""

    engine: sqlalchemy.Engine
    store: SQLAlchemyInstallationStore

    def bot_token(self, team: str, enterprise: str = "") -> str | None:
        """The bot token of workspace `team` (of Enterprise Grid org `enterprise`: installed in the workspace, or
        org-wide), or None when the app is not (or no longer) installed there."""
        bot = self.store.find_bot(enterprise_id=enterprise or None, team_id=team)
        # An org-wide install: one bot for every workspace of the org
        if bot is None and enterprise:
            bot = self.store.find_bot(enterprise_id=enterprise, team_id=None, is_enterprise_install=True)
        return bot.bot_token if bot is not None else None

    def teams(self) -> list[str]:
        """The workspaces the app is installed in, sorted."""
        table = self.store.bots
        with self.engine.connect() as conn:
            rows = conn.execute(sqlalchemy.select(table.c.team_id).distinct()).fetchall()
        return sorted(str(r[0]) for r in rows if r[0])


def open_installations(config: Config) -> Installations:
    """The installation store on the state database (its tables come with State's migrations, opened before)."""
    engine = sqlalchemy.create_engine(engine_url(config), pool_pre_ping=True)
    return Installations(engine, SQLAlchemyInstallationStore(client_id=config.client_id, engine=engine, logger=log))


def oauth_settings(config: Config, installations: Installations) -> OAuthSettings:
    """Bolt's OAuth settings: install and redirect paths, bot scopes only, the shared installations, signed states."""
    extra: dict[str, Any] = {"redirect_uri": config.redirect_url} if config.redirect_url else {}
    return OAuthSettings(
        client_id=config.client_id,
        client_secret=config.client_secret,
        scopes=list(BOT_SCOPES),
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        installation_store=installations.store,
        installation_store_bot_only=True,
        state_store=SignedStates(config.client_secret, STATE_EXPIRY_SECONDS),
        state_expiration_seconds=STATE_EXPIRY_SECONDS,
        logger=logging.getLogger("bot.slack.oauth.flow"),
        **extra,
    )


class Lifecycle:
    """app_uninstalled and tokens_revoked: the workspace's tokens (OAuth mode) and its paper history go."""

    def __init__(self, deps: Services) -> None:
        self.deps = deps

    def forget_history(self, team: str | None, logger: logging.Logger) -> None:
        """Delete the workspace's paper history (bot/team/history.py) and its reminder opt-ins (the bot can no longer
        DM there); its saves and lists stay with their owners."""
        state = self.deps.state
        if state is None or not team:
            return
        try:
            gone = history.forget_workspace(state, team)
            reminders = state.reminders.forget(team)
        except ERRORS as exc:
            logger.error("the paper history of workspace %s could not be deleted: %s", team, exc)
            return
        logger.info(
            "deleted the paper history (%d events) and %d reminder opt-ins of workspace %s", gone, reminders, team
        )

    def _single_uninstalled(self, context: BoltContext, logger: logging.Logger) -> None:
        logger.warning("the app was uninstalled from workspace %s: SLACK_BOT_TOKEN no longer works", context.team_id)
        self.forget_history(context.team_id, logger)

    def _single_revoked(self, event: dict[str, Any], context: BoltContext, logger: logging.Logger) -> None:
        logger.warning("workspace %s revoked the app's tokens %s", context.team_id, event.get("tokens"))
        if bot_revoked(event):
            self.forget_history(context.team_id, logger)


def bot_revoked(event: dict[str, Any]) -> bool:
    """Whether a tokens_revoked event takes the bot's token (the app can no longer act in the workspace)."""
    tokens = event.get("tokens")
    return isinstance(tokens, dict) and bool(tokens.get("bot"))


def register(app: App, deps: Services) -> None:
    """app_uninstalled and tokens_revoked: Bolt's own listeners delete that workspace's tokens at once (OAuth mode),
    and the workspace's paper history goes (a revocation: when it takes the bot's token).

    In single-workspace mode there is no installation to delete: the lines say that SLACK_BOT_TOKEN stopped working.
    Either way the workspace's subscriptions, saves and lists stay in the state database (README: Many workspaces).
    """
    lifecycle = Lifecycle(deps)
    if app.installation_store is None:
        app.event("app_uninstalled")(lifecycle._single_uninstalled)
        app.event("tokens_revoked")(lifecycle._single_revoked)
        return
    delete_all = app.default_app_uninstalled_event_listener()
    delete_listed = app.default_tokens_revoked_event_listener()

    def on_uninstalled(context: BoltContext, logger: logging.Logger) -> None:
        delete_all(context=context)
        logger.info("the app was uninstalled from workspace %s: its tokens were deleted", context.team_id)
        lifecycle.forget_history(context.team_id, logger)

    def on_revoked(event: dict[str, Any], context: BoltContext, logger: logging.Logger) -> None:
        delete_listed(event=event, context=context)
        logger.info("workspace %s revoked tokens %s: they were deleted", context.team_id, event.get("tokens"))
        if bot_revoked(event):
            lifecycle.forget_history(context.team_id, logger)

    app.event("app_uninstalled")(on_uninstalled)
    app.event("tokens_revoked")(on_revoked)
