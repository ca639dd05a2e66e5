"""Game-tree search: plain minimax and negamax alpha-beta.

# Scores
All scores are from the side to move, on the internal scale of
``webapp.engine.scores`` (exact wins beyond ``WIN_BASE``, heuristic values
inside it). A result gives them on the public scale.

# The window contract
``_Search.negamax(depth, alpha, beta)`` is fail-soft. With ``s*`` the minimax
value of the position searched to ``depth`` plies (heuristic at the horizon):

* if ``alpha < r < beta`` then ``r == s*``;
* if ``r <= alpha`` then ``s* <= r``  (fail low: an upper bound);
* if ``r >= beta`` then ``s* >= r``   (fail high: a lower bound).

The transposition table stores ``r`` with the bound it is, keyed by the
position and the remaining depth, so a depth-limited alpha-beta returns exactly
what plain minimax returns at the same depth.

# Exactness
A value is exact (a game-theoretic score) when the search reached the end of
every line (depth >= empty cells) or when it is decisive: a win or loss found
inside the horizon is exact at any depth, because every line the losing side
could choose was searched to its end. A decisive value found at depth ``d``
is also the fastest win / slowest loss, since any faster one lies inside ``d``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from webapp.engine.game import Game, Move, format_moves
from webapp.engine.scores import INFINITY, is_decisive, to_internal, to_public
from webapp.engine.table import EXACT, LOWER, UPPER, TranspositionTable

ALGORITHMS = ("minimax", "alphabeta")
#: Nodes between two looks at the clock and the cancel flag.
CHECK_EVERY = 1024


class CancelFlag(Protocol):
    """Anything with ``is_set()``: threading.Event, multiprocessing.Event."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class MoveScore:
    """The value of one root move, from the side to move at the root."""

    score: int | float
    exact: bool


@dataclass(frozen=True)
class Progress:
    """One completed depth of an iterative search (sent to the progress callback)."""

    depth: int
    best_move: str
    score: int | float
    exact: bool
    pv: str
    nodes: int
    elapsed_ms: float


@dataclass(frozen=True)
class SearchResult:
    """What a search found. Moves are in the game's notation (``"4"``, ``"4453"``).

    ``depth`` is the last depth completed; ``nodes`` counts every position the
    search visited (all iterations, and the principal-variation walk);
    ``move_scores`` maps each legal root move to its value when asked for.
    """

    best_move: str | None
    score: int | float
    exact: bool
    pv: str
    nodes: int
    depth: int
    time_ms: float
    algorithm: str
    move_scores: dict[str, MoveScore] | None = None
    stopped: str | None = None  # "time", "nodes" or "cancelled" if cut short
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the protocol's ``engine_move`` payload)."""
        data = asdict(self)
        data["time_ms"] = round(self.time_ms, 3)
        if self.move_scores is not None:
            data["move_scores"] = {m: asdict(s) for m, s in self.move_scores.items()}
        return data


@dataclass(frozen=True)
class Limits:
    """How far a search may go. ``None`` means no limit of that kind."""

    depth: int | None = None
    time: float | None = None  # seconds
    nodes: int | None = None


class _Stop(Exception):
    """Raised inside the recursion when a limit or the cancel flag is hit."""


ProgressCallback = Callable[[Progress], None]


def search(
    game: Game,
    algorithm: str = "alphabeta",
    limits: Limits | None = None,
    *,
    move_scores: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelFlag | None = None,
    seed: int | None = None,
    native: bool = True,
    table: TranspositionTable | None = None,
) -> SearchResult:
    """Search ``game`` (left unchanged) and return the best move found.

    ``minimax`` searches full width to the depth limit (or the end) in one
    pass, with iterative deepening only under a time limit. ``alphabeta``
    always deepens iteratively, and stops once its score (and, with
    ``move_scores``, every root move's score) is exact. With no depth limit,
    both search to the end of the game. Ties between equally good root moves
    are broken at random (``seed`` makes it repeatable).

    A game may offer a faster implementation as ``game.native_search`` with
    this same signature; it is used unless ``native`` is False.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r} (known: {', '.join(ALGORITHMS)})")
    limits = limits or Limits()
    if limits.depth is not None and limits.depth < 1:
        raise ValueError("depth must be at least 1")
    native_search = getattr(game, "native_search", None) if native else None
    if native_search is not None:
        result: SearchResult = native_search(
            algorithm,
            limits,
            move_scores=move_scores,
            progress=progress,
            cancel=cancel,
            seed=seed,
        )
        return result
    runner = _Search(game.copy(), algorithm, limits, cancel, seed, table)
    return runner.run(move_scores, progress)


class _Search:
    def __init__(
        self,
        game: Game,
        algorithm: str,
        limits: Limits,
        cancel: CancelFlag | None,
        seed: int | None,
        table: TranspositionTable | None,
    ) -> None:
        self.game = game
        self.algorithm = algorithm
        self.limits = limits
        self.cancel = cancel
        self.rng = random.Random(seed)
        self.table = table if table is not None else TranspositionTable()
        self.nodes = 0
        self.start = time.perf_counter()
        self.deadline = None if limits.time is None else self.start + limits.time
        self.node_limit = limits.nodes
        self.stopped: str | None = None
        # Limits are enforced while armed; the fallback search of depth 1, run
        # when nothing was complete, is disarmed (it takes a handful of nodes).
        self.armed = True

    # -- limits ----------------------------------------------------------------
    def _check(self) -> None:
        if not self.armed:
            return
        if self.node_limit is not None and self.nodes >= self.node_limit:
            self.stopped = "nodes"
        elif self.cancel is not None and self.cancel.is_set():
            self.stopped = "cancelled"
        elif self.deadline is not None and time.perf_counter() >= self.deadline:
            self.stopped = "time"
        else:
            return
        raise _Stop

    def _elapsed_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000.0

    # -- driver ----------------------------------------------------------------
    def run(self, move_scores: bool, progress: ProgressCallback | None) -> SearchResult:
        game = self.game
        if game.is_terminal():
            score = game.terminal_score()
            return SearchResult(None, score, True, "", 1, 0, self._elapsed_ms(), self.algorithm)
        empties = game.cells - game.moves_played
        target = empties if self.limits.depth is None else min(self.limits.depth, empties)
        iterative = self.algorithm == "alphabeta" or self.limits.time is not None
        depths = range(1, target + 1) if iterative else range(target, target + 1)
        best: SearchResult | None = None
        for depth in depths:
            try:
                result = self._root(depth, empties, move_scores or self.algorithm == "minimax")
            except _Stop:
                break
            best = result
            if progress is not None:
                progress(
                    Progress(
                        depth,
                        result.best_move or "",
                        result.score,
                        result.exact,
                        result.pv,
                        self.nodes,
                        self._elapsed_ms(),
                    )
                )
            everything_exact = result.exact and (
                not move_scores or all(s.exact for s in (result.move_scores or {}).values())
            )
            if everything_exact and self.algorithm == "alphabeta":
                break
            try:
                self._check()
            except _Stop:
                break
        if best is None:  # interrupted before any depth completed: depth 1 is instant
            self.armed = False
            best = self._root(1, empties, move_scores)
        return SearchResult(
            best.best_move,
            best.score,
            best.exact,
            best.pv,
            self.nodes,
            best.depth,
            self._elapsed_ms(),
            self.algorithm,
            best.move_scores if move_scores else None,
            self.stopped,
        )

    def _root(self, depth: int, empties: int, all_scores: bool) -> SearchResult:
        """Search every root move to ``depth``; exact values for all if ``all_scores``."""
        game = self.game
        self.nodes += 1
        moves = game.ordered_moves() if self.algorithm == "alphabeta" else game.legal_moves()
        entry = self.table.get(game.key(), depth)
        if entry is not None and entry[2] in moves:
            moves.remove(entry[2])
            moves.insert(0, entry[2])
        values: dict[Move, int] = {}
        lines: dict[Move, list[Move]] = {}
        best = -INFINITY
        for move in moves:
            game.play(move)
            try:
                if self.algorithm == "minimax":
                    value, line = self.minimax(depth - 1)
                    value = -value
                    lines[move] = line
                elif all_scores:
                    value = -self.negamax(depth - 1, -INFINITY, INFINITY)
                else:  # a window just below the best so far tells ties from worse moves
                    value = -self.negamax(depth - 1, -INFINITY, -(best - 1))
            finally:
                game.undo()
            values[move] = value
            best = max(best, value)
        ties = [m for m in moves if values[m] == best]
        choice = self.rng.choice(ties)
        if self.algorithm == "alphabeta":
            self.table.put(game.key(), depth, EXACT, best, choice)
            pv = [choice, *self._walk_pv(choice, -best, depth - 1)]
        else:
            pv = [choice, *lines[choice]]
        exhaustive = depth >= empties
        exact = exhaustive or is_decisive(best)
        scores = None
        if all_scores:
            scores = {
                game.format_move(m): MoveScore(
                    to_public(v, exhaustive or is_decisive(v)), exhaustive or is_decisive(v)
                )
                for m, v in sorted(values.items())
            }
        return SearchResult(
            game.format_move(choice),
            to_public(best, exact),
            exact,
            format_moves(game, pv),
            self.nodes,
            depth,
            self._elapsed_ms(),
            self.algorithm,
            scores,
        )

    def _walk_pv(self, first: Move, value: int, depth: int) -> list[Move]:
        """The line after ``first`` along which every move keeps ``value``.

        ``value`` is the score of the position after ``first`` (from its side to
        move). Each step searches the candidate children with a window around
        the expected value, so the line is true by construction, not read from
        a table entry that may have been overwritten.
        """
        game = self.game
        played = [first]
        game.play(first)
        line: list[Move] = []
        try:
            while depth > 0 and not game.is_terminal():
                for move in game.ordered_moves():
                    game.play(move)
                    child = self.negamax(depth - 1, -value - 1, -value + 1)
                    if child == -value:
                        break
                    game.undo()
                else:  # cannot happen when value is the true value at this depth
                    raise AssertionError(f"no move keeps value {value} in {game!r}")
                played.append(move)
                line.append(move)
                value, depth = -value, depth - 1
        finally:
            for _ in played:
                game.undo()
        return line

    # -- the two searches ---------------------------------------------------------
    def minimax(self, depth: int) -> tuple[int, list[Move]]:
        """Plain negamax: full width, no pruning, no table. Returns (value, line)."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check()
        game = self.game
        if game.is_terminal():
            return to_internal(game.terminal_score()), []
        if depth == 0:
            return game.evaluate(), []
        best, best_line = -INFINITY, []
        for move in game.legal_moves():
            game.play(move)
            try:
                value, line = self.minimax(depth - 1)
            finally:
                game.undo()
            if -value > best:
                best, best_line = -value, [move, *line]
        return best, best_line

    def negamax(self, depth: int, alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta with a transposition table (see the module docstring)."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check()
        game = self.game
        if game.is_terminal():
            return to_internal(game.terminal_score())
        if depth == 0:
            return game.evaluate()
        key = game.key()
        entry = self.table.get(key, depth)
        table_move = None
        if entry is not None:
            flag, value, table_move = entry
            if (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                return value
        moves = game.ordered_moves()
        if table_move is not None and moves[0] != table_move:
            moves.remove(table_move)
            moves.insert(0, table_move)
        best, best_move, low = -INFINITY, moves[0], alpha
        for move in moves:
            game.play(move)
            try:
                value = -self.negamax(depth - 1, -beta, -low)
            finally:
                game.undo()
            if value > best:
                best, best_move = value, move
                if value > low:
                    low = value
                    if low >= beta:
                        break
        flag = UPPER if best <= alpha else LOWER if best >= beta else EXACT
        self.table.put(key, depth, flag, best, best_move)
        return best
