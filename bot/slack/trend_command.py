"""`/icml trend <topic>`: the numbers in the acknowledgement, the chart drawn and uploaded into the channel after it.

Counting is a search per venue (milliseconds each), so the numbers fit in Slack's 3 s; drawing (and, the first
time, importing matplotlib) and uploading follow the ack in commands' small pool, through Slack's external upload
flow as exports are sent. A channel the bot is not in is told so, by name, through the command's response_url.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError

from bot.search.trends import Trend, TrendError, count_label, share_label
from bot.slack import blocks, team_commands
from bot.slack.blocks import Message
from bot.slack.blocks import trend as trend_blocks
from bot.slack.invocation import Invocation

log = logging.getLogger(__name__)

USAGE = "<topic>"
HELP = "the topic's papers per venue and year as a chart in this channel, with the numbers"
ALT_CHARS = 1000  # the chart's alt text for screen readers


def trend(inv: Invocation) -> Message:
    """Count the topic in every venue and answer with the numbers; the chart follows in the channel."""
    try:
        found = inv.deps.papers.trend(inv.args)
    except TrendError as exc:
        return blocks.notice(blocks.escape(str(exc)))
    drawing = inv.client is not None and found.matches > 0
    if drawing:
        inv.later.append(lambda: deliver(inv, found))
    return trend_blocks.trend_message(found, drawing)


def deliver(inv: Invocation, found: Trend) -> None:
    """Draw the chart and upload it into the channel with the numbers; a failure is told to the user, by name."""
    # matplotlib only now, on the pool's thread: never in a search's start-up
    from bot import charts

    client = inv.client
    if client is None:
        return
    try:
        png = charts.draw(found)
    except Exception:
        log.exception("drawing the trend chart of %r failed", found.topic)
        team_commands.tell(inv, blocks.notice("I couldn't draw the chart (the error is logged); the numbers stand."))
        return
    try:
        client.files_upload_v2(
            channel=inv.channel_id,
            content=png,
            filename=found.filename,
            title=f"Papers on “{found.corrected or found.topic}” per venue and year",
            alt_txt=_alt_text(found),
            initial_comment=trend_blocks.chart_comment(found, inv.user_id),
        )
    except SlackApiError as exc:
        error = str(exc.response.get("error") or exc.response.status_code)
        log.warning("trend chart upload for %s in %s failed: %s", inv.user_id, inv.channel_id, error)
        team_commands.tell(inv, blocks.notice(team_commands.upload_failed(error, to_channel=True)))
    except OSError as exc:
        log.warning("trend chart upload for %s failed: %s", inv.user_id, exc)
        team_commands.tell(inv, blocks.notice(team_commands.upload_failed(type(exc).__name__, to_channel=True)))


def _alt_text(found: Trend) -> str:
    """The chart for a screen reader: each venue's count and share."""
    parts = [f"{v.label}: {count_label(v)} papers ({share_label(v)})" for v in found.venues]
    return (f"Papers on {found.corrected or found.topic} per venue: " + "; ".join(parts))[:ALT_CHARS]
