"""The line the engine expects after an exactly solved move: shown after the move, not before.

The engine's exact solve (Perfect) chooses its move in milliseconds, but proving the
line it expects to the end of the game is a null-window solve at every ply: about nine
tenths of such a reply's search, and a hundred times the solve in the opening
(docs/operations.md, "A Perfect reply's search is mostly its line"). So the reply's
search walks no line (``engine_job``: ``Limits.line`` off), its move goes out with
itself alone as its line, and the line follows here as display work: a search of the
position after the move, at the priority of the analyses (after the player's scores and
the pondering; preempted by engine moves, refused when too many wait), whose line is
the rest of the engine's. Any line the solver walks is a true one: every move of it is
proved to keep the position's exact score, and the engine's move keeps the score of the
position it was played in.

It is kept with the move (``last_engine_move.pv``) and the room hears it with the
game's state, while the move is still the game's last one and no search is under way
(a save bumps the version an engine search is tied to); a line that comes too late is
dropped, and the move keeps its one-move line: short, never wrong. As
``LiveScores._store_options`` does for the engine's options.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from webapp import protocol
from webapp.game_settings import analysis_limits
from webapp.search_pool import Pool, PoolBusy, Priority, SearchJob
from webapp.search_pool.dispatch import dispatcher_of
from webapp.services.locks import Emit, GameLocks, Outbox
from webapp.store import GameRecord, GameStore, StoreError

log = logging.getLogger(__name__)

#: The kind of a line's search (its tag's first item): the dispatcher routes by it.
LINE = "line"
#: A line's search stops here (about a second and a half), as the exact pass over the
#: engine's options does: display work that no one waits for never holds a worker long.
#: The line is then cut short where its walk stopped (every move of it still proved).
LINE_NODES = 15_000_000


def wants_line(job: SearchJob, result: dict[str, Any], record: GameRecord) -> bool:
    """Whether the engine's move (``result`` of ``job``, applied: ``record``) needs its
    line searched: an exact solve that walked none, in a game that goes on."""
    move = str(result.get("best_move") or "")
    return (
        not job.limits.line
        and bool(result.get("exact"))
        and bool(move)
        and result.get("pv") == move
        and record.status == "playing"
    )


class EngineLines:
    """The searches of the engine's expected lines, one per game at most."""

    def __init__(
        self,
        store: GameStore,
        pool: Pool,
        emit: Emit,
        locks: GameLocks,
        seed: int | None,
        thinking: Callable[[str], bool],
        state: Callable[[GameRecord], dict[str, Any]],
    ) -> None:
        """``thinking(game_id)``: an engine search is under way in the game;
        ``state(record)``: the game's state as its room gets it."""
        self.store, self.pool, self.emit, self.locks, self.seed = store, pool, emit, locks, seed
        self.thinking, self.state = thinking, state
        self._guard = threading.Lock()
        self._jobs: dict[str, SearchJob] = {}  # game id -> its line's search under way
        self._closing = False
        dispatcher_of(pool).register(LINE, self._on_result, serial=True)

    def start(self, record: GameRecord) -> None:
        """Search the line after the engine's move, the last of ``record`` (the game's lock
        is held): the search of an older one, if any, is moot."""
        job = SearchJob(
            record.game,
            record.moves,
            "alphabeta",
            # Exact, with its whole line: not cut short past the opening book.
            replace(analysis_limits(record.game), nodes=LINE_NODES, whole_line=True),
            seed=self.seed,
            tag=(LINE, record.id, None),
            move_scores=False,
            priority=Priority.ANALYSIS,  # after the player's scores and the pondering
            progress=False,
            owner="",  # display work: counted against no one's bounds
            game_id="",
        )
        self.stop(record.id)
        with self._guard:
            if self._closing:
                return
            self._jobs[record.id] = job
        try:
            self.pool.submit(job)
        except PoolBusy:  # display work: skipped under load (the move keeps its short line)
            with self._guard:
                if self._jobs.get(record.id) is job:
                    del self._jobs[record.id]

    def moved(self, record: GameRecord) -> None:
        """The game's position is ``record.moves`` now (the game's lock is held): a line
        searched after another position can no longer be kept."""
        with self._guard:
            job = self._jobs.get(record.id)
            if job is None or job.moves == record.moves:
                return
            del self._jobs[record.id]
        self.pool.cancel(job.id)

    def stop(self, game_id: str) -> None:
        """Cancel the game's line search, if any."""
        with self._guard:
            job = self._jobs.pop(game_id, None)
        if job is not None:
            self.pool.cancel(job.id)

    def close(self) -> None:
        with self._guard:
            self._closing = True

    def sizes(self) -> int:
        """Games with a line's search under way (the tests watch it for leaks)."""
        with self._guard:
            return len(self._jobs)

    # -- its result (off the relay thread, in turn with the game's news) ------------------
    def _on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        game_id = job.tag[1]
        with self._guard:
            if self._jobs.get(game_id) is not job:
                return  # cancelled or replaced: moot
            del self._jobs[game_id]
            if self._closing:
                return
        if result is None:
            if not job.dropped and not job.cancelled:
                log.warning("the engine's line in %s not searched: %s", game_id, error)
            return
        if not result.get("exact"):
            return  # stopped before the solve: a horizon's line, not one proved to the end
        out = Outbox()
        try:
            with self.locks.hold(game_id):
                self._keep(game_id, job.moves, str(result.get("pv") or ""), out)
        finally:
            out.flush(self.emit)

    def _keep(self, game_id: str, moves: str, rest: str, out: Outbox) -> None:
        """Keep ``rest`` as the line after the engine's last move (the position ``moves``)
        if that move is still the game's last and nothing searches (game's lock held)."""
        try:
            record = self.store.get(game_id)
            last = None if record is None else record.last_engine_move
            if record is None or last is None or not rest or record.moves != moves:
                return  # the game went on (or back): the line is another position's
            move = str(last.get("move") or "")
            if str(last.get("moves", "")) + move != moves or last.get("pv") != move:
                return  # another move's, or its line is known already
            if self.thinking(game_id):
                return  # never bump the version an engine search is tied to
            # ``line_after``: the page says the move's figures leave the line's search out.
            record.last_engine_move = {**last, "pv": move + rest, "line_after": True}
            self.store.save(record)
            out.send(protocol.STATE, self.state(record), game_id)
        except StoreError as err:
            log.warning("the engine's line in %s not stored: %s", game_id, err)
