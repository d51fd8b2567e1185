"""A real PostgreSQL server for tests: Debian's binaries, initdb in a temp folder, listening on a unix socket only.

`PostgresServer.find()` locates initdb/pg_ctl (PATH, then /usr/lib/postgresql/*/bin) and returns None when absent, so
tests skip with a clear reason. initdb refuses to run as root: as root every server command runs as the `postgres`
user (or `nobody`) through runuser, in a folder that user owns. Local connections are trusted, except the role
`icml_pw`, which must give its password (scram-sha-256), for wrong-password tests.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

SUPERUSER = "postgres"
PASSWORD_ROLE = "icml_pw"
PASSWORD = "right-password"
START_TIMEOUT = 60  # seconds: the two shared cores may be busy with everyone's tests


def _binaries() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _unprivileged_user() -> str | None:
    """As root, the user that runs the server (initdb refuses root); None when we are not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise RuntimeError("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL")


class PostgresServer:
    """One throwaway PostgreSQL cluster: start, stop (to test a lost database), new empty databases, URLs."""

    def __init__(self, bin_dir: Path, root: Path | None = None) -> None:
        self.bin_dir = bin_dir
        self.run_as = _unprivileged_user()
        self.root = Path(root or tempfile.mkdtemp(prefix="icml-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.log = self.root / "server.log"
        self._names = itertools.count(1)
        self._own(self.root)
        self.socket_dir.mkdir(exist_ok=True)
        self._own(self.socket_dir)
        self._initdb()

    @classmethod
    def find(cls) -> Path | None:
        """Where the PostgreSQL binaries are, or None (tests then skip)."""
        return _binaries()

    def _own(self, path: Path) -> None:
        if self.run_as:
            entry = pwd.getpwnam(self.run_as)
            os.chown(path, entry.pw_uid, entry.pw_gid)
            path.chmod(0o700)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self.run_as:
            command = ["runuser", "-u", self.run_as, "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, cwd=self.root, timeout=START_TIMEOUT + 30)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed ({result.returncode}): {result.stderr or result.stdout}")
        return result

    def _initdb(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-sync")
        (self.data / "pg_hba.conf").write_text(
            f"local all {PASSWORD_ROLE} scram-sha-256\nlocal all all trust\n", encoding="utf-8"
        )
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(
                "\nlisten_addresses = ''\n"
                f"unix_socket_directories = '{self.socket_dir}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 200\nshared_buffers = 32MB\n"
            )

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(START_TIMEOUT), "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`immediate` is a crash: no shutdown checkpoint, connections cut)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def running(self) -> bool:
        """Whether the server process is up."""
        return self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0

    def url(self, dbname: str = "postgres", user: str = SUPERUSER, password: str | None = None) -> str:
        """A postgresql:// URL reaching `dbname` over the unix socket."""
        auth = quote(user, safe="") + (f":{quote(password, safe='')}" if password is not None else "")
        return f"postgresql://{auth}@/{dbname}?host={quote(str(self.socket_dir), safe='')}"

    def sql(self, statement: str, dbname: str = "postgres") -> None:
        """Run one statement as the superuser, outside a transaction (CREATE DATABASE needs that)."""
        # Imported here: the test helpers load without the driver when PostgreSQL is absent
        import psycopg

        with psycopg.connect(self.url(dbname), autocommit=True) as conn:
            # test-only statements, written by the tests themselves
            conn.execute(statement.encode())

    def new_database(self, prefix: str = "t") -> str:
        """Create an empty database with a fresh name and return its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}_{int(time.time() * 1000) % 100000}"
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def password_role(self) -> str:
        """Create the role that must log in with PASSWORD, and a new database it owns; returns that database's name."""
        self.sql(
            f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{PASSWORD_ROLE}') THEN "
            f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{PASSWORD}'; END IF; END $$"
        )
        name = f"pw_{os.getpid()}_{next(self._names)}"
        self.sql(f'CREATE DATABASE "{name}" OWNER {PASSWORD_ROLE}')
        return name

    def destroy(self) -> None:
        """Stop the server and delete its folder."""
        if self.data.exists():
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def write_lock_held(url: str) -> Iterator[Callable[[], int]]:
    """Hold the state's write lock (bot/state/postgres.py), so processes starting now line up behind it and go at once
    when the block ends; yields a count of the sessions waiting for it."""
    import psycopg

    from bot.state.postgres import WRITE_LOCK

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [WRITE_LOCK])

        def waiting() -> int:
            row = conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchone()
            return int(row[0]) if row else 0

        yield waiting
