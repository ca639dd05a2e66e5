"""``python -m webapp.bench soak``: its crowd runs, its rows print, its final check finds losses."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests

from webapp.bench import soak
from webapp.bench.load_server import LoadServer
from webapp.bench.processes import server_processes


@pytest.fixture(scope="module")
def server() -> Iterator[LoadServer]:
    with LoadServer(None, 1) as started:
        yield started


@pytest.mark.slow
def test_a_short_soak_prints_rows_kills_a_worker_and_loses_nothing(
    server: LoadServer, capsys: pytest.CaptureFixture[str]
) -> None:
    pid = server.web_pid
    assert pid is not None
    arguments = ["--url", server.url, "--minutes", "0.25", "--every", "5", "--players", "3",
                 "--spectators", "1", "--kill-every", "0"]  # fmt: skip
    assert soak.main(arguments) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line[:1] == " " and "." in line[:5]]
    assert len(rows) >= 2  # one every 5 s
    assert "games checked from the store: 0 problems" in out
    assert "'games'" in out and "'moves'" in out  # the crowd played
    before = server_processes(pid)[1]
    said = soak.kill_a_search_process(pid, soak.random.Random(1), soak.Tally())
    victim = int(said.rsplit(" ", 1)[1])
    assert said.startswith("killed") and victim in before
    deadline = time.monotonic() + 60
    while victim in server_processes(pid)[1] and time.monotonic() < deadline:
        time.sleep(0.1)  # the pool reaps it (and starts another)
    assert victim not in server_processes(pid)[1]


@pytest.mark.slow  # a real server and its search worker, for one check
def test_the_final_check_reports_a_move_the_store_lost(server: LoadServer) -> None:
    body = {"game": "tictactoe", "settings": soak.SETTINGS}
    created = requests.post(f"{server.url}/api/games", json=body, timeout=30).json()
    kept = soak.Played("tictactoe", created["id"], "")
    lost = soak.Played("tictactoe", created["id"], "5")  # "accepted", yet not stored
    assert soak.check_games(server.url, [kept]) == (1, [])
    checked, problems = soak.check_games(server.url, [kept, lost])
    assert checked == 2 and len(problems) == 1 and "accepted '5'" in problems[0]
