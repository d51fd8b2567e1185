"""The installation store's tables come with the state's migrations (under their lock), exactly as slack_sdk's store
would make them, and a database where the store made them itself upgrades with its installations kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

from bot.config import Config
from bot.slack import oauth
from bot.state import State, migrations
from tests.support.slack_oauth import CLIENT_ID, CLIENT_SECRET

TABLES = ("slack_installations", "slack_bots")
BEFORE = 5  # migration 5 brought the installation tables into the migrations


def _config(tmp_path: Path, target: Path | str, name: str = "state.db") -> Config:
    """A many-workspaces Config whose state is `target` (a PostgreSQL URL or an SQLite file)."""
    url, path = (target, tmp_path / name) if isinstance(target, str) else ("", target)
    return Config(
        db_path=tmp_path / "papers.db",
        state_path=path,
        state_url=url,
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
    )


def _shape(config: Config) -> dict[str, Any]:
    """Columns (name, type, nullable), primary key and indexes of the installation tables, as SQLAlchemy reads them."""
    engine = sqlalchemy.create_engine(oauth.engine_url(config))
    try:
        found = sqlalchemy.inspect(engine)
        return {
            t: (
                [(c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(t)],
                found.get_pk_constraint(t)["constrained_columns"],
                sorted((i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in found.get_indexes(t)),
            )
            for t in TABLES
        }
    finally:
        engine.dispose()


def _table_names(config: Config) -> set[str]:
    engine = sqlalchemy.create_engine(oauth.engine_url(config))
    try:
        return set(sqlalchemy.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _installation(team: str) -> Installation:
    return Installation(
        app_id="A1",
        enterprise_id=None,
        team_id=team,
        bot_token=f"xoxb-{team.lower()}-old",
        bot_id="B1",
        bot_user_id=f"UBOT{team}",
        bot_scopes=list(oauth.BOT_SCOPES),
        user_id="UINSTALLER",
    )


@pytest.fixture
def reference(tmp_path: Path, state_target: Path | str, request: pytest.FixtureRequest) -> Config:
    """Another fresh database of the same backend, its tables made by slack_sdk's own create_tables()."""
    if isinstance(state_target, str):
        config = _config(tmp_path, request.getfixturevalue("postgres_server").new_database())
    else:
        config = _config(tmp_path, tmp_path / "reference.db", "reference.db")
    engine = sqlalchemy.create_engine(oauth.engine_url(config))
    SQLAlchemyInstallationStore(client_id=CLIENT_ID, engine=engine).create_tables()
    engine.dispose()
    return config


def test_a_new_database_gets_the_installation_tables_the_store_itself_would_make(
    tmp_path: Path, state_target: Path | str, reference: Config
) -> None:
    State(state_target).close()  # nothing else runs: no store has created a table
    config = _config(tmp_path, state_target)
    assert _shape(config) == _shape(reference)
    installations = oauth.open_installations(config)
    installations.store.save(_installation("T2"))
    assert installations.teams() == ["T2"]
    assert installations.bot_token("T2") == "xoxb-t2-old"


def test_a_database_whose_store_made_its_tables_upgrades_and_keeps_its_installations(
    tmp_path: Path, state_target: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(tmp_path, state_target)
    # The release before: migrations up to 4, the stores made their tables
    with monkeypatch.context() as older:
        steps = tuple(m for m in migrations.MIGRATIONS if m.version < BEFORE)
        older.setattr(migrations, "MIGRATIONS", steps)
        older.setattr(migrations, "LATEST", steps[-1].version)
        State(state_target).close()
    engine = sqlalchemy.create_engine(oauth.engine_url(config))
    store = SQLAlchemyInstallationStore(client_id=CLIENT_ID, engine=engine)
    states = SQLAlchemyOAuthStateStore(expiration_seconds=600, engine=engine)
    store.create_tables()
    states.create_tables()
    store.save(_installation("T2"))
    for _ in range(3):
        states.issue()  # rows the old install page left behind
    engine.dispose()
    State(state_target).close()
    assert oauth.open_installations(config).bot_token("T2") == "xoxb-t2-old"
    assert "slack_oauth_states" not in _table_names(config)
    assert set(TABLES) <= _table_names(config)
