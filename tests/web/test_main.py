"""The command line (webapp/__main__.py); the end-to-end test runs the server for real."""

from __future__ import annotations

import errno
import gc
import logging
import os
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
import socketio

from tests.web.helpers import WAIT
from tests.web.test_affinity import allowed_lists
from tests.web.test_end_to_end import Server as Started
from webapp.__main__ import main, parse_args
from webapp.bench.processes import descendants, server_processes
from webapp.store import SQLiteStore
from webapp.web import server as server_module
from webapp.web.server import THREADS, Server, SocketWorker, fewer_arenas, log_thread_exception


def raw_request(url: str, request: bytes) -> bytes:
    """What the server at ``url`` answers ``request`` (raw bytes), until it closes."""
    where = urlsplit(url)
    with socket.create_connection((where.hostname, where.port), timeout=WAIT) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_the_command_line_defaults() -> None:
    args = parse_args([])
    assert (args.host, args.port, args.db, args.workers) == ("127.0.0.1", 5000, None, 2)
    assert args.command is None  # no subcommand: serve
    args = parse_args(["--host", "0.0.0.0", "--port", "8000", "--db", "x.db", "--workers", "3"])
    assert (args.host, args.port, args.db, args.workers) == ("0.0.0.0", 8000, "x.db", 3)
    assert (args.dev, args.threads) == (False, None)
    args = parse_args(["--dev", "--threads", "50"])
    assert (args.dev, args.threads) == (True, 50)


def test_the_server_is_one_gthread_process_holding_a_thread_per_websocket() -> None:
    server = Server({}, "127.0.0.1", 8000)
    assert server.cfg.workers == 1  # Socket.IO sessions live in one process
    assert server.cfg.worker_class is SocketWorker
    assert server.cfg.threads == THREADS
    assert server.cfg.worker_connections > THREADS  # every thread may hold a connection
    assert server.cfg.bind == ["127.0.0.1:8000"]
    # No control socket in ~/.gunicorn: servers side by side would fight over it.
    assert getattr(server.cfg, "control_socket_disable", True) is True
    assert Server({}, "::1", 8000, threads=10).cfg.bind == ["[::1]:8000"]


@pytest.mark.slow
def test_the_main_command_serves_websockets_in_production_and_stops_cleanly(
    tmp_path: Path,
) -> None:
    log = tmp_path / "server.log"
    server = Started(tmp_path / "games.db", log, "--workers", "1", "--set", "SEARCH_WARMUP=false")
    try:
        client = socketio.Client()
        client.connect(server.url, transports=["websocket"], wait_timeout=WAIT)
        assert client.transport() == "websocket"
        assert len(descendants(server.process.pid)) >= 2  # gunicorn's worker, a search process
        web, (search,) = server_processes(server.process.pid)
        cpus = os.sched_getaffinity(0)
        if len(cpus) > 1:  # WEB_CPU "auto": the worker's threads on one, its search on all
            assert len(allowed_lists(web)) == 1 and allowed_lists(web) != allowed_lists(search)
        assert allowed_lists(search) == allowed_lists(os.getpid())
        # gunicorn's own error pages (a request it cannot read) carry the security headers.
        too_long = requests.get(f"{server.url}/?{'a' * 5000}", timeout=WAIT)
        garbled = raw_request(server.url, b"NOT AN HTTP REQUEST\r\n\r\n")
        assert too_long.status_code == 414 and garbled.startswith(b"HTTP/1.1 400 ")
        assert too_long.headers["Content-Security-Policy"] == (
            "default-src 'none'; frame-ancestors 'none'"
        )
        assert too_long.headers["X-Content-Type-Options"] == "nosniff"
        assert too_long.headers["X-Frame-Options"] == "DENY"
        assert b"\r\nX-Content-Type-Options: nosniff\r\n" in garbled
    finally:
        processes = server.stop()  # SIGTERM with the WebSocket still open
    client.disconnect()
    assert server.process.returncode == 0
    deadline = time.monotonic() + WAIT
    while any(os.path.exists(f"/proc/{pid}") for pid in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in processes), "orphans"
    text = log.read_text(errors="replace")
    assert "gunicorn" in text
    assert "development server" not in text and "Werkzeug" not in text


def test_the_worker_caps_mallocs_arenas_unless_the_operator_chose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[int, int]] = []

    class Libc:
        def mallopt(self, parameter: int, value: int) -> int:
            calls.append((parameter, value))
            return 1

    monkeypatch.setattr(server_module.ctypes, "CDLL", lambda name: Libc())
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert fewer_arenas() and calls == [(server_module.M_ARENA_MAX, server_module.MALLOC_ARENAS)]
    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")  # glibc reads it itself: left alone
    assert not fewer_arenas() and len(calls) == 1


def test_the_worker_freezes_what_the_app_was_built_with(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full collection never walks the app's own objects: they are frozen once it is
    built (``freeze_startup_heap``), those the app made included."""

    class Built:  # a cycle, as an app's objects are full of: only the collector sees it
        def __init__(self) -> None:
            self.me = self

    built: list[Built] = []

    def create_app(config: dict[str, object]) -> Built:
        built.append(Built())
        return built[0]

    monkeypatch.setattr(server_module, "create_app", create_app)
    monkeypatch.setattr(server_module, "fewer_arenas", lambda: False)
    monkeypatch.setattr(server_module.affinity, "keep_to_one_cpu", lambda cpu: None)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)  # load sets it
    gc.unfreeze()
    try:
        assert Server({}, "127.0.0.1", 8000).load() is built[0]
        assert gc.get_freeze_count() > 0
        assert not any(obj is built[0] for obj in gc.get_objects())  # out of the collector's walk
    finally:
        gc.unfreeze()


def test_the_prune_command_line() -> None:
    args = parse_args(["prune"])
    assert (args.command, args.db, args.unfinished_days, args.finished_days) == (
        "prune", None, 30, 365,
    )  # fmt: skip
    args = parse_args(["prune", "--db", "x.db", "--unfinished-days", "7", "--finished-days", "60"])
    assert (args.db, args.unfinished_days, args.finished_days) == ("x.db", 7, 60)
    assert parse_args(["--db", "y.db", "prune"]).db == "y.db"
    with pytest.raises(SystemExit):
        parse_args(["prune", "--finished-days", "-1"])


def test_prune_prints_how_many_games_it_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[str, str]] = []

    def fake_prune(self: SQLiteStore, *, unfinished_before: str, finished_before: str) -> int:
        seen.append((unfinished_before, finished_before))
        return 4

    # The store's own prune is tested with the store; here, what the command does with it.
    monkeypatch.setattr(SQLiteStore, "prune", fake_prune, raising=False)
    database = tmp_path / "games.db"
    main(["prune", "--db", str(database), "--unfinished-days", "1", "--finished-days", "2"])
    assert "Removed 4 games." in capsys.readouterr().out
    assert len(seen) == 1 and seen[0][0] > seen[0][1]  # 1 day ago is later than 2 days ago
    assert database.exists()


def _crash_in_thread(name: str, error: BaseException) -> None:
    """Run a thread named ``name`` that raises ``error``, under the worker's hook."""

    def fail() -> None:
        raise error

    before = threading.excepthook
    threading.excepthook = log_thread_exception
    try:
        thread = threading.Thread(target=fail, name=name)
        thread.start()
        thread.join(WAIT)
    finally:
        threading.excepthook = before


def test_a_threads_uncaught_exception_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger=server_module.__name__):
        _crash_in_thread("Thread-7 (results)", ValueError("a bug"))
    [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "Thread-7 (results)" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is ValueError


def test_a_closed_websockets_writer_failing_to_send_its_close_frame_is_no_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger=server_module.__name__):
        _crash_in_thread("Thread-9 (writer)", OSError(errno.EBADF, "Bad file descriptor"))
        # The same error in any other thread is a fault, and so is another error there.
        _crash_in_thread("Thread-10 (relay)", OSError(errno.EBADF, "Bad file descriptor"))
        _crash_in_thread("Thread-11 (writer)", KeyError("x"))
    levels = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert levels[0][0] == logging.DEBUG and "Thread-9 (writer)" in levels[0][1]
    errors = [message for level, message in levels if level == logging.ERROR]
    assert len(errors) == 2
    assert "Thread-10 (relay)" in errors[0] and "Thread-11 (writer)" in errors[1]
