"""What unsigned visits to the install page cost the state database, beside the state store used before (issue 32).

Run: python -m bench install

Serves the production app in many-workspaces mode (SLACK_CLIENT_ID and SLACK_CLIENT_SECRET; SQLite state; the fake
Slack of the tests) and sends VISITS unsigned GET /slack/install, as anyone on the internet can. Then the same served
app again with slack_sdk's SQLAlchemyOAuthStateStore put back as Bolt's state store (what the code before this change
used): the same requests through the same Bolt flow. Prints the rows each added to the state database and the answer
times of the install page.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import sqlalchemy
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

from bot.slack import oauth
from tests.support.fake_slack import FakeSlack
from tests.support.slack_harness import SlackHttp, build_slack_index, slack_config
from tests.support.slack_install import state_rows
from tests.support.slack_oauth import CLIENT_ID, CLIENT_SECRET

VISITS = 500  # unsigned install-page visits per run (issue 32 saw 2,000 rows from 2,000 in 4 s)


def flood(folder: Path, fake: FakeSlack, index_path: Path, stored_states: bool) -> tuple[int, list[float]]:
    """(rows added to the state database, seconds per answer) for VISITS unsigned visits to the install page."""
    config = slack_config(
        fake, index_path, folder / "state.db", bot_token="", client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )
    served = SlackHttp(config)
    try:
        # The state store before: a row per visit, deleted only when the state comes back
        if stored_states:
            engine = sqlalchemy.create_engine(oauth.engine_url(config))
            before_store = SQLAlchemyOAuthStateStore(expiration_seconds=oauth.STATE_EXPIRY_SECONDS, engine=engine)
            before_store.create_tables()
            assert served.app.oauth_flow is not None
            served.app.oauth_flow.settings.state_store = before_store
        rows = sum(state_rows(config).values())
        seconds = []
        for _ in range(VISITS):
            started = time.perf_counter()
            page = served.request("GET", oauth.INSTALL_PATH)
            seconds.append(time.perf_counter() - started)
            assert page.status == 200, page.status
        return sum(state_rows(config).values()) - rows, seconds
    finally:
        served.stop()


def _ms(seconds: list[float]) -> str:
    return f"p50 {statistics.median(seconds) * 1000:.1f} ms, max {max(seconds) * 1000:.1f} ms"


def figures() -> list[str]:
    """The rows VISITS unsigned install-page visits add now, beside the stored state store's, in one run."""
    with tempfile.TemporaryDirectory(prefix="abuse-install-") as tmp, FakeSlack() as fake:
        index_path = build_slack_index(Path(tmp))
        (Path(tmp) / "now").mkdir()
        (Path(tmp) / "before").mkdir()
        now_rows, now_times = flood(Path(tmp) / "now", fake, index_path, stored_states=False)
        before_rows, before_times = flood(Path(tmp) / "before", fake, index_path, stored_states=True)
    return [
        f"rows added to the state database by {VISITS} unsigned GET /slack/install: {now_rows} "
        f"(before, slack_sdk's SQLAlchemy state store: {before_rows})",
        f"install page answer time: {_ms(now_times)} (before: {_ms(before_times)})",
    ]


if __name__ == "__main__":
    print("\n".join(figures()))
