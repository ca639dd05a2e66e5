"""What both games share: a move history on a board of ``cells`` cells.

A subclass sets ``name``, ``cells`` and ``move_names``, keeps its stones in its
own slots, appends each move to ``_history`` and implements ``last_move_won``;
the bookkeeping below follows from those. Moves are 0-based integers written
1-based (``"4"`` is move 3) in both games.
"""

from __future__ import annotations

from webapp.engine.game import Move
from webapp.engine.scores import win_score


class Board:
    """Move history, turn, end of game and score of a two-player board game."""

    name = ""
    cells = 0
    move_names = "move"

    __slots__ = ("_history",)

    def __init__(self) -> None:
        self._history: list[Move] = []

    @property
    def moves_played(self) -> int:
        return len(self._history)

    @property
    def history(self) -> list[Move]:
        return list(self._history)

    @property
    def to_move(self) -> int:
        """0 when the first player is to move, 1 when the second is."""
        return len(self._history) & 1

    def last_move_won(self) -> bool:
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return len(self._history) == self.cells or self.last_move_won()

    def terminal_score(self) -> int:
        """The finished game's exact score for the side to move (who lost, or drew)."""
        if self.last_move_won():
            return -win_score(self.cells, (len(self._history) + 1) // 2)
        return 0

    def winner(self) -> int | None:
        """0 (first player) or 1 (second) if the last move made a line, else None."""
        return 1 - self.to_move if self.last_move_won() else None

    def format_move(self, move: Move) -> str:
        return str(move + 1)

    def __repr__(self) -> str:
        moves = "".join(self.format_move(m) for m in self._history)
        return f"{type(self).__name__}({moves!r})"
