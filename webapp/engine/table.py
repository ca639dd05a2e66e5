"""The transposition table of the pure-Python search.

An entry remembers, for a position searched to a given remaining depth, the
value found, what kind of bound it is, and the best move. Keys include the
depth because a depth-limited value is only the minimax value *at that depth*:
reusing it at another depth would make alpha-beta disagree with minimax.

Best moves are also kept apart, keyed by the position alone (sunfish's
``tp_move`` beside its ``tp_score``): a move that was best at depth ``d`` is
the best guess at depth ``d + 1``, so the next iteration tries it first.
"""

from __future__ import annotations

from collections.abc import Hashable

from webapp.engine.game import Move

EXACT, LOWER, UPPER = 0, 1, 2
Entry = tuple[int, int, Move]  # (flag, value, best move)


class TranspositionTable:
    """A bounded dict from (position key, depth) to (flag, value, best move),
    and one from the position key to its latest best move.

    When full, a dict is cleared: simple, and a cleared table only costs time,
    never correctness.
    """

    def __init__(self, max_entries: int = 2_000_000) -> None:
        self.max_entries = max_entries
        self._entries: dict[tuple[Hashable, int], Entry] = {}
        self._moves: dict[Hashable, Move] = {}

    def get(self, key: Hashable, depth: int) -> Entry | None:
        return self._entries.get((key, depth))

    def put(self, key: Hashable, depth: int, flag: int, value: int, move: Move) -> None:
        if len(self._entries) >= self.max_entries:
            self._entries.clear()
        self._entries[(key, depth)] = (flag, value, move)
        if flag != UPPER:  # a fail-low's "best" move is only the least bad guess
            if len(self._moves) >= self.max_entries:
                self._moves.clear()
            self._moves[key] = move

    def best_move(self, key: Hashable) -> Move | None:
        """The move found best the last time ``key`` was searched, at any depth."""
        return self._moves.get(key)

    def __len__(self) -> int:
        return len(self._entries)
