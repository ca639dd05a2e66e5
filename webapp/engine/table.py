"""The transposition table of the pure-Python search.

An entry remembers, for a position searched to a given remaining depth, the
value found, what kind of bound it is, and the best move. Keys include the
depth because a depth-limited value is only the minimax value *at that depth*:
reusing it at another depth would make alpha-beta disagree with minimax.
"""

from __future__ import annotations

from collections.abc import Hashable

from webapp.engine.game import Move

EXACT, LOWER, UPPER = 0, 1, 2
Entry = tuple[int, int, Move]  # (flag, value, best move)


class TranspositionTable:
    """A bounded dict from (position key, depth) to (flag, value, best move).

    When full, it is cleared: simple, and a cleared table only costs time,
    never correctness.
    """

    def __init__(self, max_entries: int = 2_000_000) -> None:
        self.max_entries = max_entries
        self._entries: dict[tuple[Hashable, int], Entry] = {}

    def get(self, key: Hashable, depth: int) -> Entry | None:
        return self._entries.get((key, depth))

    def put(self, key: Hashable, depth: int, flag: int, value: int, move: Move) -> None:
        if len(self._entries) >= self.max_entries:
            self._entries.clear()
        self._entries[(key, depth)] = (flag, value, move)

    def __len__(self) -> int:
        return len(self._entries)
