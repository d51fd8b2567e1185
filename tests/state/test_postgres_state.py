"""State on PostgreSQL: versioned migrations, a newer schema refused untouched, and one clear line for each bad case."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest

from bot import cli
from bot.state import State, StateUnavailable, is_unreachable
from bot.state.migrations import LATEST, MIGRATIONS
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer
from tests.support.state_sql import STATE_TABLES, state_sql

TABLES = {*STATE_TABLES, "slack_installations", "slack_bots", "schema_version"}


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return {r[0] for r in rows}


def _versions(url: str) -> list[tuple[int, str]]:
    with psycopg.connect(url) as conn:
        return [(int(r[0]), str(r[1])) for r in conn.execute("SELECT version, what FROM schema_version ORDER BY 1")]


def test_a_new_database_gets_every_migration_once_and_in_order(postgres_url: str) -> None:
    State(postgres_url).close()
    assert _tables(postgres_url) == TABLES
    assert _versions(postgres_url) == [(m.version, m.what) for m in MIGRATIONS]
    State(postgres_url).close()  # opening again changes nothing
    assert [v for v, _ in _versions(postgres_url)] == [m.version for m in MIGRATIONS]


def test_processes_starting_together_migrate_once(postgres_url: str) -> None:
    errors: list[BaseException] = []

    def open_state() -> None:
        try:
            State(postgres_url).close()
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=open_state) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert [v for v, _ in _versions(postgres_url)] == [m.version for m in MIGRATIONS]


def test_times_keep_their_fractions(postgres_url: str) -> None:
    state = State(postgres_url)
    assert state.events.first_time("Ev1", now=1_773_014_400.123456) is True
    assert state_sql(state).execute("SELECT seen_at FROM seen_events").fetchone() == (1_773_014_400.123456,)
    assert state.events.first_time("Ev1", now=1_773_014_401.0) is False


def test_a_database_of_a_newer_schema_is_refused_and_not_modified(postgres_url: str) -> None:
    State(postgres_url).close()
    with psycopg.connect(postgres_url) as conn:
        conn.execute("INSERT INTO schema_version (version, what) VALUES (%s, 'from the future')", [LATEST + 1])
        conn.execute("INSERT INTO seen_events (event_id, seen_at) VALUES ('EvKept', 1.0)")
    before = (_tables(postgres_url), _versions(postgres_url))
    with pytest.raises(StateUnavailable) as caught:
        State(postgres_url)
    message = str(caught.value)
    assert f"was written by a newer icml-bot (schema {LATEST + 1}; this release knows up to {LATEST})" in message
    assert message.endswith("It was not modified")
    assert "\n" not in message
    assert (_tables(postgres_url), _versions(postgres_url)) == before


def test_a_wrong_password_is_one_line_without_the_password(postgres_server: PostgresServer) -> None:
    own = postgres_server.password_role()
    with pytest.raises(StateUnavailable) as caught:
        State(postgres_server.url(own, user=PASSWORD_ROLE, password="hunter2-wrong"))
    message = str(caught.value)
    assert message.startswith(f"cannot log in to the state database postgresql://icml_pw:***@/{own}")
    assert message.endswith("wrong user or password; fix ICML_BOT_STATE")
    assert "hunter2" not in message
    # The right one works
    State(postgres_server.url(own, user=PASSWORD_ROLE, password=PASSWORD)).close()


def test_a_user_that_may_not_create_tables_is_told_what_to_grant(postgres_server: PostgresServer) -> None:
    postgres_server.password_role()
    with pytest.raises(StateUnavailable) as caught:
        State(postgres_server.url("postgres", user=PASSWORD_ROLE, password=PASSWORD))
    assert str(caught.value).startswith("the user of ICML_BOT_STATE may not create tables in the state database ")
    assert str(caught.value).endswith("make it the database's owner or grant it CREATE on schema public")


def test_a_missing_database_is_one_line(postgres_server: PostgresServer) -> None:
    with pytest.raises(StateUnavailable, match=r"^the state database .*/no_such_db\?host=.* does not exist: create it"):
        State(postgres_server.url("no_such_db"))


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    url = f"postgresql://bot@/icml?host={tmp_path}"  # no server listens there
    with pytest.raises(StateUnavailable) as caught:
        State(url)
    assert str(caught.value).startswith(f"cannot reach the state database {url} (")
    assert str(caught.value).endswith("start PostgreSQL or fix the host in ICML_BOT_STATE")


def test_the_driver_quoting_a_password_back_is_masked() -> None:
    """libpq quotes a URL's password in its own message ("invalid percent-encoded token: ...")."""
    with pytest.raises(StateUnavailable) as caught:
        State("postgresql://bot:Xy7%zQw9@db/icml")
    assert str(caught.value).startswith("cannot use the state database postgresql://bot:***@db/icml (invalid percent")
    assert "zQw9" not in str(caught.value)


def test_the_cli_says_one_line_for_an_unreachable_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICML_BOT_STATE", f"postgresql://bot:s3cret-pw@/icml?host={tmp_path}")
    args = ["--db", str(tmp_path / "papers.db"), "digest", "--channel", "C0123456789", "--dry-run"]
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err)
    assert err[-1].startswith("icml-bot: error: cannot reach the state database postgresql://bot:***@/icml")
    assert "s3cret-pw" not in err[-1]


def test_a_lost_server_is_reported_then_used_again_when_back(private_postgres: PostgresServer) -> None:
    url = private_postgres.new_database()
    state = State(url)
    assert state.events.first_time("EvBefore") is True
    assert state.health() == "ok"
    private_postgres.stop()
    # The ended session is noticed without a query: the error names the missing server
    down = state.health()
    assert down.startswith("OperationalError: connection is bad: connection to server on socket")
    assert "\n" not in down
    with pytest.raises(psycopg.OperationalError) as caught:
        state.events.first_time("EvDuring")
    assert is_unreachable(caught.value)
    private_postgres.start()
    # The first use after the restart already works: the dead session was replaced
    assert state.health() == "ok"
    assert state.events.first_time("EvBefore") is False  # what it knew survived
    assert state.events.first_time("EvAfter") is True
