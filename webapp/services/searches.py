"""The engine's side of the service: start searches, relay their progress, apply their moves.

At most one engine search per game is current; its job id is remembered
here. Anything that makes it moot (undo, a settings change, a new game)
cancels it, and a result that is not the current job's, or that was searched
from other moves than the game now has, is dropped. Analyses ("analyse this
position") belong to the client that asked, one at a time.

Callbacks run on the pool's relay thread and take the service's lock, so a
result and a player's action never interleave. A move is committed to the
store before it is broadcast.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from webapp import protocol
from webapp.games import new_game
from webapp.services.errors import GameError
from webapp.services.state import engine_to_move, game_state, result_of
from webapp.settings import search_limits
from webapp.store import GameRecord, GameStore, now
from webapp.workers import PoolBusy, SearchJob, SearchPool

log = logging.getLogger(__name__)

#: emit(event, payload, to): send to a room (a game id) or one client (its sid).
Emit = Callable[[str, dict[str, Any], str], None]

ENGINE, ANALYSIS = "engine", "analysis"


class Searches:
    """Engine moves and analyses for every game, run in ``pool``."""

    def __init__(
        self,
        store: GameStore,
        pool: SearchPool,
        emit: Emit,
        lock: threading.RLock,
        seed: int | None = None,
    ) -> None:
        self.store, self.pool, self.emit, self.lock, self.seed = store, pool, emit, lock, seed
        self._engine: dict[str, int] = {}  # game id -> its current engine job
        self._analyses: dict[str, int] = {}  # client sid -> its analysis job
        pool.on_progress, pool.on_result, pool.on_queued = (
            self._on_progress,
            self._on_result,
            self._on_queued,
        )

    # -- questions ----------------------------------------------------------------
    def thinking(self, game_id: str) -> bool:
        return game_id in self._engine

    def queued(self, game_id: str) -> dict[str, Any] | None:
        """The ``queued`` payload of the game's engine search if it waits for a worker."""
        with self.lock:
            job_id = self._engine.get(game_id)
        place = None if job_id is None else self.pool.position(job_id)
        return None if place is None else {"game_id": game_id, "position": place, "kind": ENGINE}

    def has_room(self) -> bool:
        return self.pool.has_room()

    def publish(self, record: GameRecord) -> None:
        """Send the game's state to everyone in its room (the caller holds the lock)."""
        self.emit(protocol.STATE, game_state(record, self.thinking(record.id)), record.id)

    # -- the engine's moves ---------------------------------------------------------
    def start_engine(self, record: GameRecord) -> bool:
        """Start the engine's search if it is to move and not searching yet; True if started.

        Raises PoolBusy when the queue is full.
        """
        if not engine_to_move(record) or record.id in self._engine:
            return False
        job = SearchJob(
            record.game,
            record.moves,
            record.settings["algorithm"],
            search_limits(record.settings, record.game),
            seed=self.seed,
            tag=(ENGINE, record.id, None),
        )
        # The caller holds the lock, so no callback can see the job before this is set.
        self._engine[record.id] = self.pool.submit(job)
        return True

    def try_start_engine(self, record: GameRecord) -> bool:
        """``start_engine``, leaving the game waiting (not failing) when the queue is full."""
        try:
            return self.start_engine(record)
        except PoolBusy:
            log.warning("search queue full: the engine's move in %s waits", record.id)
            return False

    def stop_engine(self, game_id: str) -> None:
        """Cancel the game's engine search, if any."""
        job_id = self._engine.pop(game_id, None)
        if job_id is not None:
            self.pool.cancel(job_id)

    # -- analyses -------------------------------------------------------------------
    def analyse(self, record: GameRecord, algorithm: str, sid: str) -> None:
        """Search the game's position with ``algorithm`` for client ``sid`` only."""
        if record.status != "playing":
            raise GameError(protocol.GAME_OVER, "The game is over: there is nothing to analyse.")
        if sid in self._analyses:
            raise GameError(protocol.BUSY, "Your previous analysis is still running.")
        job = SearchJob(
            record.game,
            record.moves,
            algorithm,
            search_limits(record.settings, record.game, algorithm),
            seed=self.seed,
            tag=(ANALYSIS, record.id, sid),
        )
        try:
            self._analyses[sid] = self.pool.submit(job)
        except PoolBusy as busy:
            raise GameError(protocol.BUSY, f"The server is busy: {busy}. Try again soon.") from None

    def forget_client(self, sid: str) -> None:
        """A client left: cancel its analysis."""
        with self.lock:
            job_id = self._analyses.pop(sid, None)
        if job_id is not None:
            self.pool.cancel(job_id)

    # -- the pool's callbacks (relay thread) ---------------------------------------------
    def _on_queued(self, job: SearchJob, position: int) -> None:
        kind, game_id, sid = job.tag
        payload = {"game_id": game_id, "position": position, "kind": kind}
        self.emit(protocol.QUEUED, payload, game_id if kind == ENGINE else sid)

    def _on_progress(self, job: SearchJob, progress: dict[str, Any]) -> None:
        kind, game_id, _ = job.tag
        if kind != ENGINE:
            return
        with self.lock:
            if self._engine.get(game_id) != job.id:
                return
            payload = {"game_id": game_id, "moves": job.moves, "algorithm": job.algorithm}
            payload |= progress
            seconds = progress["elapsed_ms"] / 1000.0
            payload["nps"] = round(progress["nodes"] / seconds) if seconds > 0 else None
            self.emit(protocol.THINKING, payload, game_id)

    def _on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        kind, game_id, sid = job.tag
        with self.lock:
            if kind == ANALYSIS:
                if self._analyses.get(sid) == job.id:
                    del self._analyses[sid]
                    self._send_analysis(job, result, error)
            elif self._engine.get(game_id) == job.id:
                del self._engine[game_id]
                self._apply_engine_move(job, result, error)

    def _send_analysis(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        sid = job.tag[2]
        if result is None:
            failed = GameError(protocol.ENGINE_FAILED, f"The analysis failed: {error}")
            self.emit(protocol.ERROR, failed.payload(), sid)
            return
        self.emit(protocol.ANALYSIS, move_payload(job, result), sid)

    def _apply_engine_move(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        game_id = job.tag[1]
        record = self.store.get(game_id)
        if record is None or record.moves != job.moves or not engine_to_move(record):
            return  # the game moved on: this result is stale
        if result is None or not result.get("best_move"):
            log.error("engine search failed in %s: %s", game_id, error)
            self.publish(record)
            failed = GameError(protocol.ENGINE_FAILED, f"The engine could not move: {error}")
            self.emit(protocol.ERROR, failed.payload(), game_id)
            return
        position = new_game(record.game, record.moves)
        position.play(position.parse_move(result["best_move"]))
        payload = move_payload(job, result)
        record.moves += result["best_move"]
        record.status, record.winner = result_of(position)
        record.last_engine_move = payload
        record.updated_at = now()
        self.store.save(record)  # committed before anyone hears of it
        self.publish(record)
        self.emit(protocol.ENGINE_MOVE, payload, game_id)


def move_payload(job: SearchJob, result: dict[str, Any]) -> dict[str, Any]:
    """The ``engine_move`` / ``analysis`` payload: the result, its game and its position."""
    return {"game_id": job.tag[1], "moves": job.moves, "move": result["best_move"]} | result
