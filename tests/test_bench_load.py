"""The load benchmark runs the real server and accounts for every move (no timing is asserted)."""

from __future__ import annotations

import contextlib
import math
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator

import pytest
import requests

from webapp import protocol
from webapp.bench.load import nearest_rank, parse_think
from webapp.bench.load_players import ANSWERED, LOST, REFUSED, Tally, account, browser_session

#: Width of the table's first column (the row's label may hold a space).
LABEL = 14


@pytest.mark.slow
@pytest.mark.parametrize("client", ["lean", "threads"])
def test_a_small_load_run_prints_a_row_per_scenario_and_every_move_is_answered(
    client: str,
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", "load", "--scenario", "easy,hostile",
         "--players", "2", "--moves", "2", "--think", "0", "--hostile", "2",
         "--workers", "1", "--game", "tictactoe", "--client", client],
        capture_output=True, text=True, timeout=150, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("scenario"))
    columns = header[LABEL:].split()[:12]
    rows = {
        line[:LABEL].strip(): dict(zip(columns, line[LABEL:].split(), strict=False))
        for line in lines[lines.index(header) + 1 :]
        if line[:LABEL].strip() in ("easy burst", "easy", "hostile: play")
    }
    assert set(rows) == {"easy burst", "easy", "hostile: play"}, done.stdout
    for label, row in rows.items():
        assert row["players"] == "2" and row["level"] == "easy", label
        # burst: one move each; easy: the second; hostile: two moves each. No game can end
        # in two moves of tic-tac-toe, so every move wants and gets the engine's reply.
        expected = {"easy burst": 2, "easy": 2, "hostile: play": 4}[label]
        assert int(row["moves"]) == int(row["replies"]) == expected, done.stdout
        untold = [row[key] for key in ("unans", "ended", "busy", "tmout", "disc")]
        assert untold == ["0"] * 5, done.stdout
    hostile = next(line for line in lines if "hostile client:" in line)
    assert "2 connections sent" in hostile, done.stdout
    cpu = [line for line in lines if line.strip().startswith("CPU per move:")]
    assert len(cpu) == 2, done.stdout  # one under each scenario
    assert "(4 moves)" in cpu[0] and "(4 moves)" in cpu[1], done.stdout
    assert all("(each: " in line for line in cpu), done.stdout  # every search process's too
    # The bench's own CPU, which it takes from the machine it measures, under each too.
    own = [line for line in lines if line.strip().startswith("CPU of the bench's own clients")]
    assert len(own) == 2 and all(line.endswith(f" ms ({client})") for line in own), done.stdout
    # The burst's scenario alone has a steady window: the moves after the burst, priced
    # without the page fetches (their own CPU on a line of its own).
    page = [line for line in lines if line.strip().startswith("CPU per page fetch:")]
    steady = [line for line in lines if line.strip().startswith("CPU per move, steady:")]
    assert len(page) == len(steady) == 1, done.stdout
    assert "(2 moves after the burst:" in steady[0], done.stdout
    assert lines.index(cpu[0]) < lines.index(steady[0]) < lines.index(cpu[1]), done.stdout


@pytest.mark.slow
def test_a_server_that_cannot_be_reached_is_the_only_failure() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", "load", "--url", "http://127.0.0.1:9"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "nothing answers" in done.stderr


def test_nearest_rank_returns_measured_values() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert [nearest_rank(values, q) for q in (0, 20, 50, 95, 100)] == [1.0, 1.0, 3.0, 5.0, 5.0]
    assert math.isnan(nearest_rank([], 50))


def test_think_time_is_a_range_or_one_value() -> None:
    assert parse_think("0.2-1.0") == (0.2, 1.0)
    assert parse_think("0") == (0.0, 0.0)


@contextlib.contextmanager
def fake_server(
    handle: Callable[[socket.socket, int], None],
) -> Iterator[tuple[str, list[socket.socket]]]:
    """A server on loopback that hands each connection it accepts, and its number, to
    ``handle``: its /api/games URL and the connections it took."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        listener.settimeout(1)
        with contextlib.suppress(OSError):  # the listener closed: done
            while True:
                connection = listener.accept()[0]
                accepted.append(connection)
                handle(connection, len(accepted))

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    try:
        with listener:
            yield f"http://127.0.0.1:{listener.getsockname()[1]}/api/games", accepted
    finally:
        server.join(10)
        for connection in accepted:
            connection.close()


def answer_and_close(connection: socket.socket, status: bytes, headers: bytes = b"") -> None:
    """Answer ``status`` with an empty JSON body (and ``headers``), then close."""
    connection.sendall(b"HTTP/1.1 " + status + b"\r\n" + headers
                       + b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")  # fmt: skip
    connection.close()


def test_a_player_sends_again_a_request_whose_connection_was_reset_under_it() -> None:
    """As a browser does: the first connection is reset as the request arrives (a kept-alive
    connection closed by the server at that moment), the second answers."""

    def reset_first(connection: socket.socket, number: int) -> None:
        connection.recv(65536)
        if number == 1:  # a reset, no answer
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()
        else:
            answer_and_close(connection, b"201 Created")

    with fake_server(reset_first) as (url, accepted), browser_session() as http:
        answer = http.post(url, json={}, timeout=10)
    assert answer.status_code == 201 and len(accepted) == 2


def test_a_player_never_sends_again_a_request_that_timed_out() -> None:
    def never_answer(connection: socket.socket, number: int) -> None:
        return None  # read, never answered

    timed_out = pytest.raises(requests.exceptions.Timeout)
    with fake_server(never_answer) as (url, accepted), browser_session() as http, timed_out:
        http.post(url, json={}, timeout=0.5)
    assert len(accepted) == 1


def test_a_refusal_with_retry_after_is_the_players_answer_not_a_retry() -> None:
    """A 429 (or 503) with ``Retry-After`` comes back to the player, which counts it
    (``create:429``); urllib3 would otherwise send it again and raise ``RetryError``."""

    def refuse(connection: socket.socket, number: int) -> None:
        connection.recv(65536)
        answer_and_close(connection, b"429 Too Many Requests", b"Retry-After: 1\r\n")

    with fake_server(refuse) as (url, accepted), browser_session() as http:
        answer = http.post(url, json={}, timeout=5)
    assert answer.status_code == 429 and len(accepted) == 1


def test_every_outcome_of_a_move_is_counted_once() -> None:
    tally = Tally()
    assert account(tally, {"move": "4"}, None, ends=False, seconds=0.02) == ANSWERED
    assert account(tally, {"status": "won"}, None, ends=True, seconds=0.0) == ANSWERED
    assert account(tally, None, protocol.BUSY, ends=False, seconds=0.0) == REFUSED
    assert account(tally, None, protocol.ENGINE_FAILED, ends=False, seconds=0.0) == LOST
    assert account(tally, None, "disconnected", ends=True, seconds=0.0) == LOST
    assert account(tally, None, None, ends=False, seconds=0.0) == LOST  # no answer in time
    # Expected: the answered reply, the failed engine's, the timed-out one; the refused
    # move and the game-ending ones want no reply. Only the answer has a latency.
    assert (tally.expected, tally.replies, tally.ended, tally.timeouts) == (3, 1, 1, 1)
    assert tally.latencies == [0.02]
