"""End to end on loopback: the real server (``python -m webapp``) and python-socketio clients.

A player plays a whole tic-tac-toe game against the perfect engine and a few
Connect Four moves, a second browser watches the same games, then the server
is restarted on the same database and the games are still there.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio

from tests.web.fake_searches import HOLD_ENV, Holds
from tests.web.held_engine import HELD
from tests.web.helpers import WAIT
from webapp import protocol
from webapp.bench.processes import descendants
from webapp.games import new_game
from webapp.search_pool import DEPTHS

#: Real servers and restarts: over ~2 s each (``scripts/test.sh --fast`` leaves them out).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: The server warms its workers (compiles or loads kernels) before it answers searches.
START_SECONDS = 180.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """``python -m webapp`` on a free loopback port, on ``database``."""

    def __init__(self, database: Path, log: Path, *options: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "webapp", "--port", str(self.port), "--db", str(database)]
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [*command, *options], cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.log_path = log
        deadline = time.monotonic() + START_SECONDS
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"the server did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)

    def _answers(self) -> bool:
        try:
            return requests.get(self.url + "/", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def stop(self) -> set[int]:
        """Stop the server as a process manager would (SIGTERM); the processes it had."""
        workers = descendants(self.process.pid)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        return workers


class Browser:
    """One browser: an HTTP session (its cookies are its seats) and a Socket.IO connection."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = requests.Session()
        self.sio = socketio.Client()
        self.events: list[tuple[str, Any]] = []
        self.lock = threading.Lock()
        for name in protocol.SERVER_EVENTS:
            self.sio.on(name, self._recorder(name))

    def _recorder(self, name: str) -> Callable[[Any], None]:
        def record(payload: Any = None) -> None:
            with self.lock:
                self.events.append((name, payload))

        return record

    def create(self, game: str, **body: Any) -> dict[str, Any]:
        """Start a game (its seat cookie arrives); the next join connects anew, like a new page."""
        if self.sio.connected:
            self.sio.disconnect()
        response = self.http.post(
            f"{self.server.url}/api/games", json={"game": game, **body}, timeout=WAIT
        )
        assert response.status_code == 201, response.text
        state: dict[str, Any] = response.json()
        return state

    def join(self, game_id: str) -> dict[str, Any]:
        if not self.sio.connected:
            cookies = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
            self.sio.connect(self.server.url, headers={"Cookie": cookies}, wait_timeout=WAIT)
        state: dict[str, Any] = self.sio.call(protocol.JOIN, {"game_id": game_id}, timeout=WAIT)
        return state

    def named(self, name: str, game_id: str) -> list[Any]:
        key = "id" if name == protocol.STATE else "game_id"
        with self.lock:
            return [p for n, p in self.events if n == name and p.get(key) == game_id]

    def wait_for(self, name: str, game_id: str, check: Callable[[Any], bool]) -> Any:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for payload in self.named(name, game_id):
                if check(payload):
                    return payload
            time.sleep(0.02)
        with self.lock:
            seen = [(n, p.get("moves") or p.get("message")) for n, p in self.events]
        raise AssertionError(f"no matching {name!r} for {game_id} in {WAIT} s; received {seen}")

    def close(self) -> None:
        if self.sio.connected:
            self.sio.disconnect()
        self.sio.shutdown()
        self.http.close()


@pytest.fixture
def browsers() -> Iterator[Callable[[Server], Browser]]:
    made: list[Browser] = []

    def make(server: Server) -> Browser:
        made.append(Browser(server))
        return made[-1]

    yield make
    for browser in made:
        browser.close()


def play_against_the_engine(player: Browser, game: dict[str, Any], human_moves: int) -> str:
    """Play the first legal move whenever it is the human's turn; the moves at the end."""
    game_id, name = game["id"], game["game"]
    moves, played = game["moves"], 0
    while played < human_moves:
        state = player.wait_for(protocol.STATE, game_id, lambda s, at=moves: my_turn_or_over(s, at))
        moves = state["moves"]
        if state["status"] != "playing":
            return moves
        position = new_game(name, moves)
        move = position.format_move(position.legal_moves()[0])  # type: ignore[attr-defined]
        player.sio.emit(protocol.MOVE, {"game_id": game_id, "move": move})
        moves += move
        played += 1
    return player.wait_for(
        protocol.STATE, game_id, lambda s: len(s["moves"]) > len(moves) or s["status"] != "playing"
    )["moves"]


def my_turn_or_over(state: dict[str, Any], moves: str) -> bool:
    """A state at or after ``moves`` where the human may move, or the game is over."""
    if not state["moves"].startswith(moves):
        return False
    if state["status"] != "playing":
        return True
    return state["to_move"] == state["human_side"] and not state["engine_thinking"]


def check_engine_moves(browser: Browser, game: dict[str, Any], final: str) -> None:
    """Every engine move was announced with legal lines, after its depths streamed in.

    The move goes out alone (the critical path). ``scores`` events come for
    positions the game passed through, for the side to move there (a bot that
    moves at once may leave none).
    """
    results = browser.named(protocol.ENGINE_MOVE, game["id"])
    assert results, "no engine_move received"
    for result in results:
        assert final.startswith(result["moves"] + result["move"])
        new_game(game["game"], result["moves"] + result["pv"])  # the PV is legal
        assert {"score", "exact", "nodes", "depth", "time_ms", "algorithm"} <= set(result)
    for scores in browser.named(protocol.SCORES, game["id"]):
        assert final.startswith(scores["moves"])
        assert scores["to_move"] == len(scores["moves"]) % 2
        searched = new_game(game["game"], scores["moves"])
        legal = {searched.format_move(move) for move in searched.legal_moves()}
        assert set(scores["move_scores"]) == legal
    # Depths stream while a search runs; a quick one's come with its move.
    thinking = browser.named(protocol.THINKING, game["id"])
    thinking += [row for result in results for row in result.get(DEPTHS, [])]
    assert thinking, "no depths received"
    for row in thinking:
        new_game(game["game"], row["moves"] + row["pv"])


def saw_every_move(watcher: Browser, game_id: str, final: str, start: str = "") -> bool:
    """Every move of ``final`` past ``start`` reached the watcher in a state: its own, or,
    for a move the engine answered in milliseconds (Easy, Medium), its reply's."""
    seen = {state["moves"] for state in watcher.named(protocol.STATE, game_id)}
    return final in seen and all(
        final[:n] in seen or final[: n + 1] in seen for n in range(len(start) + 1, len(final))
    )


def saw_every_engine_move(browser: Browser, game_id: str, final: str, side: int) -> bool:
    """An engine_move for each of the engine's moves (``side`` 0 moves first) in ``final``."""
    announced = [r["moves"] for r in browser.named(protocol.ENGINE_MOVE, game_id)]
    return announced == [final[:n] for n in range(side, len(final), 2)]


def test_real_server_plays_watches_and_survives_a_restart(
    tmp_path: Path, browsers: Callable[[Server], Browser]
) -> None:
    database, log = tmp_path / "games.db", tmp_path / "server.log"
    server = Server(database, log)
    try:
        player, watcher = browsers(server), browsers(server)

        # Tic-tac-toe against the perfect engine: it never loses.
        ttt = player.create("tictactoe", settings={"level": "perfect"})
        assert player.join(ttt["id"])["seat"] == "player"
        assert watcher.join(ttt["id"])["seat"] == "spectator"
        final = play_against_the_engine(player, ttt, human_moves=5)
        over = player.wait_for(protocol.STATE, ttt["id"], lambda s: s["moves"] == final)
        assert over["status"] != "playing"
        assert over["status"] == "drawn" or over["winner"] == over["engine_side"]
        check_engine_moves(player, ttt, final)
        # The last engine_move and state reach each client in their own time.
        side = over["engine_side"]

        def everything_arrived() -> bool:
            return saw_every_move(watcher, ttt["id"], final) and all(
                saw_every_engine_move(client, ttt["id"], final, side)
                for client in (player, watcher)
            )

        deadline = time.monotonic() + WAIT
        while not everything_arrived() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert everything_arrived()
        assert watcher.named(protocol.ENGINE_MOVE, ttt["id"]) == player.named(
            protocol.ENGINE_MOVE, ttt["id"]
        )

        # Connect Four at a depth-limited level, engine first, for a few moves.
        c4 = player.create("connect4", settings={"level": "medium", "engine_plays": "first"})
        player.join(c4["id"])
        watcher.join(c4["id"])
        c4_moves = play_against_the_engine(player, c4, human_moves=3)
        assert len(c4_moves) == 7
        check_engine_moves(player, c4, c4_moves)
        watcher.wait_for(protocol.STATE, c4["id"], lambda s: s["moves"] == c4_moves)
        assert saw_every_move(watcher, c4["id"], c4_moves, start="")
    finally:
        workers = server.stop()
    assert server.process.returncode == 0, log.read_text(errors="replace")[-3000:]
    deadline = time.monotonic() + WAIT
    while any(os.path.exists(f"/proc/{pid}") for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in workers), "workers outlived the server"

    restarted = Server(database, log)
    try:
        for game, moves in ((ttt, final), (c4, c4_moves)):
            state = requests.get(f"{restarted.url}/api/games/{game['id']}", timeout=WAIT).json()
            assert state["moves"] == moves and state["seat"] == "spectator"
        page = requests.get(f"{restarted.url}/g/{c4['id']}", timeout=WAIT)
        assert page.status_code == 200 and c4["id"] in page.text
    finally:
        restarted.stop()


def test_sigterm_mid_search_commits_nothing_and_a_restart_resumes_it(
    tmp_path: Path, browsers: Callable[[Server], Browser], monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = tmp_path / "hold"
    hold.mkdir()
    monkeypatch.setenv(HOLD_ENV, str(hold))  # the server's workers inherit it
    holds = Holds(hold)
    database, log = tmp_path / "games.db", tmp_path / "server.log"
    server = Server(database, log, "--set", f"SEARCH_FUNCTION={HELD}")
    try:
        player = browsers(server)
        game = player.create("connect4", settings={"level": "perfect"})
        player.join(game["id"])
        player.sio.call(protocol.MOVE, {"game_id": game["id"], "move": "4"}, timeout=WAIT)
        holds.started("connect4-4")  # the engine is searching
    finally:
        server.stop()  # SIGTERM mid-search: the search is cut short inside its worker
    assert server.process.returncode == 0, log.read_text(errors="replace")[-3000:]
    assert holds.cancelled("connect4-4")
    with sqlite3.connect(database) as db:
        (moves,) = db.execute("SELECT moves FROM games WHERE id = ?", (game["id"],)).fetchone()
    assert moves == "4"  # the cut-short search was not played

    holds.release()
    restarted = Server(database, log, "--set", f"SEARCH_FUNCTION={HELD}")
    try:

        def engine_moved() -> bool:
            url = f"{restarted.url}/api/games/{game['id']}"
            return len(requests.get(url, timeout=WAIT).json()["moves"]) == 2

        deadline = time.monotonic() + WAIT
        while not engine_moved() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert engine_moved()  # resumed after the restart
        first, *after = holds.runs("connect4-4")  # after: the move's search, then its scores
        assert after and first not in after  # searched again, by the new server's workers
    finally:
        restarted.stop()
