"""``python -m webapp.bench soak --minutes N``: the real server under a long, mixed crowd.

Starts ``python -m webapp`` (or uses ``--url``) and, for N minutes, runs players who
start games and abandon them, move, undo, reload their page (reconnect and join),
open analyses (``/api/analysis``) and search trees (``/api/tree``); spectators who come
and go; and SIGKILLs one search process every ``--kill-every`` minutes (the server
must start another). Every minute it prints a row: the web process's resident memory,
threads and open files, each search process's memory, games started, engine replies
per second, refusals and errors. At the end it checks nothing was lost: every game
it played replays legally from the store, and holds every move the server accepted.

Memory, threads and files should stay flat once warm (the lead compares the last 10
minutes of an hour with minutes 10-20). No figure is asserted: this prints what it saw;
its exit status is 1 when a game was lost or the server could not be started.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import socketio

from webapp import protocol
from webapp.bench.load_players import REPLY_TIMEOUT, browser_session, connect, cookie_header
from webapp.bench.load_server import LoadServer, ServerFailed
from webapp.bench.processes import server_processes, usage
from webapp.games import IllegalMoveError, new_game

#: What a player does next, with its weight (a move most of the time).
ACTIONS = {"move": 60, "undo": 8, "reload": 8, "analysis": 8, "tree": 4, "abandon": 6}
GAMES = ("connect4", "tictactoe")
SETTINGS = {"level": "easy", "engine_plays": "second"}


@dataclass
class Played:
    """A game the soak played, and the moves the store must hold (a prefix when ``exact``
    is False: a move was accepted but its reply not seen)."""

    game: str
    game_id: str
    moves: str = ""
    exact: bool = True


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    counts: Counter[str] = field(default_factory=Counter)
    played: list[Played] = field(default_factory=list)

    def add(self, name: str, n: int = 1) -> None:
        with self.lock:
            self.counts[name] += n

    def snapshot(self) -> Counter[str]:
        with self.lock:
            return Counter(self.counts)


class SoakPlayer:
    """One browser at a time (a new one per game): plays, undoes, reloads, analyses."""

    def __init__(self, url: str, tally: Tally, stop: threading.Event, seed: int) -> None:
        self.url, self.tally, self.stop = url, tally, stop
        self.rng = random.Random(seed)
        self.http = browser_session()
        self.sio = socketio.Client(reconnection=False)
        self.game: Played | None = None
        self.replies: dict[str, dict[str, Any]] = {}  # position -> engine_move or final state
        self.cond = threading.Condition()
        self.sio.on(protocol.ENGINE_MOVE, self._on_answer)
        self.sio.on(protocol.STATE, self._on_answer)

    def _on_answer(self, payload: dict[str, Any]) -> None:
        game_id = payload.get("game_id", payload.get("id"))
        if self.game is None or game_id != self.game.game_id:
            return
        if "move" in payload or payload.get("status") != "playing":
            with self.cond:
                self.replies[payload["moves"]] = payload
                self.cond.notify_all()

    def run(self) -> None:
        names, weights = list(ACTIONS), list(ACTIONS.values())
        while not self.stop.is_set():
            try:
                if self.game is None or not self.sio.connected:
                    self.start_game()
                else:
                    getattr(self, self.rng.choices(names, weights)[0])()
            except Exception as error:  # a client failure is a figure, never a crash
                self.tally.add(f"client:{type(error).__name__}")
                self.leave()
            self.stop.wait(self.rng.uniform(0.3, 1.5))
        self.leave()
        self.sio.shutdown()

    # -- actions --------------------------------------------------------------------------
    def start_game(self) -> None:
        self.leave()
        self.http = browser_session()  # a new browser: a new identity
        name = self.rng.choice(GAMES)
        body: dict[str, Any] = {"game": name, "settings": SETTINGS}
        response = self.http.post(f"{self.url}/api/games", json=body, timeout=REPLY_TIMEOUT)
        if response.status_code != 201:
            self.tally.add(f"create:{response.status_code}")
            return
        self.game = Played(name, response.json()["id"])
        with self.tally.lock:
            self.tally.played.append(self.game)
        self.tally.add("games")
        self.join()

    def join(self) -> None:
        """Connect and join, as a page does; the state must hold every accepted move."""
        assert self.game is not None
        connect(self.url, self.sio, cookie_header(self.http))
        state = self.sio.call(protocol.JOIN, {"game_id": self.game.game_id}, timeout=REPLY_TIMEOUT)
        stored = str(state["moves"])
        kept = stored == self.game.moves if self.game.exact else stored.startswith(self.game.moves)
        if not kept:
            self.tally.add("lost")
        # While the engine is to move (a reply still on its way), its move may follow.
        self.game.moves, self.game.exact = stored, state["to_move"] != state["engine_side"]
        if state["status"] != "playing":
            self.game = None  # over: the next action starts another

    def move(self) -> None:
        assert self.game is not None
        position = new_game(self.game.game, self.game.moves)
        after = self.game.moves + position.format_move(self.rng.choice(position.legal_moves()))
        ack = self.sio.call(protocol.MOVE, {"game_id": self.game.game_id, "move": after[-1]},
                            timeout=REPLY_TIMEOUT)  # fmt: skip
        if "code" in ack:
            self.tally.add(f"refused:{ack['code']}")
            return
        self.game.moves, self.game.exact = after, False  # accepted: stored from now on
        self.tally.add("moves")
        with self.cond:
            self.cond.wait_for(lambda: after in self.replies, timeout=REPLY_TIMEOUT)
            answer = self.replies.pop(after, None)
            self.replies.clear()
        if answer is None:
            self.tally.add("timeouts")
            self.reload()  # learn where the game stands
        elif "move" in answer:
            self.tally.add("replies")
            self.game.moves, self.game.exact = after + answer["move"], True
            if new_game(self.game.game, self.game.moves).is_terminal():
                self.game = None
        else:
            self.game = None  # the player's move ended it

    def undo(self) -> None:
        assert self.game is not None
        if not self.game.exact or len(self.game.moves) < 2:
            return
        ack = self.sio.call(protocol.UNDO, {"game_id": self.game.game_id}, timeout=REPLY_TIMEOUT)
        if "code" in ack:
            self.tally.add(f"refused:{ack['code']}")
            return
        keep = max(i for i in range(len(self.game.moves)) if i % 2 == 0)  # the human's last
        self.game.moves = self.game.moves[:keep]
        self.tally.add("undos")

    def reload(self) -> None:
        self.sio.disconnect()
        self.join()
        self.tally.add("reloads")

    def analysis(self) -> None:
        assert self.game is not None
        query = {"game": self.game.game, "moves": self.game.moves}
        answer = self.http.get(f"{self.url}/api/analysis", params=query, timeout=REPLY_TIMEOUT)
        self.tally.add(f"analysis:{answer.status_code}")

    def tree(self) -> None:
        assert self.game is not None
        query = {"game": self.game.game, "moves": self.game.moves, "depth": "3"}
        answer = self.http.get(f"{self.url}/api/tree", params=query, timeout=REPLY_TIMEOUT)
        self.tally.add(f"tree:{answer.status_code}")

    def abandon(self) -> None:
        self.leave()  # the page is closed mid-game: the game is never touched again
        self.tally.add("abandoned")

    def leave(self) -> None:
        self.game = None
        with contextlib.suppress(Exception):
            if self.sio.connected:
                self.sio.disconnect()


def spectate(url: str, tally: Tally, stop: threading.Event, seed: int) -> None:
    """Open a random game played so far, watch it 5-30 s, close it; again."""
    rng = random.Random(seed)
    while not stop.is_set():
        with tally.lock:
            game_id = rng.choice(tally.played).game_id if tally.played else None
        if game_id is None:
            stop.wait(1)
            continue
        client = socketio.Client(reconnection=False)
        try:
            connect(url, client)
            client.call(protocol.JOIN, {"game_id": game_id}, timeout=REPLY_TIMEOUT)
            tally.add("spectators")
            stop.wait(rng.uniform(5, 30))
        except Exception as error:
            tally.add(f"spectator:{type(error).__name__}")
        finally:
            with contextlib.suppress(Exception):
                client.disconnect()
            client.shutdown()


def kill_a_search_process(pid: int | None, rng: random.Random, tally: Tally) -> str:
    """SIGKILL one of the web process's search processes; what was done."""
    if pid is None:
        return "no kill (a server elsewhere)"
    _, searches = server_processes(pid)
    if not searches:
        return "no search process to kill"
    victim = rng.choice(searches)
    with contextlib.suppress(ProcessLookupError):
        os.kill(victim, signal.SIGKILL)
    tally.add("kills")
    return f"killed search process {victim}"


# -- the table ---------------------------------------------------------------------------
HEADER = (f"{'min':>4} {'web MB':>7} {'threads':>7} {'fds':>5} {'search MB':<16} "
          f"{'games':>6} {'moves/s':>7} {'replies':>7} {'tmout':>5} {'lost':>4} {'kills':>5}"
          "  other")  # fmt: skip


def row(
    minute: float, pid: int | None, now: Counter[str], before: Counter[str], seconds: float
) -> str:
    web, searches = server_processes(pid) if pid is not None else (0, [])
    own = usage(web) if web else None
    search_mb = "/".join(f"{usage(p).rss_mb:.0f}" for p in searches) or "-"
    delta = now - before
    counted = ("games", "moves", "replies", "timeouts", "lost", "kills")
    other = ", ".join(f"{k}={v}" for k, v in sorted(delta.items()) if k not in counted) or "-"
    rate = delta["replies"] / seconds if seconds > 0 else 0.0
    return (f"{minute:>4.1f} {own.rss_mb if own else 0:>7.1f} {own.threads if own else 0:>7} "
            f"{own.fds if own else 0:>5} {search_mb:<16} {delta['games']:>6} {rate:>7.1f} "
            f"{delta['replies']:>7} {delta['timeouts']:>5} {delta['lost']:>4} {delta['kills']:>5}"
            f"  {other}")  # fmt: skip


def check_games(url: str, played: list[Played]) -> tuple[int, list[str]]:
    """Every game from the store: it replays legally and holds every accepted move."""
    problems = []
    with requests.Session() as http:
        for game in played:
            response = http.get(f"{url}/api/games/{game.game_id}", timeout=REPLY_TIMEOUT)
            if response.status_code != 200:
                problems.append(f"{game.game_id}: HTTP {response.status_code}")
                continue
            stored = response.json()["moves"]
            try:
                new_game(game.game, stored)
            except IllegalMoveError as error:
                problems.append(f"{game.game_id}: {stored!r} does not replay: {error}")
                continue
            if not stored.startswith(game.moves) or (game.exact and stored != game.moves):
                problems.append(f"{game.game_id}: stored {stored!r}, accepted {game.moves!r}")
    return len(played), problems


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.bench soak", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--minutes", type=float, default=5.0, help="how long (5)")
    parser.add_argument("--players", type=int, default=20, help="players at once (20)")
    parser.add_argument("--spectators", type=int, default=10, help="spectators at once (10)")
    parser.add_argument("--kill-every", type=float, default=2.0, metavar="MINUTES",
                        help="SIGKILL a search process this often (2; 0 = never)")  # fmt: skip
    parser.add_argument("--every", type=float, default=60.0, metavar="SECONDS",
                        help="seconds between rows (60)")  # fmt: skip
    parser.add_argument("--url", help="a server already running (else one is started)")
    parser.add_argument("--workers", type=int, default=2, help="search processes (2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep-logs", type=Path, metavar="DIR",
                        help="copy the server's logs into DIR when it stops")  # fmt: skip
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    tally, stop, rng = Tally(), threading.Event(), random.Random(args.seed)
    try:
        with LoadServer(args.url, args.workers, keep_logs=args.keep_logs) as server:
            url, pid = server.url, server.web_pid
            print(f"# Soak: {url} ({args.url or server.describe()}), {args.minutes:g} min, "
                  f"{args.players} players, {args.spectators} spectators, a search process "
                  f"killed every {args.kill_every:g} min", flush=True)  # fmt: skip
            players = [SoakPlayer(url, tally, stop, args.seed * 1000 + i)
                       for i in range(args.players)]  # fmt: skip
            threads = [threading.Thread(target=p.run, daemon=True) for p in players]
            threads += [threading.Thread(target=spectate, args=(url, tally, stop, args.seed + i),
                                         daemon=True) for i in range(args.spectators)]  # fmt: skip
            for thread in threads:
                thread.start()
            print(HEADER, flush=True)
            started = last = time.monotonic()
            next_kill = started + args.kill_every * 60 if args.kill_every > 0 else float("inf")
            next_row, before = started + args.every, tally.snapshot()
            while next_row <= started + args.minutes * 60 + 0.01:
                time.sleep(max(0.0, min(next_row, next_kill) - time.monotonic()))
                if time.monotonic() >= next_kill:
                    print(f"# {kill_a_search_process(pid, rng, tally)}", flush=True)
                    next_kill += args.kill_every * 60
                now = time.monotonic()
                if now >= next_row:  # a row per period, kills or not
                    counts = tally.snapshot()
                    print(row((now - started) / 60, pid, counts, before, now - last), flush=True)
                    before, last, next_row = counts, now, next_row + args.every
            stop.set()
            for thread in threads:
                thread.join(REPLY_TIMEOUT + 10)
            checked, problems = check_games(url, tally.played)
            totals = tally.snapshot()
            print(f"# totals: {dict(sorted(totals.items()))}")
            print(f"# {checked} games checked from the store: {len(problems)} problems")
            for problem in problems[:20]:
                print(f"#   {problem}")
            return 1 if problems or totals["lost"] else 0
    except ServerFailed as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1
