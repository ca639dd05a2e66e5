"""The pure-Python engine's primitives: plain minimax and negamax alpha-beta.

The driver (``webapp.engine.driver``) decides what to search and when to
stop; this module only searches, on any ``Game``. It is the readable
reference the Connect Four kernel is tested against.

# Scores
All values are from the side to move, on the internal scale of
``webapp.engine.scores`` (exact wins beyond ``WIN_BASE``, heuristic values
inside it).

# The window contract
``negamax(depth, alpha, beta)`` is fail-soft. With ``s*`` the minimax value
of the position searched to ``depth`` plies (heuristic at the horizon):

* if ``alpha < r < beta`` then ``r == s*``;
* if ``r <= alpha`` then ``s* <= r``  (fail low: an upper bound);
* if ``r >= beta`` then ``s* >= r``   (fail high: a lower bound).

The transposition table stores ``r`` with the bound it is, keyed by the
position and the remaining depth, so a depth-limited alpha-beta returns exactly
what plain minimax returns at the same depth. Its best-move table, keyed by
the position alone, orders the next iteration.

# Forcing extensions
With ``extend``, a position at the horizon is not evaluated while the line is
forced: a side that can win at once scores that win; a side facing two
immediate threats scores the loss; a side facing one plays the block and the
line is extended by that ply. Forced lines are single lines, so the
extension costs a few nodes, and both searches use the same leaf, so
minimax and alpha-beta still agree value for value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webapp.engine.driver import Budget, ExactSolver
from webapp.engine.game import Game, Move, format_moves
from webapp.engine.results import Stop
from webapp.engine.scores import INFINITY, to_internal
from webapp.engine.table import EXACT, LOWER, UPPER, TranspositionTable

#: Nodes between two looks at the budget (the clock and the cancel flag).
CHECK_EVERY = 1024


class PythonEngine:
    """The driver's primitives over a ``Game`` (which it plays and takes back)."""

    solver: ExactSolver | None = None  # alpha-beta deepens until its score is exact

    def __init__(
        self, game: Game, budget: Budget, table: TranspositionTable | None, extend: bool = False
    ) -> None:
        self.game, self.budget, self.extend = game, budget, extend
        self.table = table if table is not None else TranspositionTable()
        self.nodes = 0
        self.empties = game.cells - game.moves_played
        self.extra: dict[str, Any] = {}
        self._lines: dict[Move, list[Move]] = {}  # minimax's lines, found with its values

    def legal_moves(self) -> list[Move]:
        return self.game.legal_moves()

    def format_moves(self, moves: Sequence[Move]) -> str:
        return format_moves(self.game, moves)

    def root_values(
        self, depth: int, algorithm: str, all_scores: bool, first: Move | None
    ) -> dict[Move, int]:
        game = self.game
        self._count()
        minimax = algorithm == "minimax"
        moves = game.legal_moves() if minimax else game.ordered_moves()
        first = first if first is not None else self.table.best_move(game.key())
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        values: dict[Move, int] = {}
        self._lines = {}
        best = -INFINITY
        for move in moves:
            game.play(move)
            try:
                if minimax:
                    value, line = self.minimax(depth - 1)
                    value, self._lines[move] = -value, line
                elif all_scores:
                    value = -self.negamax(depth - 1, -INFINITY, INFINITY)
                else:  # a window just below the best so far tells ties from worse moves
                    value = -self.negamax(depth - 1, -INFINITY, -(best - 1))
            finally:
                game.undo()
            values[move] = value
            best = max(best, value)
        return values

    def principal_variation(self, first: Move, value: int, depth: int) -> list[Move]:
        """Minimax's own line; for alpha-beta, a walk that re-searches each step.

        Each step searches the candidate children with a window around the
        expected value, so the line is true by construction, not read from a
        table entry that may have been overwritten.
        """
        if first in self._lines:
            return self._lines[first]
        game = self.game
        game.play(first)
        played, line = 1, []
        try:
            while depth > 0 and not game.is_terminal():
                for move in game.ordered_moves():
                    game.play(move)
                    played += 1
                    child = self.negamax(depth - 1, -value - 1, -value + 1)
                    if child == -value:
                        break
                    game.undo()
                    played -= 1
                else:  # cannot happen when value is the true value at this depth
                    raise AssertionError(f"no move keeps value {value} in {game!r}")
                line.append(move)
                value, depth = -value, depth - 1
        except Stop:
            pass  # the line found so far is true; the driver sees the budget's reason
        finally:
            for _ in range(played):
                game.undo()
        return line

    # -- the two searches ---------------------------------------------------------
    def _count(self) -> None:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self.budget.check(self.nodes)

    def leaf(self) -> int:
        """The value at the horizon: the evaluation, past any forced line (``extend``)."""
        game = self.game
        if game.is_terminal():
            return to_internal(game.terminal_score())
        if not self.extend:
            return game.evaluate()
        wins, blocks = game.threats()
        if not wins and len(blocks) != 1:
            if not blocks:
                return game.evaluate()
            game.play(blocks[0])  # two threats: whichever is blocked, the other wins
            game.play(blocks[1])
            value = to_internal(game.terminal_score())
            game.undo()
            game.undo()
            return value
        self._count()
        game.play(wins[0] if wins else blocks[0])
        try:
            return -self.leaf()
        finally:
            game.undo()

    def minimax(self, depth: int) -> tuple[int, list[Move]]:
        """Plain negamax: full width, no pruning, no table. Returns (value, line)."""
        self._count()
        game = self.game
        if game.is_terminal():
            return to_internal(game.terminal_score()), []
        if depth == 0:
            return self.leaf(), []
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
        self._count()
        game = self.game
        if game.is_terminal():
            return to_internal(game.terminal_score())
        if depth == 0:
            return self.leaf()
        key = game.key()
        entry = self.table.get(key, depth)
        table_move = self.table.best_move(key)
        if entry is not None:
            flag, value, table_move = entry
            if (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                return value
        moves = game.ordered_moves()
        if table_move is not None and moves[0] != table_move and table_move in moves:
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
