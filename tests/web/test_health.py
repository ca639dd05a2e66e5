"""Health tells the truth (GET /healthz): the store's write probe, and a start on a database
that cannot be written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.web.helpers import create
from webapp.services import game_service
from webapp.store import GameStore, SQLiteStore, StoreUnavailable
from webapp.web import admission
from webapp.web.app import service_of

ROOT = Path(__file__).resolve().parents[2]


class FailingWrites:
    """A store whose writes (and write probe) start failing when told, as a full disk or a
    file made immutable under a running server do; reads go on."""

    def __init__(self, inner: GameStore) -> None:
        self.inner, self.failing, self.probes = inner, False, 0

    def check(self) -> None:
        self.probes += 1
        self._write()
        self.inner.check()

    def create(self, record: Any) -> None:
        self._write()
        self.inner.create(record)

    def save(self, record: Any) -> None:
        self._write()
        self.inner.save(record)

    def _write(self) -> None:
        if self.failing:
            raise StoreUnavailable("save failed: disk I/O error")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class Clock:
    """``time.monotonic`` for the service, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def failing(app: Flask, monkeypatch: pytest.MonkeyPatch) -> tuple[FailingWrites, Clock]:
    service = service_of(app)
    wrapper = FailingWrites(service.store)
    monkeypatch.setattr(service, "store", wrapper)
    clock = Clock()
    monkeypatch.setattr(game_service.time, "monotonic", clock)
    service._store_checked_at = -game_service.HEALTH_CHECK_SECONDS  # probe at the first request
    return wrapper, clock


def test_healthz_turns_503_with_the_reason_once_writes_fail(
    client: FlaskClient, failing: tuple[FailingWrites, Clock]
) -> None:
    store, clock = failing
    create(client)
    assert client.get("/healthz").status_code == 200
    store.failing = True
    assert client.post("/api/games", json={"game": "tictactoe"}).status_code == 503
    clock.now += game_service.HEALTH_CHECK_SECONDS  # within 5 s of the first failed write
    health = client.get("/healthz")
    assert health.status_code == 503
    # The kind of failure, not its text (a database's message may name hosts and users).
    assert health.get_json()["store"] == "unavailable: StoreUnavailable"
    store.failing = False
    clock.now += game_service.HEALTH_CHECK_SECONDS
    assert client.get("/healthz").status_code == 200  # and back once it can write again


def test_the_probe_runs_at_most_every_few_seconds(
    client: FlaskClient, failing: tuple[FailingWrites, Clock]
) -> None:
    store, clock = failing
    assert game_service.HEALTH_CHECK_SECONDS <= 5
    for _ in range(20):
        assert client.get("/healthz").status_code == 200
    assert store.probes == 1  # a load balancer polling in a loop costs one write per period
    clock.now += game_service.HEALTH_CHECK_SECONDS
    client.get("/healthz")
    assert store.probes == 2


def test_the_sqlite_probe_writes_to_the_file(tmp_path: Path) -> None:
    """A transaction rolled back before writing passed on a file that could not be written;
    the probe commits a page (the WAL grows), as every save does."""
    store = SQLiteStore(tmp_path / "games.db")
    try:
        wal = tmp_path / "games.db-wal"
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
        assert wal.stat().st_size == 0
        store.check()
        assert wal.stat().st_size > 0
    finally:
        store.close()


@pytest.mark.parametrize(
    "database",
    [
        "file:{folder}/games.db?mode=ro",  # the file is read-only (root ignores file modes)
        "{folder}/games.db/inside.db",  # its "folder" is a file: nothing can be made there
    ],
)
def test_a_start_on_a_database_that_cannot_be_written_is_one_line(
    tmp_path: Path, database: str
) -> None:
    SQLiteStore(tmp_path / "games.db").close()  # a current database, then opened read-only
    command = [sys.executable, "-m", "webapp", "--port", "9", "--workers", "1"]
    command += ["--db", database.format(folder=tmp_path), "--set", "SECRET_KEY=test"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("python -m webapp: cannot start: the database cannot be used")
    assert "Traceback" not in done.stderr + done.stdout


def test_the_pools_counts_and_timings_go_only_to_this_machine(client: FlaskClient) -> None:
    """Two looks at cumulative counts would tell anyone the server's traffic."""
    here = client.get("/healthz").get_json()["workers"]
    assert {"timings", "preempted", "sent_ahead"} <= set(here)
    away = client.get("/healthz", environ_base={"REMOTE_ADDR": "203.0.113.9"}).get_json()
    assert not {"timings", "preempted", "sent_ahead"} & set(away["workers"])
    assert away["workers"]["alive"] == here["alive"] and "queued" in away["workers"]


def test_healthz_says_where_the_rate_limits_count_and_when_they_fail_open(
    app: Flask, client: FlaskClient
) -> None:
    """A shared storage (Redis) that fails a check lets every check pass a while (the games
    go on): the health check says so, and stays 200."""
    limits = app.extensions[admission.EXTENSION]
    assert client.get("/healthz").get_json()["rate_limits"] == "local"
    now = [0.0]
    shared = admission.SharedWindows("memory://", clock=lambda: now[0])
    limits.limiter = shared
    assert client.get("/healthz").get_json()["rate_limits"] == "shared"
    working, shared.limiter = shared.limiter, Unreachable()  # type: ignore[assignment]
    assert client.post("/api/games", json={"game": "tictactoe"}).status_code == 201  # passed
    health = client.get("/healthz")
    assert health.status_code == 200 and health.get_json()["rate_limits"] == "failing open"
    elsewhere = client.get("/healthz", environ_base={"REMOTE_ADDR": "203.0.113.9"})
    assert "rate_limits" not in elsewhere.get_json()  # nobody else learns when to flood
    shared.limiter = working
    now[0] = admission.DOWN_SECONDS  # left alone that long: then asked again
    assert client.get("/healthz").get_json()["rate_limits"] == "shared"
    create(client)  # counted again


class Unreachable:
    """A rate limiter whose storage refuses every connection."""

    def _fail(self, *_: object) -> bool:
        raise RedisConnectionError("Connection refused")

    test = hit = get_window_stats = _fail
