"""Token checks before anything connects: one line naming the variable and where to find it, never its value."""

from __future__ import annotations

import re

from bot.config import Config, ConfigError, setting_help


def check_tokens(config: Config, http: bool) -> None:
    """Fail fast with one line naming the variable and where to find it; never echo a token's value."""
    if config.many_workspaces:
        if not http:
            raise ConfigError(
                "SLACK_CLIENT_ID and SLACK_CLIENT_SECRET install the app in many workspaces, which needs HTTP mode "
                "(/slack/install and /slack/oauth_redirect): run `icml-bot serve --http`, or unset them"
            )
    else:
        _check("SLACK_BOT_TOKEN", config.bot_token, "xoxb-")
    if http:
        if not config.signing_secret:
            raise ConfigError(
                f"SLACK_SIGNING_SECRET is not set (needed with --http). {setting_help('SLACK_SIGNING_SECRET')}"
            )
    else:
        if not config.app_token:
            raise ConfigError(
                f"SLACK_APP_TOKEN is not set (needed for Socket Mode; or run `icml-bot serve --http`). "
                f"{setting_help('SLACK_APP_TOKEN')}"
            )
        _check("SLACK_APP_TOKEN", config.app_token, "xapp-")


def _check(env: str, value: str, prefix: str) -> None:
    if not value:
        raise ConfigError(f"{env} is not set. {setting_help(env)}")
    if not value.startswith(prefix) or not re.fullmatch(r"[\w-]+", value):
        raise ConfigError(f"{env} is malformed: it must start with {prefix}. {setting_help(env)}")
