"""Tic-tac-toe on a 3x3 board.

Cells are numbered 1-9 row by row from the top left; inside the engine a move
is the 0-based cell index::

    1 2 3        0 1 2
    4 5 6   ->   3 4 5
    7 8 9        6 7 8

Each player's stones are a 9-bit integer (bit ``i`` = cell ``i``). X moves first.
"""

from __future__ import annotations

from webapp.engine.game import IllegalMoveError, Move
from webapp.games.board import Board

CELLS = 9
LINES = (
    0b000000111, 0b000111000, 0b111000000,  # rows
    0b001001001, 0b010010010, 0b100100100,  # columns
    0b100010001, 0b001010100,  # diagonals
)  # fmt: skip
#: Centre, then corners, then edges: the classic preference, for move ordering.
PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)
FULL = (1 << CELLS) - 1
#: How many lines pass through each cell (centre 4, corners 3, edges 2).
LINES_THROUGH = tuple(sum(1 for line in LINES if line >> cell & 1) for cell in range(CELLS))


def _has_line(stones: int) -> bool:
    return any(stones & line == line for line in LINES)


class TicTacToe(Board):
    """A tic-tac-toe position with its move history."""

    name = "tictactoe"
    cells = CELLS
    #: The whole tree (549,946 nodes from the empty board, a few seconds).
    minimax_max_depth = CELLS
    move_names = "cell"

    __slots__ = ("_stones",)

    def __init__(self) -> None:
        super().__init__()
        self._stones = [0, 0]  # X, O

    # -- state ---------------------------------------------------------------
    def _occupied(self) -> int:
        return self._stones[0] | self._stones[1]

    def last_move_won(self) -> bool:
        return bool(self._history) and _has_line(self._stones[1 - self.to_move])

    # -- moves ---------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self.is_terminal():
            return []
        occupied = self._occupied()
        return [c for c in range(CELLS) if not occupied >> c & 1]

    def ordered_moves(self) -> list[Move]:
        if self.is_terminal():
            return []
        occupied = self._occupied()
        mine, theirs = self._stones[self.to_move], self._stones[1 - self.to_move]
        free = [c for c in PREFERENCE if not occupied >> c & 1]
        wins = [c for c in free if _has_line(mine | 1 << c)]
        blocks = [c for c in free if c not in wins and _has_line(theirs | 1 << c)]
        rest = [c for c in free if c not in wins and c not in blocks]
        return wins + blocks + rest

    def play(self, move: Move) -> None:
        if not isinstance(move, int) or not 0 <= move < CELLS:
            raise IllegalMoveError(f"move {move!r} is not a cell (1-9)")
        if self.is_terminal():
            raise IllegalMoveError(f"move '{move + 1}': the game is over")
        if self._occupied() >> move & 1:
            raise IllegalMoveError(f"move '{move + 1}': cell {move + 1} is taken")
        self._stones[self.to_move] |= 1 << move
        self._history.append(move)

    def undo(self) -> Move:
        if not self._history:
            raise IllegalMoveError("no move to take back")
        move = self._history.pop()
        self._stones[self.to_move] &= ~(1 << move)
        return move

    # -- search support --------------------------------------------------------
    def evaluate(self) -> int:
        """Open lines weighted by stones in them, from the side to move.

        A line only one side occupies is worth 1, 10 or 100 to it for 0, 1 or 2
        stones; the sum stays far inside the heuristic limit.
        """
        mine, theirs = self._stones[self.to_move], self._stones[1 - self.to_move]
        score = 0
        for line in LINES:
            a, b = mine & line, theirs & line
            if not b:
                score += (1, 10, 100, 100)[a.bit_count()]
            if not a:
                score -= (1, 10, 100, 100)[b.bit_count()]
        return score

    def threats(self) -> tuple[list[Move], list[Move]]:
        """The cells where the side to move wins now, and where the opponent would."""
        occupied = self._occupied()
        mine, theirs = self._stones[self.to_move], self._stones[1 - self.to_move]
        free = [c for c in range(CELLS) if not occupied >> c & 1]
        return (
            [c for c in free if _has_line(mine | 1 << c)],
            [c for c in free if _has_line(theirs | 1 << c)],
        )

    def key(self) -> int:
        return self._stones[0] | self._stones[1] << CELLS

    def copy(self) -> TicTacToe:
        other = TicTacToe.__new__(TicTacToe)
        other._stones = list(self._stones)
        other._history = list(self._history)
        return other

    # -- notation ------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        if len(text) != 1 or text not in "123456789":
            raise IllegalMoveError(f"move {text!r} is not a cell (1-9)")
        return int(text) - 1

    def cell_owner(self, cell: Move) -> int | None:
        """0 (X), 1 (O) or None for an empty cell."""
        for player in (0, 1):
            if self._stones[player] >> cell & 1:
                return player
        return None
