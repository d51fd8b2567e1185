"""The test PostgreSQL (tests/support/postgres.py) is a real server: databases apart, passwords checked, stoppable."""

from __future__ import annotations

import psycopg
import pytest

from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer


def test_each_new_database_starts_empty_and_apart(postgres_server: PostgresServer) -> None:
    first, second = postgres_server.new_database(), postgres_server.new_database()
    assert first != second
    with psycopg.connect(first) as conn:
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (1)")
    with psycopg.connect(second) as conn:
        found = conn.execute("SELECT count(*) FROM pg_tables WHERE tablename = 't'").fetchone()
    assert found == (0,)


def test_the_password_role_needs_its_password(postgres_server: PostgresServer) -> None:
    own = postgres_server.password_role()
    with psycopg.connect(postgres_server.url(own, user=PASSWORD_ROLE, password=PASSWORD)) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (PASSWORD_ROLE,)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(postgres_server.url(own, user=PASSWORD_ROLE, password="wrong"))


def test_a_private_server_stops_and_starts_again(private_postgres: PostgresServer) -> None:
    url = private_postgres.new_database()
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE kept (x int)")
        conn.execute("INSERT INTO kept VALUES (7)")
    private_postgres.stop()
    assert not private_postgres.running()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2)
    private_postgres.start()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT x FROM kept").fetchone() == (7,)
