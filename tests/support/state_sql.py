"""Raw SQL on a State's own connection, for tests of the schema itself (migrations, constraints, connections per
process) and to set up rows no command makes any more. Bot code never does this: it goes through the repositories
(state.digests, state.saves, …) in bot/state."""

from __future__ import annotations

from typing import Any

from bot.state import State

# The tables of what users make (the installation tables are slack_sdk's: tests name them apart)
STATE_TABLES = (
    "seen_events",
    "digest_subscriptions",
    "digest_runs",
    "digest_papers",
    "leases",
    "team_saves",
    "channel_list",
    "digest_feedback",
    "paper_history",
    "plan_reminders",
    "plan_reminders_sent",
)


def state_sql(state: State) -> Any:
    """This thread's connection to the state database (a sqlite_utils.Database, or a PgDatabase taking `?`)."""
    return state._db
