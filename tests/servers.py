"""Real database servers for the tests: Debian's PostgreSQL, started once per session on loopback.

``postgres_server`` runs ``initdb`` and ``postgres`` from ``/usr/lib/postgresql/<N>/bin``
(``scripts/test.sh`` installs the ``postgresql`` package when they are missing) in a
temporary folder, on a free loopback port, with fsync off: the data is thrown away.
PostgreSQL refuses to run as root, so as root (CI) the folder belongs to ``nobody``
and both programs run as ``nobody`` through ``setpriv``; as anyone else they run as
that user. The server is stopped and its folder removed when the session ends, pass
or fail. ``postgres_url`` gives each test a database of its own (``CREATE DATABASE``
from the admin connection), so tests never see each other's games.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

#: Where Debian's ``postgresql-<N>`` packages put the server programs.
BINARIES = Path("/usr/lib/postgresql")
USER = "lookahead"
#: A bound on start-up and shut-down on a loaded machine (not a pace: both usually take < 1 s).
START_TIMEOUT = 60.0


def server_binaries() -> Path | None:
    """The ``bin`` folder of the newest PostgreSQL installed, or None."""
    found = sorted(BINARIES.glob("*/bin/postgres"), key=lambda p: int(p.parts[-3]))
    return found[-1].parent if found else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@dataclass
class PostgresServer:
    """A running server: its port, and an admin connection (autocommit) to make databases."""

    port: int
    process: subprocess.Popen[bytes]
    folder: Path
    admin: psycopg.Connection[tuple[object, ...]] | None = None
    _names: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        assert self.admin is not None
        name = f"test_{next(self._names)}"
        # A plain copy of the empty template0: the quickest way (about 0.1 s) with fsync off.
        self.admin.execute(f"CREATE DATABASE {name} TEMPLATE template0 STRATEGY FILE_COPY")
        return self.url(name)

    def log(self) -> str:
        path = self.folder / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""


def start_postgres(folder: Path) -> PostgresServer:
    """initdb in ``folder`` and start ``postgres`` there; returns once it accepts connections."""
    binaries = server_binaries()
    if binaries is None:
        pytest.fail(
            f"PostgreSQL is not installed (no {BINARIES}/*/bin/postgres): "
            "run scripts/test.sh, or apt-get install postgresql"
        )
    run_as: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL will not run as root: hand the folder to nobody
        nobody = pwd.getpwnam("nobody")
        os.chown(folder, nobody.pw_uid, nobody.pw_gid)
        run_as = [
            "setpriv",
            f"--reuid={nobody.pw_uid}",
            f"--regid={nobody.pw_gid}",
            "--clear-groups",
            "--",
        ]
    data = folder / "data"
    made = subprocess.run(
        [
            *run_as,
            str(binaries / "initdb"),
            "--pgdata",
            str(data),
            "--username",
            USER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
            "--no-instructions",
        ],
        capture_output=True,
        cwd=folder,
    )
    if made.returncode != 0:
        pytest.fail(f"initdb failed: {made.stdout.decode()}{made.stderr.decode()}")
    for attempt in range(3):  # another program may take the free port first
        server = launch(binaries / "postgres", data, folder, run_as)
        if server.admin is not None:
            return server
        stop_postgres(server)
        if "could not bind" not in server.log() or attempt == 2:
            pytest.fail(f"PostgreSQL did not start:\n{server.log()}")
    raise AssertionError("unreachable")


def launch(postgres: Path, data: Path, folder: Path, run_as: list[str]) -> PostgresServer:
    """Start ``postgres`` on a free port; connected (``admin`` set) unless it exited or hung."""
    port = free_port()
    settings = {
        "listen_addresses": "127.0.0.1",
        "port": str(port),
        "unix_socket_directories": str(folder),
        "fsync": "off",
        "synchronous_commit": "off",
        "full_page_writes": "off",
        "max_connections": "200",
    }
    options = [f"--{name}={value}" for name, value in settings.items()]
    with open(folder / "server.log", "wb") as log:
        process = subprocess.Popen(
            [*run_as, str(postgres), "-D", str(data), *options],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder,
            start_new_session=True,  # a Ctrl-C reaches pytest, which stops the server itself
        )
    server = PostgresServer(port, process, folder)
    deadline = time.monotonic() + START_TIMEOUT
    while server.admin is None and process.poll() is None and time.monotonic() < deadline:
        try:
            server.admin = psycopg.connect(server.url(), autocommit=True, connect_timeout=5)
        except psycopg.OperationalError:
            time.sleep(0.05)
    return server


def stop_postgres(server: PostgresServer) -> None:
    """Close the admin connection and stop the server (fast shutdown, then kill)."""
    if server.admin is not None:
        server.admin.close()
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGINT)  # fast shutdown: disconnect everyone
        try:
            server.process.wait(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    # As root, under /tmp: nobody must be able to reach the folder (TMPDIR may be private).
    parent = "/tmp" if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="lookahead-pg-", dir=parent))
    server: PostgresServer | None = None
    try:
        server = start_postgres(folder)
        yield server
    finally:
        if server is not None:
            stop_postgres(server)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A fresh, empty database on the session's server."""
    return postgres_server.new_database()
