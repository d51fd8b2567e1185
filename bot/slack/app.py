"""build_app: the Bolt app with its Web API client, retry handlers, listeners, middleware and error handler."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App
from slack_bolt.error import BoltError
from slack_sdk import WebClient

from bot.config import Config, ConfigError, setting_help
from bot.slack import (
    actions,
    commands,
    errors,
    events,
    home,
    inline_ack,
    oauth,
    replies,
    shortcuts,
    team_actions,
    unfurls,
)
from bot.slack.blocks import ACTION_IDS
from bot.slack.home_publisher import HomePublisher
from bot.slack.services import Services

# Listeners run here; the HTTP server and Socket Mode each have their own threads
LISTENER_THREADS = 16

# What the app listens to; manifest.yml must declare exactly these (tests/slack/test_manifest.py checks).
COMMANDS = commands.COMMANDS
EVENTS = (*events.EVENTS, *home.EVENTS, *unfurls.EVENTS, *oauth.LIFECYCLE_EVENTS)
ACTIONS = (*ACTION_IDS, *team_actions.ACTION_IDS, *shortcuts.ACTION_IDS)
SHORTCUTS = shortcuts.SHORTCUTS  # callback_id → message or global


def build_app(
    config: Config, deps: Services, client: WebClient | None = None, publisher: HomePublisher | None = None
) -> App:
    """The Bolt app on the parts bot.wiring built; with the default client it calls auth.test now, so a bad bot token
    fails at start.

    `publisher` publishes the Home views; whoever runs the app stops it (Runtime.stop), after the listeners.

    With SLACK_CLIENT_ID and SLACK_CLIENT_SECRET it is installed by OAuth in many workspaces instead: no bot token,
    Bolt finds each request's workspace token in the installation store.
    """
    installations = oauth.open_installations(config) if config.many_workspaces else None
    if client is None:
        client = WebClient(token=None if installations else config.bot_token, base_url=config.api_url)
    flow = oauth.oauth_settings(config, installations) if installations else None
    # Bolt copies these into every per-request client (say, context.client); none waits out a 429 in a listener.
    present = {type(h) for h in client.retry_handlers}
    client.retry_handlers.extend(h for h in replies.retry_handlers() if type(h) not in present)
    try:
        app = App(
            client=client,
            signing_secret=config.signing_secret,
            name="icml-bot",
            logger=logging.getLogger("bot.slack.bolt"),
            listener_executor=ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="listener"),
            oauth_settings=flow,
        )
    except BoltError as exc:
        raise _token_error(exc, config) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot reach Slack at SLACK_API_URL={config.api_url} ({type(exc).__name__}); check the "
            "network or SLACK_API_URL"
        ) from None
    # Also registers the global middleware that drops Slack's redeliveries
    events.register(app, deps)
    commands.register(app, deps)
    actions.register(app, deps)
    publisher = publisher or HomePublisher()
    team_actions.register(app, deps, publisher)  # Save, channel lists, digest feedback (bot/team)
    home.register(app, deps, publisher)
    unfurls.register(app, deps)  # paper links unfurl into cards (link_shared)
    # Find related papers: on a message, or a modal to paste text into
    shortcuts.register(app, deps)
    oauth.register(app, deps)
    app.error(errors.on_error)
    # /icml answers in its ack, buttons ack at once: no 10 ms polling (bot/slack/inline_ack.py)
    inline_ack.install(app)
    return app


def _token_error(exc: BoltError, config: Config) -> ConfigError:
    """auth.test failed at start: one line naming the variable, never the token."""
    reason = next((code for code in errors.TOKEN_ERRORS if code in str(exc)), None)
    if reason:
        return ConfigError(f"SLACK_BOT_TOKEN was rejected by Slack ({reason}). {setting_help('SLACK_BOT_TOKEN')}")
    return ConfigError(
        f"Slack's auth.test failed at {config.api_url}; check SLACK_BOT_TOKEN and SLACK_API_URL ({type(exc).__name__})"
    )
