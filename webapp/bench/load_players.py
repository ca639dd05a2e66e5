"""The load benchmark's clients: players, a hostile analyser and a page fetcher.

Each simulated player is a browser as the server sees it: a ``requests``
session whose cookies hold its seats (POST /api/games sets them) and a
Socket.IO connection that sends those cookies with its handshake. It keeps the
position itself (``webapp.games.new_game``), plays random legal moves, and
times each engine reply from its ``move`` to the ``engine_move`` for the
position after that move. Everything counted goes into a ``Tally``, one per
table row.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import requests
import socketio
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import ReadTimeoutError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

from webapp import protocol
from webapp.engine.game import Game
from webapp.games import new_game

log = logging.getLogger(__name__)

#: A move with no answer in this time counts as a timeout (the player starts a new game).
REPLY_TIMEOUT = 30.0
#: A hostile connection refused at once pauses this long, so it floods but does not spin.
HOSTILE_PAUSE = 0.05
#: The page fetcher's period.
FETCH_PERIOD = 0.2


class GameRefused(Exception):
    """POST /api/games did not answer 201."""


@dataclass
class Tally:
    """What one table row counts; every method may be called from any thread."""

    moves: int = 0  # moves sent
    expected: int = 0  # moves sent that the engine had to answer (not refused, not game-ending)
    replies: int = 0
    ended: int = 0  # moves that ended the game (no reply wanted)
    latencies: list[float] = field(default_factory=list)  # seconds, one per reply
    errors: Counter[str] = field(default_factory=Counter)  # error events by code
    timeouts: int = 0
    disconnects: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **counts: int) -> None:
        with self.lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def reply(self, seconds: float) -> None:
        with self.lock:
            self.replies += 1
            self.latencies.append(seconds)

    def error(self, code: str) -> None:
        with self.lock:
            self.errors[code] += 1


def browser_session() -> requests.Session:
    """An HTTP session that, like a browser, sends a request again (once) when a kept-alive
    connection it reused was closed under it before any answer: the server ends idle
    connections after a few seconds (gunicorn's keep-alive), and a player's next POST
    sometimes raced that close ("Connection reset by peer"), which ended the player."""
    session = requests.Session()
    again = AfterReset(
        total=1, connect=1, read=1, status=0, other=0, allowed_methods=None,
        respect_retry_after_header=False,  # a 429 or 503 is the player's to count
    )  # fmt: skip
    session.mount("http://", HTTPAdapter(max_retries=again))
    return session


class AfterReset(Retry):
    """urllib3's retries for any method, but never of a request that timed out (a server
    that was slow to answer may have done it: a browser does not send that again)."""

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> AfterReset:
        if isinstance(error, ReadTimeoutError):
            raise error
        return super().increment(method, url, response, error, _pool, _stacktrace)


def cookie_header(session: requests.Session) -> str:
    return "; ".join(f"{c.name}={c.value}" for c in session.cookies)


def connect(url: str, client: socketio.Client, cookies: str = "") -> None:
    headers = {"Cookie": cookies} if cookies else {}
    client.connect(url, headers=headers, transports=["websocket"], wait_timeout=REPLY_TIMEOUT)


#: ``account``'s outcomes: the move was answered (or ended the game), refused as busy (the
#: position is unchanged: the player tries again later), or the game's state is unknown
#: (the engine failed, the connection dropped, no answer in time: start afresh).
ANSWERED, REFUSED, LOST = "answered", "refused", "lost"


def account(
    tally: Tally, answer: dict[str, Any] | None, failure: str | None, ends: bool, seconds: float
) -> str:
    """Count a move's outcome in ``tally``: its ``answer`` (the engine's reply, or the
    state of the game it ended) after ``seconds``, else the ``failure`` (an error code,
    "disconnected"), else nothing in time. Which of the three outcomes it was."""
    if answer is not None:
        if ends:
            tally.add(ended=1)
        else:
            tally.add(expected=1)
            tally.reply(seconds)
        return ANSWERED
    if failure == protocol.BUSY:
        return REFUSED
    if failure is None:
        tally.add(expected=0 if ends else 1, timeouts=1)
    elif failure in (protocol.ENGINE_FAILED, "disconnected") and not ends:
        tally.add(expected=1)
    return LOST


@dataclass
class PlayerPlan:
    """What a player plays: game, settings, how many moves, how long it thinks."""

    game: str
    settings: dict[str, Any]
    moves: int
    think: tuple[float, float]
    stop: threading.Event  # the scenario's deadline: no new move once set
    burst: threading.Barrier | None = None  # first move sent together with every player
    burst_tally: Tally | None = None
    #: Passed by every player once its burst move is answered, before its next move: the
    #: steady window (only moves, no creations, no burst) starts there.
    settled: threading.Barrier | None = None


class Player:
    """One browser playing games against the engine until its move budget is spent."""

    def __init__(self, url: str, plan: PlayerPlan, tally: Tally, seed: int) -> None:
        self.url, self.plan, self.tally = url, plan, tally
        self.current = tally  # the row the move under way counts in (the burst has its own)
        self.rng = random.Random(seed)
        self.http = browser_session()
        self.sio = socketio.Client(reconnection=False)
        self.cond = threading.Condition()
        self.game_id = ""
        self.moves = ""
        self.position: Game = new_game(plan.game)
        self.waiting = ""  # the position whose engine reply (or state) we wait for
        self.answer: dict[str, Any] | None = None
        self.failure: str | None = None
        self.received = 0.0
        self.closing = False
        self.sio.on(protocol.ENGINE_MOVE, self._on_engine_move)
        self.sio.on(protocol.STATE, self._on_state)
        self.sio.on(protocol.ERROR, self._on_error)
        self.sio.on("disconnect", self._on_disconnect)

    # -- events (Socket.IO's thread) ----------------------------------------------------
    def _on_engine_move(self, payload: dict[str, Any]) -> None:
        with self.cond:
            if payload.get("game_id") == self.game_id and payload.get("moves") == self.waiting:
                self.received = time.perf_counter()
                self.answer = payload
                self.cond.notify_all()

    def _on_state(self, payload: dict[str, Any]) -> None:
        with self.cond:
            mine = payload.get("id") == self.game_id and payload.get("moves") == self.waiting
            if mine and payload.get("status") != "playing":  # a game-ending move: no reply
                self.answer = payload
                self.cond.notify_all()

    def _on_error(self, payload: dict[str, Any]) -> None:
        code = str(payload.get("code", "unknown"))
        self.current.error(code)
        with self.cond:
            self.failure = code
            self.cond.notify_all()

    def _on_disconnect(self, *_: Any) -> None:
        with self.cond:
            if self.closing:
                return
            self.failure = "disconnected"
            self.cond.notify_all()
        self.current.add(disconnects=1)

    # -- playing (the player's thread) --------------------------------------------------
    def run(self) -> None:
        try:
            self.new_game()
            if self.plan.burst is not None and self.plan.burst_tally is not None:
                # A player that failed to start breaks the barrier: the others go anyway.
                with contextlib.suppress(threading.BrokenBarrierError):
                    self.plan.burst.wait(timeout=REPLY_TIMEOUT * 2)
                self.play_one(self.plan.burst_tally)
                with self.cond:
                    self.current = self.tally
                if self.plan.settled is not None:
                    with contextlib.suppress(threading.BrokenBarrierError):
                        self.plan.settled.wait(timeout=REPLY_TIMEOUT * 2)
            played = 1 if self.plan.burst is not None else 0
            while played < self.plan.moves and not self.plan.stop.is_set():
                if not self.sio.connected or self.position.is_terminal():
                    self.new_game()
                low, high = self.plan.think
                self.plan.stop.wait(self.rng.uniform(low, high) if high > 0 else 0)
                if self.plan.stop.is_set():
                    break
                self.play_one(self.tally)
                played += 1
        except GameRefused:
            pass  # counted; this player stops (a rate limit, a full server)
        except Exception as error:  # a client failure is a figure, never a crash
            self.tally.error(f"client:{type(error).__name__}")
            log.warning("a player stopped: %s: %s", type(error).__module__, error)
        finally:
            self.close()

    def new_game(self) -> None:
        """The next game: once a game is over, asked over its connection and shown in
        place, the connection kept (the game page's "New game"); else made by POST
        /api/games (the home page's form) and opened like a new page (its cookies, a
        connection, a join)."""
        state = self._next_game()
        if state is not None:
            with self.cond:
                self.game_id, self.moves = state["id"], state["moves"]
            self.position = new_game(self.plan.game, self.moves)
            return
        if self.sio.connected:
            self._disconnect()
        body: dict[str, Any] = {"game": self.plan.game, "settings": self.plan.settings}
        response = self.http.post(f"{self.url}/api/games", json=body, timeout=REPLY_TIMEOUT)
        if response.status_code != 201:
            self.current.error(f"create:{response.status_code}")
            raise GameRefused(response.text[:200])
        state = response.json()
        self.closing = False
        connect(self.url, self.sio, cookie_header(self.http))
        self.game_id, self.moves = state["id"], state["moves"]
        self.sio.call(protocol.JOIN, {"game_id": self.game_id}, timeout=REPLY_TIMEOUT)
        self.position = new_game(self.plan.game, self.moves)

    def _next_game(self) -> dict[str, Any] | None:
        """The game page's "New game" over the finished game's connection: the new game's
        state; None when there is no such connection (a first game, a lost one)."""
        if not self.sio.connected or not self.game_id or not self.position.is_terminal():
            return None
        asked = {"game_id": self.game_id, "switch": True}
        answer = self.sio.call(protocol.NEW_GAME, asked, timeout=REPLY_TIMEOUT)
        if not isinstance(answer, dict) or "state" not in answer:  # counted as its error event
            raise GameRefused(str(answer)[:200])
        return dict(answer["state"])  # the connection is in its room now

    def play_one(self, tally: Tally) -> None:
        """Send a random legal move and wait for the engine's reply (or the game's end)."""
        move = self.position.format_move(self.rng.choice(self.position.legal_moves()))
        after = self.moves + move
        ends = new_game(self.plan.game, after).is_terminal()
        with self.cond:
            self.waiting, self.answer, self.failure = after, None, None
            self.current = tally
        sent = time.perf_counter()
        self.sio.emit(protocol.MOVE, {"game_id": self.game_id, "move": move})
        tally.add(moves=1)
        with self.cond:
            self.cond.wait_for(lambda: self.answer is not None or self.failure is not None,
                               timeout=REPLY_TIMEOUT)  # fmt: skip
            answer, failure, received = self.answer, self.failure, self.received
        outcome = account(tally, answer, failure, ends, received - sent)
        if answer is not None:
            after += "" if ends else answer["move"]
            self.moves, self.position = after, new_game(self.plan.game, after)
        elif outcome == LOST:
            self._disconnect()  # the game's state is unknown: the next move starts afresh

    def _disconnect(self) -> None:
        self.closing = True
        if self.sio.connected:
            self.sio.disconnect()

    def close(self) -> None:
        self._disconnect()
        self.sio.shutdown()
        self.http.close()


class HostileConnection:
    """A seatless Socket.IO connection that re-sends ``analyse`` as soon as it is answered."""

    def __init__(self, url: str, game_id: str, tally: Tally, stop: threading.Event) -> None:
        self.url, self.game_id, self.tally, self.stop = url, game_id, tally, stop
        self.sio = socketio.Client(reconnection=False)
        self.done = threading.Event()
        self.started = threading.Event()  # its first analyse is sent
        self.failed = False
        self.sio.on(protocol.ANALYSIS, self._on_analysis)
        self.sio.on(protocol.ERROR, self._on_error)

    def _on_analysis(self, payload: dict[str, Any]) -> None:
        self.tally.add(replies=1)
        self.done.set()

    def _on_error(self, payload: dict[str, Any]) -> None:
        self.tally.error(str(payload.get("code", "unknown")))
        self.failed = True
        self.done.set()

    def run(self) -> None:
        try:
            connect(self.url, self.sio)
            self.sio.call(protocol.JOIN, {"game_id": self.game_id}, timeout=REPLY_TIMEOUT)
            while not self.stop.is_set():
                self.done.clear()
                self.failed = False
                self.sio.emit(protocol.ANALYSE, {"game_id": self.game_id, "algorithm": "alphabeta"})
                self.tally.add(moves=1)
                self.started.set()
                if not self.done.wait(REPLY_TIMEOUT):
                    self.tally.add(timeouts=1)
                elif self.failed:
                    self.stop.wait(HOSTILE_PAUSE)
        except Exception as error:
            self.tally.error(f"client:{type(error).__name__}")
        finally:
            self.started.set()
            if self.sio.connected:
                self.sio.disconnect()
            self.sio.shutdown()


class PageFetcher:
    """GET / every ``FETCH_PERIOD`` seconds while the scenario runs; the latencies in a Tally."""

    def __init__(self, url: str, tally: Tally, stop: threading.Event) -> None:
        self.url, self.tally, self.stop = url, tally, stop

    def run(self) -> None:
        with requests.Session() as http:
            while not self.stop.is_set():
                started = time.perf_counter()
                try:
                    status = http.get(self.url + "/", timeout=REPLY_TIMEOUT).status_code
                    if status == 200:
                        self.tally.reply(time.perf_counter() - started)
                    else:
                        self.tally.error(f"http:{status}")
                except requests.RequestException as error:
                    self.tally.error(f"client:{type(error).__name__}")
                self.stop.wait(max(0.0, FETCH_PERIOD - (time.perf_counter() - started)))


def fetch_pages(url: str, count: int) -> int:
    """GET / ``count`` times in a row (the page's own cost, nothing else running); fetched."""
    fetched = 0
    with requests.Session() as http:
        for _ in range(count):
            with contextlib.suppress(requests.RequestException):
                fetched += http.get(url + "/", timeout=REPLY_TIMEOUT).status_code == 200
    return fetched


def start_threads(targets: list[Callable[[], None]]) -> list[threading.Thread]:
    threads = [threading.Thread(target=target, daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    return threads
