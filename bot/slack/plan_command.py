"""`/icml plan [channel] [ics] [venue]`: a person's (or a channel's) papers of a venue by day and session, in the
person's Slack time zone (users.info); `ics` sends the plan as a calendar file in the DM, as exports are sent.

commands.SUBCOMMANDS routes the word here; the planning itself is bot/team/plan.py, the blocks bot/slack/blocks/plan.py.
"""

from __future__ import annotations

import logging
import re
import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import blocks
from bot.slack.blocks import Message, escape
from bot.slack.blocks import plan as plan_blocks
from bot.slack.invocation import Invocation
from bot.slack.team_commands import NO_STATE, open_dm, tell, upload_failed
from bot.team import ics, reminders, wants
from bot.team import plan as plans

log = logging.getLogger(__name__)

USAGE = "[channel] [ics] [venue]"
HELP = (
    "your saved papers by day and session in your time zone, with rooms, poster numbers and clashes; `channel`: "
    "this channel's reading list and what its members saved; `ics`: a calendar file in our DM"
)
REMIND_USAGE = "<minutes> | off"
REMIND_HELP = "a DM that many minutes before each session of your saved papers, with the room and poster number"
MEMBERS_PAGE = 1000  # conversations.members per page (Slack's most)
MEMBERS_PAGES = 10  # a channel of more than 10,000 members counts its first 10,000
_VENUE = re.compile(r"^[a-z]+\d{4}$")


def user_zone(inv: Invocation) -> tuple[ZoneInfo, str]:
    """The person's time zone from Slack (users.info `tz`), and a note when it could not be read (UTC then)."""
    return person_zone(inv.client, inv.user_id)


def person_zone(client: WebClient | None, user_id: str) -> tuple[ZoneInfo, str]:
    """A person's time zone from Slack (users.info `tz`), and a note when it could not be read (UTC then)."""
    if client is None or not user_id:
        return ZoneInfo("UTC"), ""
    try:
        user = client.users_info(user=user_id)["user"] or {}
    except SlackApiError as exc:
        error = str(exc.response.get("error") or exc.response.status_code)
        log.warning("users.info for %s failed: %s", user_id, error)
        return ZoneInfo("UTC"), f" (I couldn't read your Slack time zone: {error})"
    name = str(user.get("tz") or "")
    found = plans.zone(name)
    return found, "" if found.key == name else " (your Slack profile has no time zone)"


def channel_members(inv: Invocation) -> list[str] | str:
    """The channel's members (conversations.members, paged), or why they cannot be read."""
    if inv.client is None:
        return []
    members: list[str] = []
    cursor = ""
    try:
        for _ in range(MEMBERS_PAGES):
            page = inv.client.conversations_members(channel=inv.channel_id, limit=MEMBERS_PAGE, cursor=cursor or None)
            members.extend(str(m) for m in page.get("members") or [])
            cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
            if not cursor:
                break
    except SlackApiError as exc:
        return str(exc.response.get("error") or exc.response.status_code)
    return members


def plan(inv: Invocation) -> Message:
    """`/icml plan [channel] [ics] [venue]`."""
    state = inv.deps.state
    if state is None:
        return blocks.notice(NO_STATE)
    words = inv.args.lower().split()
    team, as_file = "channel" in words, "ics" in words
    rest = [w for w in words if w not in ("channel", "ics")]
    if len(rest) > 1 or (rest and not _VENUE.match(rest[0])):
        return blocks.notice(f"Usage: `/icml plan {escape(USAGE)}`: {escape(HELP)}; a venue like `icml2026`.")
    venue = rest[0] if rest else None
    if team:
        members = channel_members(inv)
        if isinstance(members, str):
            return blocks.notice(
                f"I can't see who is in this channel ({escape(members)}): invite me with `/invite @icml-bot`, or ask "
                "an admin to reinstall the app (it needs channels:read and groups:read)."
            )
        wanted = wants.of_channel(state, inv.deps.papers, inv.team_id, inv.channel_id, members)
    else:
        wanted = wants.of_user(state, inv.deps.papers, inv.team_id, inv.user_id)
    tz, note = user_zone(inv)
    made = plans.build(wanted, tz, venue)
    if not made.days and not made.unplaced:
        return plan_blocks.empty_plan(team, venue or made.venue)
    if as_file:
        return send_calendar(inv, made, team)
    return plan_blocks.plan_message(made, team=team, channel=inv.channel_id, tz_note=note)


def send_calendar(inv: Invocation, made: plans.Plan, team: bool) -> Message:
    """Send the plan's sessions as an .ics file to the person's DM, after the ack (as exports are sent)."""
    if not made.sessions:
        return blocks.notice(
            f"None of these papers has a session with a time yet, so there is nothing to put in a calendar: "
            f"`/icml plan{' channel' if team else ''}` says why for each."
        )
    content = ics.calendar(made, datetime.fromtimestamp(time.time(), UTC))
    name = ics.filename(made)
    whose = "This channel's" if team else "Your"
    inv.later.append(lambda: deliver(inv, content, name, f"{whose} {made.venue_label} plan, for your calendar"))
    count = len(made.sessions)
    return blocks.notice(
        f"Sending {count} session{'s' * (count != 1)} as `{escape(name)}` to our DM: open it to add them to your "
        "calendar (importing it again updates them)."
    )


def deliver(inv: Invocation, content: str, name: str, comment: str) -> None:
    """Upload the calendar file into the person's DM with the bot; a failure is told to them, by name."""
    client = inv.client
    if client is None:
        return
    try:
        client.files_upload_v2(
            channel=open_dm(client, inv.user_id), content=content, filename=name, title=name, initial_comment=comment
        )
    except SlackApiError as exc:
        error = str(exc.response.get("error") or exc.response.status_code)
        log.warning("calendar upload for %s failed: %s", inv.user_id, error)
        tell(inv, blocks.notice(upload_failed(error, False)))
    except OSError as exc:
        log.warning("calendar upload for %s failed: %s", inv.user_id, exc)
        tell(inv, blocks.notice(upload_failed(type(exc).__name__, False)))


def remind(inv: Invocation) -> Message:
    """`/icml remind 15`, `/icml remind off`, bare `/icml remind`: whether and when reminders come."""
    state = inv.deps.state
    if state is None:
        return blocks.notice(NO_STATE)
    word = inv.args.strip().lower()
    if word in ("off", "stop"):
        if state.reminders.opt_out(inv.team_id, inv.user_id):
            return blocks.notice("Reminders are off: I won't DM you before sessions (`/icml remind 15` turns them on).")
        return blocks.notice("You had no reminders on. `/icml remind 15` DMs you 15 minutes before each session.")
    current = state.reminders.of(inv.team_id, inv.user_id)
    if not word and current is None:
        return blocks.notice(f"Usage: `/icml remind {escape(REMIND_USAGE)}`: {escape(REMIND_HELP)}.")
    minutes = current.minutes if not word and current else reminders.minutes_from(word)
    if minutes is None:
        return blocks.notice(
            f"Usage: `/icml remind {escape(REMIND_USAGE)}`: how many minutes before each session, from 1 to "
            f"{reminders.MAX_MINUTES} (e.g. `/icml remind 15`), or `off`."
        )
    tz, note = user_zone(inv)
    # The process's one clock
    now = inv.deps.digests.clock() if inv.deps.digests else datetime.now(UTC)
    if word:
        state.reminders.opt_in(inv.team_id, inv.user_id, minutes, tz.key, now.timestamp())
    found = reminders.plans_of(state, inv.deps.papers, inv.team_id, inv.user_id, tz.key)
    ahead = reminders.upcoming(found, now)
    return plan_blocks.remind_reply(minutes, ahead, tz, note)
