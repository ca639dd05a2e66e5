"""The load benchmark's players on one event loop (``LeanClient``): the crowd's own cost small.

A ``LeanPlayer`` plays as ``load_players.Player`` does (the same plan, tally, seed and
moves; a ``requests`` session for its cookies, its Socket.IO connection sending them),
but as a coroutine: a crowd of them is one thread and one event loop, not four threads
a player. ``play(...)`` runs a crowd to the end of its budgets or the deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from webapp import protocol
from webapp.bench.lean_socketio import LeanClient
from webapp.bench.load_players import (
    LOST,
    REPLY_TIMEOUT,
    GameRefused,
    PlayerPlan,
    Tally,
    account,
    browser_session,
    cookie_header,
)
from webapp.engine.game import Game
from webapp.games import new_game


class LoopBarrier:
    """``threading.Barrier`` for coroutines: ``parties`` meet, ``action`` runs once when the
    last arrives; one that waits past ``timeout`` breaks it and every waiter goes on."""

    def __init__(self, parties: int, action: Callable[[], None] | None = None) -> None:
        self.parties, self.action = parties, action
        self.arrived = 0
        self.open = asyncio.Event()

    async def wait(self, timeout: float) -> None:
        self.arrived += 1
        self._check()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.open.wait(), timeout)
        self.open.set()  # broken by a late party: nobody waits for it any more

    def abandon(self) -> None:
        """A party that will never come (it failed to start): the others go on without it."""
        self.parties -= 1
        if self.arrived:
            self._check()

    def _check(self) -> None:
        if self.arrived >= self.parties and not self.open.is_set():
            if self.action is not None:
                self.action()
            self.open.set()


class LeanPlayer:
    """One browser playing games against the engine until its move budget is spent."""

    def __init__(
        self,
        url: str,
        plan: PlayerPlan,
        tally: Tally,
        seed: int,
        stop: asyncio.Event,
        burst: LoopBarrier | None,
        settled: LoopBarrier | None,
    ) -> None:
        self.url, self.plan, self.tally, self.stop = url, plan, tally, stop
        self.burst, self.settled = burst, settled
        self.current = tally
        self.rng = random.Random(seed)
        self.http = browser_session()
        self.sio: LeanClient | None = None
        self.game_id = ""
        self.moves = ""
        self.position: Game = new_game(plan.game)
        self.waiting = ""
        self.answered: asyncio.Future[dict[str, Any] | str] | None = None
        self.received = 0.0

    # -- events (the loop's thread) -----------------------------------------------------
    def _answer(self, value: dict[str, Any] | str) -> None:
        if self.answered is not None and not self.answered.done():
            if isinstance(value, dict):
                self.received = time.perf_counter()
            self.answered.set_result(value)

    def _on_engine_move(self, payload: dict[str, Any]) -> None:
        if payload.get("game_id") == self.game_id and payload.get("moves") == self.waiting:
            self._answer(payload)

    def _on_state(self, payload: dict[str, Any]) -> None:
        mine = payload.get("id") == self.game_id and payload.get("moves") == self.waiting
        if mine and payload.get("status") != "playing":  # a game-ending move: no reply
            self._answer(payload)

    def _on_error(self, payload: dict[str, Any]) -> None:
        code = str(payload.get("code", "unknown"))
        self.current.error(code)
        self._answer(code)

    def _on_disconnect(self) -> None:
        self.current.add(disconnects=1)
        self._answer("disconnected")

    # -- playing ------------------------------------------------------------------------
    async def run(self) -> None:
        ahead = [b for b in (self.burst, self.settled) if b is not None]  # barriers to meet
        try:
            await self.new_game()
            if self.burst is not None and self.plan.burst_tally is not None:
                ahead.remove(self.burst)
                await self.burst.wait(REPLY_TIMEOUT * 2)
                await self.play_one(self.plan.burst_tally)
                self.current = self.tally
                if self.settled is not None:
                    ahead.remove(self.settled)
                    await self.settled.wait(REPLY_TIMEOUT * 2)
            played = 1 if self.burst is not None else 0
            while played < self.plan.moves and not self.stop.is_set():
                if self.sio is None or not self.sio.connected or self.position.is_terminal():
                    await self.new_game()
                low, high = self.plan.think
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), self.rng.uniform(low, high))
                if self.stop.is_set():
                    break
                await self.play_one(self.tally)
                played += 1
        except GameRefused:
            pass  # counted; this player stops (a rate limit, a full server)
        except Exception as error:  # a client failure is a figure, never a crash
            self.tally.error(f"client:{type(error).__name__}")
        finally:
            for barrier in ahead:  # a player that stopped before them: nobody waits for it
                barrier.abandon()
            await self.close()

    async def new_game(self) -> None:
        """The next game: once a game is over, asked over its connection and shown in
        place, the connection kept (the game page's "New game"); else made by POST
        /api/games (the home page's form) and opened like a new page (its cookies, a
        connection, a join)."""
        state = await self._next_game()
        if state is not None:
            self.game_id, self.moves = state["id"], state["moves"]
            self.position = new_game(self.plan.game, self.moves)
            return
        await self._disconnect()
        body: dict[str, Any] = {"game": self.plan.game, "settings": self.plan.settings}
        response = await asyncio.to_thread(
            self.http.post, f"{self.url}/api/games", json=body, timeout=REPLY_TIMEOUT
        )
        if response.status_code != 201:
            self.current.error(f"create:{response.status_code}")
            raise GameRefused(response.text[:200])
        state = response.json()
        sio = LeanClient()
        sio.on(protocol.ENGINE_MOVE, self._on_engine_move)
        sio.on(protocol.STATE, self._on_state)
        sio.on(protocol.ERROR, self._on_error)
        await sio.connect(self.url, cookie_header(self.http), timeout=REPLY_TIMEOUT)
        sio.disconnected = self._on_disconnect
        self.sio = sio
        self.game_id, self.moves = state["id"], state["moves"]
        await sio.call(protocol.JOIN, {"game_id": self.game_id}, timeout=REPLY_TIMEOUT)
        self.position = new_game(self.plan.game, self.moves)

    async def _next_game(self) -> dict[str, Any] | None:
        """The game page's "New game" over the finished game's connection: the new game's
        state; None when there is no such connection (a first game, a lost one)."""
        sio = self.sio
        if sio is None or not sio.connected or not self.position.is_terminal():
            return None
        asked = {"game_id": self.game_id, "switch": True}
        (answer,) = await sio.call(protocol.NEW_GAME, asked, REPLY_TIMEOUT)
        if not isinstance(answer, dict) or "state" not in answer:  # counted as its error event
            raise GameRefused(str(answer)[:200])
        return dict(answer["state"])  # the connection is in its room now

    async def play_one(self, tally: Tally) -> None:
        """Send a random legal move and wait for the engine's reply (or the game's end)."""
        assert self.sio is not None
        move = self.position.format_move(self.rng.choice(self.position.legal_moves()))
        after = self.moves + move
        ends = new_game(self.plan.game, after).is_terminal()
        self.waiting, self.current = after, tally
        self.answered = asyncio.get_running_loop().create_future()
        sent = time.perf_counter()
        await self.sio.emit(protocol.MOVE, {"game_id": self.game_id, "move": move})
        tally.add(moves=1)
        try:
            answer: dict[str, Any] | str | None = await asyncio.wait_for(
                self.answered, REPLY_TIMEOUT
            )
        except TimeoutError:
            answer = None
        reply = answer if isinstance(answer, dict) else None
        failure = answer if isinstance(answer, str) else None
        outcome = account(tally, reply, failure, ends, self.received - sent)
        if reply is not None:
            after += "" if ends else reply["move"]
            self.moves, self.position = after, new_game(self.plan.game, after)
        elif outcome == LOST:
            await self._disconnect()  # the game's state is unknown: the next move starts afresh

    async def _disconnect(self) -> None:
        sio, self.sio = self.sio, None
        if sio is not None:
            sio.disconnected = lambda: None  # leaving on purpose: no disconnect counted
            await sio.disconnect()

    async def close(self) -> None:
        await self._disconnect()
        self.http.close()


def play(urls: list[str], plan: PlayerPlan, tally: Tally, players: int, seed: int,
         deadline: float, settled_action: Callable[[], None] | None = None) -> None:  # fmt: skip
    """Play ``players`` players (player ``i`` on ``urls[i % len(urls)]``) on one event loop
    until their budgets are spent; no new move after ``deadline`` (``time.perf_counter``)
    or once ``plan.stop`` is set. With a burst (``plan.burst_tally``), every player's first
    move goes at one instant, and ``settled_action`` runs once they are all answered."""

    async def crowd() -> None:
        stop = asyncio.Event()
        burst = settled = None
        if plan.burst_tally is not None:
            burst = LoopBarrier(players)
            settled = LoopBarrier(players, settled_action)
        lean = [LeanPlayer(urls[i % len(urls)], plan, tally, seed * 1000 + i, stop, burst,
                           settled) for i in range(players)]  # fmt: skip
        loop = asyncio.get_running_loop()
        # Threads for the players' ``requests`` (creating games): enough for a burst's start.
        loop.set_default_executor(ThreadPoolExecutor(max_workers=min(32, max(4, players // 8))))
        tasks = [asyncio.create_task(p.run()) for p in lean]
        while not all(t.done() for t in tasks):
            if time.perf_counter() >= deadline or plan.stop.is_set():
                stop.set()
                break
            await asyncio.wait(tasks, timeout=0.1)
        await asyncio.wait(tasks, timeout=REPLY_TIMEOUT + 10)

    # On a thread of its own: a caller's thread may run an event loop already (a test after
    # Playwright's sync API), where ``asyncio.run`` refuses to start.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="crowd") as loop_thread:
        loop_thread.submit(asyncio.run, crowd()).result()
