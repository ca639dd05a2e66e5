"""Several real server processes around one PostgreSQL and one Redis, for the scale tests.

``Cluster.web()`` starts ``python -m webapp --port P --db URL --redis URL`` and
returns its address once it serves pages; ``Cluster.worker()`` starts ``python
-m webapp.search_host --redis URL --db URL`` and returns once it takes jobs. Each
process has a session of its own (``kill()`` ends it and its search processes at
once, as a machine dying would) and a log file that a failing test prints.
``Client`` is a python-socketio client that keeps every event it receives.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio

from tests.servers import free_port
from tests.web.fake_searches import HOLD_ENV
from webapp import protocol

ROOT = Path(__file__).resolve().parents[2]
#: A bound on a process's start-up on a loaded machine (not a pace: ~2 s usually).
START_SECONDS = 120.0
#: A bound on waiting for an event (a move, the engine's reply).
WAIT = 60.0
#: A host's heartbeat timeout in these tests: a killed host's job moves on after ~this.
HEARTBEAT = 2.0


@dataclass
class Process:
    """A server process started by the cluster."""

    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path
    url: str = ""

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        """SIGTERM (a clean stop), then SIGKILL to its whole session if it lingers."""
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=30)
        self.kill()

    def kill(self) -> None:
        """SIGKILL to the process and its search processes: a host gone without a word."""
        with contextlib.suppress(OSError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()


@dataclass
class Cluster:
    folder: Path
    redis_url: str
    db_url: str
    processes: list[Process] = field(default_factory=list)

    def web(self, name: str, *settings: str) -> Process:
        """A web process (``settings``: more ``KEY=VALUE`` for its ``--set``)."""
        port = free_port()
        command = ["-m", "webapp", "--port", str(port), "--db", self.db_url, "--redis",
                   self.redis_url, "--set", "RETENTION_EVERY_HOURS=0"]  # fmt: skip
        for setting in settings:
            command += ["--set", setting]
        process = self._start(name, command)
        process.url = f"http://127.0.0.1:{port}"
        self._wait(process, lambda: _answers(process.url))
        return process

    def worker(self, name: str, search_function: str | None = None) -> Process:
        command = ["-m", "webapp.search_host", "--redis", self.redis_url, "--db", self.db_url,
                   "--concurrency", "2", "--no-warm-up",
                   "--heartbeat-timeout", str(HEARTBEAT)]  # fmt: skip
        if search_function:
            command += ["--search-function", search_function]
        process = self._start(name, command)
        self._wait(process, lambda: "ready" in process.log())
        return process

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()

    def logs(self) -> str:
        return "\n".join(f"----- {p.name}\n{p.log()[-6000:]}" for p in self.processes)

    def _start(self, name: str, arguments: list[str]) -> Process:
        log_path = self.folder / f"{name}.log"
        env = os.environ | {HOLD_ENV: str(self.folder / "holds"), "PYTHONUNBUFFERED": "1"}
        with log_path.open("wb") as log:
            popen = subprocess.Popen(
                [sys.executable, *arguments],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process = Process(name, popen, log_path)
        self.processes.append(process)
        return process

    def _wait(self, process: Process, ready: Callable[[], bool]) -> None:
        deadline = time.monotonic() + START_SECONDS
        while not ready():
            if not process.alive() or time.monotonic() > deadline:
                pytest.fail(f"{process.name} did not start:\n{process.log()}")
            time.sleep(0.1)


def _answers(url: str) -> bool:
    try:
        return requests.get(url + "/", timeout=5).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture
def cluster(tmp_path: Path, redis_url: str, postgres_url: str) -> Iterator[Cluster]:
    (tmp_path / "holds").mkdir()
    made = Cluster(tmp_path, redis_url, postgres_url)
    try:
        yield made
    finally:
        made.stop()
        print(made.logs())  # shown by pytest when the test failed


# -- clients ----------------------------------------------------------------------------------
class Client:
    """A Socket.IO client (with a browser's cookies, if given) that keeps what it receives."""

    def __init__(
        self, url: str, http: requests.Session | None = None, transport: str = "websocket"
    ) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.cond = threading.Condition()
        self.sio = socketio.Client(reconnection=False)
        self.sio.on("*", self._record)
        cookies = "; ".join(f"{c.name}={c.value}" for c in http.cookies) if http else ""
        headers = {"Cookie": cookies} if cookies else {}
        self.sio.connect(url, headers=headers, transports=[transport], wait_timeout=WAIT)

    def _record(self, event: str, payload: Any = None) -> None:
        with self.cond:
            self.events.append((event, payload if isinstance(payload, dict) else {}))
            self.cond.notify_all()

    def call(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Send an event and return its acknowledgement."""
        answer: dict[str, Any] = self.sio.call(event, payload, timeout=WAIT)
        return answer

    def join(self, game_id: str) -> dict[str, Any]:
        return self.call(protocol.JOIN, {"game_id": game_id})

    def wait_for(self, event: str, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first ``event`` received (before or after now) whose payload passes ``check``."""
        deadline = time.monotonic() + WAIT
        with self.cond:
            while True:
                for name, payload in self.events:
                    if name == event and check(payload):
                        return payload
                left = deadline - time.monotonic()
                if left <= 0:
                    names = [name for name, _ in self.events]
                    raise AssertionError(f"no {event} in {WAIT} s; received {names}")
                self.cond.wait(left)

    def named(self, event: str) -> list[dict[str, Any]]:
        with self.cond:
            return [payload for name, payload in self.events if name == event]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.sio.disconnect()


def create_game(url: str, http: requests.Session, game: str = "tictactoe", **settings: Any) -> str:
    """A new game whose seat is ``http``'s (its cookie); the game's id."""
    body = {"game": game, "settings": {"engine_plays": "second", **settings}}
    response = http.post(f"{url}/api/games", json=body, timeout=WAIT)
    assert response.status_code == 201, response.text
    game_id: str = response.json()["id"]
    return game_id


def game_of(url: str, game_id: str) -> dict[str, Any]:
    response = requests.get(f"{url}/api/games/{game_id}", timeout=WAIT)
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    return state
