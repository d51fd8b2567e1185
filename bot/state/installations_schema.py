"""The tables of slack_sdk's installation store (many workspaces), compiled from its own SQLAlchemy Table objects.

Migration 5 runs these statements under the migration lock, so replicas starting together never race to create them,
and compiling the store's own tables for the backend's dialect means the schema cannot drift from what it reads.
"""

from __future__ import annotations

from typing import Literal

import sqlalchemy
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.schema import CreateIndex, CreateTable

Dialect = Literal["sqlite", "postgresql"]

# Bolt's install page stored a row per visit here until the state was signed instead (bot/slack/oauth_state.py).
DROP_OAUTH_STATES = "DROP TABLE IF EXISTS slack_oauth_states"


def create_statements(dialect: Dialect) -> list[str]:
    """CREATE TABLE and CREATE INDEX, each IF NOT EXISTS (databases where create_tables() made them keep them)."""
    metadata = sqlalchemy.MetaData()
    store = SQLAlchemyInstallationStore
    tables = (
        store.build_installations_table(metadata, store.default_installations_table_name),
        store.build_bots_table(metadata, store.default_bots_table_name),
    )
    compiler = sqlite.dialect() if dialect == "sqlite" else postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]
    statements = []
    for table in tables:
        statements.append(str(CreateTable(table, if_not_exists=True).compile(dialect=compiler)))
        statements.extend(
            str(CreateIndex(index, if_not_exists=True).compile(dialect=compiler))
            for index in sorted(table.indexes, key=lambda i: str(i.name))
        )
    return statements
