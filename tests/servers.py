"""Real servers for the tests: Debian's PostgreSQL and Redis, started once per session on loopback.

``postgres_server`` runs ``initdb`` and ``postgres`` from ``/usr/lib/postgresql/<N>/bin``
(``scripts/test.sh`` installs the ``postgresql`` package when they are missing) in a
temporary folder, on a free loopback port, with fsync off: the data is thrown away.
PostgreSQL refuses to run as root, so as root (CI) the folder belongs to ``nobody``
and both programs run as ``nobody`` through ``setpriv``; as anyone else they run as
that user. The server is stopped and its folder removed when the session ends, pass
or fail. ``postgres_url`` gives each test a database of its own (``CREATE DATABASE``
from the admin connection), so tests never see each other's games.

``redis_server`` runs Debian's ``redis-server`` the same way (a temporary folder, a
free loopback port, nothing saved; as whoever runs the tests: Redis has no quarrel
with root), and ``redis_url`` empties it for each test.
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
import redis

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
    """A server made by ``initdb`` in ``folder``; ``start`` and ``stop`` it (a test may too).

    ``admin`` is an autocommit connection to the ``postgres`` database while it runs.
    """

    folder: Path
    binaries: Path
    run_as: list[str]  # the command prefix that runs a program as the server's user
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
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

    def start(self) -> None:
        """Start ``postgres`` (on its port again after ``stop``); returns once it serves."""
        for attempt in range(3):  # another program may take a free port before the server
            if self.process is None:
                self.port = free_port()
            self._launch()
            if self.admin is not None:
                return
            self.stop()
            if self.process is not None and "could not bind" in self.log() and attempt < 2:
                self.process = None  # a new port next time
                continue
            pytest.fail(f"PostgreSQL did not start:\n{self.log()}")

    def stop(self) -> None:
        """Close the admin connection and stop the server (fast shutdown, then kill)."""
        if self.admin is not None:
            self.admin.close()
            self.admin = None
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown: disconnect everyone
            try:
                self.process.wait(timeout=START_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def _launch(self) -> None:
        settings = {
            "listen_addresses": "127.0.0.1",
            "port": str(self.port),
            "unix_socket_directories": str(self.folder),
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "200",
        }
        options = [f"--{name}={value}" for name, value in settings.items()]
        command = [*self.run_as, str(self.binaries / "postgres"), "-D", str(self.folder / "data")]
        with open(self.folder / "server.log", "wb") as log:
            self.process = subprocess.Popen(
                [*command, *options],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
                start_new_session=True,  # a Ctrl-C reaches pytest, which stops the server
            )
        deadline = time.monotonic() + START_TIMEOUT
        while self.process.poll() is None and time.monotonic() < deadline:
            try:
                self.admin = psycopg.connect(self.url(), autocommit=True, connect_timeout=5)
                return
            except psycopg.OperationalError:
                time.sleep(0.05)


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
    made = subprocess.run(
        [
            *run_as,
            str(binaries / "initdb"),
            "--pgdata",
            str(folder / "data"),
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
    server = PostgresServer(folder, binaries, run_as)
    server.start()
    return server


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
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A fresh, empty database on the session's server."""
    return postgres_server.new_database()


# -- Redis ------------------------------------------------------------------------------
@dataclass
class RedisServer:
    """Debian's ``redis-server`` on a loopback port, with nothing saved to disk."""

    folder: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    def url(self, database: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{database}"

    def log(self) -> str:
        path = self.folder / "redis.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start(self) -> None:
        """Start ``redis-server``; returns once it answers a PING."""
        for attempt in range(3):  # another program may take a free port before the server
            self.port = free_port()
            if self._launch():
                return
            self.stop()
            if "Address already in use" in self.log() and attempt < 2:
                continue
            pytest.fail(f"redis-server did not start:\n{self.log()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=START_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def _launch(self) -> bool:
        options = {
            "port": str(self.port),
            "bind": "127.0.0.1",
            "dir": str(self.folder),
            "save": "",  # no snapshots, no append-only file: the data is thrown away
            "appendonly": "no",
            "daemonize": "no",
            "logfile": str(self.folder / "redis.log"),
        }
        command = [REDIS_SERVER]
        for name, value in options.items():
            command += [f"--{name}", value]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            cwd=self.folder,
            start_new_session=True,  # a Ctrl-C reaches pytest, which stops the server
        )
        client = redis.Redis(port=self.port, socket_timeout=5)
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while self.process.poll() is None and time.monotonic() < deadline:
                try:
                    if client.ping():
                        return True
                except redis.ConnectionError:
                    time.sleep(0.05)
        finally:
            client.close()
        return False


#: Debian's ``redis-server`` package puts it here.
REDIS_SERVER = "/usr/bin/redis-server"


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    if not Path(REDIS_SERVER).exists():
        pytest.fail(f"no {REDIS_SERVER}: run scripts/test.sh, or apt-get install redis-server")
    folder = Path(tempfile.mkdtemp(prefix="lookahead-redis-"))
    server = RedisServer(folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, emptied: each test starts with no queue, key or host."""
    client = redis.Redis.from_url(redis_server.url(), socket_timeout=5)
    try:
        client.flushall()
    finally:
        client.close()
    return redis_server.url()
