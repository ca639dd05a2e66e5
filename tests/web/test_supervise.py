"""Background loops are watched (webapp/search_pool/supervise.py): one that dies is logged,
restarted and reported by /healthz (503 while it is down); one that returns has ended."""

from __future__ import annotations

import logging
import threading

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import WAIT, wait_until
from webapp.search_pool.supervise import Supervisor


class Flaky:
    """A loop that dies on its first run, then runs until ``stop`` is set."""

    def __init__(self) -> None:
        self.runs, self.stop, self.running = 0, threading.Event(), threading.Event()

    def __call__(self) -> None:
        self.runs += 1
        if self.runs == 1:
            raise RuntimeError("a bug in the loop")
        self.running.set()
        self.stop.wait(WAIT)


def test_a_loop_that_dies_is_logged_reported_down_and_restarted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    supervisor, loop = Supervisor(backoff=(3600.0, 3600.0)), Flaky()
    with caplog.at_level(logging.ERROR):
        supervisor.start("flaky", loop)
        wait_until(lambda: not supervisor.healthy())
    assert supervisor.status()["flaky"] == {
        "ok": False,
        "restarts": 1,
        "last_error": "RuntimeError: a bug in the loop",
    }
    assert "flaky died" in caplog.text and "a bug in the loop" in caplog.text
    supervisor.restart_now()  # the backoff cut short
    assert loop.running.wait(WAIT) and loop.runs == 2
    assert supervisor.healthy() and supervisor.status()["flaky"]["ok"]
    loop.stop.set()
    supervisor.stop()


def test_a_loop_that_returns_has_ended_and_is_not_restarted() -> None:
    supervisor, runs, ended = Supervisor(backoff=(0.0, 0.0)), [], threading.Event()

    def once() -> None:
        runs.append(1)
        ended.set()

    supervisor.start("once", once)
    assert ended.wait(WAIT)
    supervisor.start("later", lambda: None)  # a loop started after it: it had time to return
    wait_until(lambda: supervisor.status().keys() == {"once", "later"})
    assert runs == [1] and supervisor.healthy()


def test_healthz_is_503_while_a_background_loop_is_down(app: Flask, client: FlaskClient) -> None:
    health = client.get("/healthz").get_json()
    assert health["ok"] and health["threads"]["search-relay"]["ok"]
    assert health["threads"]["timers"]["ok"]
    supervisor: Supervisor = app.extensions["lookahead_threads"]
    supervisor.backoff, loop = (3600.0, 3600.0), Flaky()
    supervisor.start("flaky", loop)
    wait_until(lambda: not supervisor.healthy())
    down = client.get("/healthz")
    assert down.status_code == 503
    assert down.get_json()["threads"]["flaky"]["last_error"] == "RuntimeError: a bug in the loop"
    supervisor.restart_now()
    assert loop.running.wait(WAIT)
    assert client.get("/healthz").status_code == 200
    loop.stop.set()
