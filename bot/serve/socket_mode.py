"""Socket Mode: one WebSocket to Slack, opened with the app-level token (Bolt's handler reconnects by itself)."""

from __future__ import annotations

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.errors import SlackApiError

from bot.config import Config, ConfigError, setting_help
from bot.slack.errors import TOKEN_ERRORS


def start_socket_mode(app: App, config: Config) -> SocketModeHandler:
    """Connect over Socket Mode (returns at once; Bolt's handler reconnects by itself)."""
    handler = SocketModeHandler(app, app_token=config.app_token)
    try:
        handler.connect()
    except SlackApiError as exc:
        error = str(exc.response.get("error"))
        if error in TOKEN_ERRORS:
            raise ConfigError(
                f"SLACK_APP_TOKEN was rejected by Slack ({error}). {setting_help('SLACK_APP_TOKEN')}"
            ) from None
        raise ConfigError(f"Slack refused a Socket Mode connection ({error}); check SLACK_APP_TOKEN") from None
    except OSError as exc:
        raise ConfigError(
            f"cannot reach Slack at SLACK_API_URL={config.api_url} to open Socket Mode "
            f"({type(exc).__name__}); check the network or SLACK_API_URL"
        ) from None
    return handler
