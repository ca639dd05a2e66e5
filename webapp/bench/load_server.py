"""The server under load: ``python -m webapp`` started on loopback, or one already running.

The load benchmark measures the real serving path (gunicorn's threads, Socket.IO,
the search processes), so it starts the same command a user runs, on a free
port and a throw-away database, and always stops it again (also on Ctrl+C).

With ``redis`` it starts the several-machine layout on this one: ``web`` web
processes sharing that Redis and a database (``db``, else a throw-away SQLite
file they share), ``hosts`` search hosts (``python -m webapp.search_host``) doing the
searches, and with ``nginx`` Debian's nginx in front of the web processes, run
with ``deploy/nginx.conf`` (``load_nginx.py``). ``urls`` are what players use:
nginx's address, or each web process's in turn.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import requests

import webapp

#: The checkout the benchmark runs from: the server runs the same code.
ROOT = Path(webapp.__file__).resolve().parents[1]
#: The server answers pages at once, but its workers compile or load kernels first.
START_SECONDS = 180.0
#: SIGTERM first (the server stops its workers); a server that ignores it is killed.
STOP_SECONDS = 30.0


class ServerFailed(RuntimeError):
    """The server could not be started (the message ends with its log)."""


PER_ADDRESS_LIMITS = (
    "RATE_LIMIT_CREATE_PER_ADDRESS",
    "RATE_LIMIT_EVENTS_PER_ADDRESS",
    "RATE_LIMIT_ANALYSE_PER_ADDRESS",
    "RATE_LIMIT_IDENTITIES_PER_ADDRESS",
    "RATE_LIMIT_CONNECTS_PER_ADDRESS",
    "CONNECTIONS_PER_ADDRESS",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    try:
        return requests.get(url + "/", timeout=5).status_code == 200
    except requests.RequestException:
        return False


class LoadServer:
    """A context manager: the URLs to load, and the processes serving them when ``url`` is None."""

    def __init__(
        self,
        url: str | None,
        workers: int,
        *,
        redis: str | None = None,
        db: str | None = None,
        web: int = 1,
        hosts: int = 0,
        nginx: bool = False,
        settings: Sequence[str] = (),
        options: Sequence[str] = (),
        keep_logs: Path | None = None,
    ) -> None:
        self.keep_logs = keep_logs  # a folder to copy the servers' logs into when they stop
        self.workers, self.redis, self.db = workers, redis, db
        self.settings = list(settings)  # more ``KEY=VALUE`` for the web processes' --set
        self.options = list(options)  # more of the web processes' arguments
        self.web, self.hosts, self.nginx = max(1, web), hosts, nginx
        self.processes: list[tuple[subprocess.Popen[bytes], Path]] = []
        self.folder: tempfile.TemporaryDirectory[str] | None = None
        self.url = url.rstrip("/") if url else ""
        self.urls = [self.url] if self.url else []

    def describe(self) -> str:
        if self.redis is None:
            return f"started here, {self.workers} search workers"
        front = "nginx in front of " if self.nginx else ""
        return (f"started here: {front}{self.web} web processes and {self.hosts} search hosts "
                f"of {self.workers} processes, sharing {self.redis}")  # fmt: skip

    def __enter__(self) -> LoadServer:
        if self.url:
            if not answers(self.url):
                raise ServerFailed(f"nothing answers at {self.url}")
            return self
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _start(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="lookahead-load-")
        folder = Path(self.folder.name)
        database = self.db or str(folder / "games.sqlite3")
        shared = ["--db", database] + (["--redis", self.redis] if self.redis else [])
        for index in range(self.hosts if self.redis else 0):
            self._spawn(folder / f"host-{index}.log", ["webapp.search_host", *shared,
                        "--concurrency", str(self.workers)])  # fmt: skip
        ports = [free_port() for _ in range(self.web if self.redis else 1)]
        for index, port in enumerate(ports):
            command = ["webapp", "--port", str(port), *shared, "--workers", str(self.workers),
                       *self.options]  # fmt: skip
            # Every simulated player shares 127.0.0.1: the per-address limits would
            # measure admission, not the search path (per-identity limits stay on).
            for key in PER_ADDRESS_LIMITS:
                command += ["--set", f"{key}="]
            if self.nginx:
                command += ["--set", "TRUSTED_PROXIES=1"]
            # The identity secret in the throw-away folder, not in the checkout's instance/.
            command += ["--set", f"SECRET_KEY_FILE={folder / 'secret_key'}"]
            for setting in self.settings:
                command += ["--set", setting]
            self._spawn(folder / f"web-{index}.log", command)
        self.urls = [f"http://127.0.0.1:{port}" for port in ports]
        self.log_path = folder / "web-0.log"
        if self.nginx:
            from webapp.bench.load_nginx import start_nginx

            front = free_port()
            self.processes.append(start_nginx(folder / "nginx", front, self.urls))
            self.urls = [f"http://127.0.0.1:{front}"]
        self.url = self.urls[0]
        deadline = time.monotonic() + START_SECONDS
        for url in self.urls:
            while not answers(url):
                dead = [log for process, log in self.processes if process.poll() is not None]
                if dead or time.monotonic() > deadline:
                    raise ServerFailed(f"the server did not start:\n{self.log_tail(dead)}")
                time.sleep(0.2)
        self._wait_for_hosts(deadline)

    @property
    def web_pid(self) -> int | None:
        """The process id of the (first) web process started here; None for ``url``."""
        for process, log in self.processes:
            if log.name.startswith("web-"):
                return process.pid
        return None

    def _spawn(self, log_path: Path, arguments: list[str]) -> None:
        with log_path.open("wb") as log:
            # A session of its own: Ctrl+C reaches the benchmark, which stops the server.
            command = [sys.executable, "-m", *arguments]
            process = subprocess.Popen(
                command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.processes.append((process, log_path))

    def _wait_for_hosts(self, deadline: float) -> None:
        """Until /healthz says every search host is up (they warm their engines first)."""
        if not self.redis or not self.hosts:
            return
        while True:
            try:
                health = requests.get(self.urls[0] + "/healthz", timeout=5).json()
                if health["workers"].get("hosts", 0) >= self.hosts:
                    return
            except (requests.RequestException, ValueError, KeyError):
                pass
            if time.monotonic() > deadline:
                raise ServerFailed(f"the search hosts did not start:\n{self.log_tail()}")
            time.sleep(0.5)

    def log_tail(self, logs: list[Path] | None = None, chars: int = 3000) -> str:
        texts = []
        for path in logs if logs else [getattr(self, "log_path", None)]:
            with contextlib.suppress(OSError):
                texts.append(path.read_text(errors="replace")[-chars:] if path else "")
        return "\n".join(texts)

    def stop(self) -> None:
        """Stop what we started (SIGTERM, then SIGKILL to each whole group). Idempotent."""
        processes, self.processes = self.processes, []
        for process, _ in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process, _ in reversed(processes):
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=STOP_SECONDS)
            with contextlib.suppress(OSError):  # its search workers, should any be left
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if self.keep_logs is not None:
            self.keep_logs.mkdir(parents=True, exist_ok=True)
            for _, log in processes:
                with contextlib.suppress(OSError):
                    shutil.copyfile(log, self.keep_logs / log.name)
        if self.folder is not None:
            self.folder.cleanup()
            self.folder = None
