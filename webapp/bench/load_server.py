"""The server under load: ``python -m webapp`` started on loopback, or one already running.

The load benchmark measures the real serving path (Werkzeug threads, Socket.IO,
the search processes), so it starts the same command a user runs, on a free
port and a throw-away database, and always stops it again (also on Ctrl+C).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
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
    """A context manager: the URL to load, and a server subprocess when ``url`` is None."""

    def __init__(self, url: str | None, workers: int) -> None:
        self.workers = workers
        self.process: subprocess.Popen[bytes] | None = None
        self.folder: tempfile.TemporaryDirectory[str] | None = None
        self.url = url.rstrip("/") if url else ""

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
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        database = folder / "games.sqlite3"
        command = [sys.executable, "-m", "webapp", "--port", str(port), "--db", str(database),
                   "--workers", str(self.workers)]  # fmt: skip
        # Every simulated player shares 127.0.0.1: the per-address limits would
        # measure admission, not the search path (per-identity limits stay on).
        for key in PER_ADDRESS_LIMITS:
            command += ["--set", f"{key}="]
        self.log_path = folder / "server.log"
        with self.log_path.open("wb") as log:
            # A session of its own: Ctrl+C reaches the benchmark, which stops the server.
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + START_SECONDS
        while not answers(self.url):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise ServerFailed(f"the server did not start:\n{self.log_tail()}")
            time.sleep(0.2)

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except (AttributeError, OSError):
            return ""

    def stop(self) -> None:
        """Stop the server we started (SIGTERM, then SIGKILL to its whole group). Idempotent."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=STOP_SECONDS)
        if process is not None:
            with contextlib.suppress(OSError):  # its search workers, should any be left
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if self.folder is not None:
            self.folder.cleanup()
            self.folder = None
