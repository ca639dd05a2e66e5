"""Connect Four on the standard 7x6 board, as a bitboard.

Columns are numbered 1-7 from the left; inside the engine a move is the
0-based column. A position is two integers: ``mask`` has a bit for every
stone, ``current`` a bit for every stone of the side to move. Each column is
seven bits, six cells from the bottom up and a sentinel bit on top that stays
empty, so shifts never carry a line from one column into the next::

    .  .  .  .  .  .  .     <- sentinel row (always 0)
    5 12 19 26 33 40 47
    4 11 18 25 32 39 46
    3 10 17 24 31 38 45
    2  9 16 23 30 37 44
    1  8 15 22 29 36 43
    0  7 14 21 28 35 42     <- bottom row

``current + mask`` is a unique key of the position (the layout of Pascal Pons'
solver): adding ``mask`` sets the bit above each column's top stone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from webapp.engine.game import IllegalMoveError, Move
from webapp.engine.scores import HEURISTIC_LIMIT
from webapp.games import connect4_kernel
from webapp.games.board import Board
from webapp.games.connect4_layout import (
    BOARD,
    BOTTOM,
    CELLS,
    CENTRE_ORDER,
    COLUMN_WEIGHT,
    H1,
    HEIGHT,
    STONE_WEIGHT,
    THREAT_WEIGHT,
    WIDTH,
)


def column_mask(col: int) -> int:
    """Every cell of column ``col``."""
    return ((1 << HEIGHT) - 1) << (col * H1)


def top_mask(col: int) -> int:
    """The top cell of column ``col``."""
    return 1 << (HEIGHT - 1 + col * H1)


def bottom_mask(col: int) -> int:
    """The bottom cell of column ``col``."""
    return 1 << (col * H1)


COLUMN_MASKS = tuple(column_mask(c) for c in range(WIDTH))
TOP_MASKS = tuple(top_mask(c) for c in range(WIDTH))
BOTTOM_MASKS = tuple(bottom_mask(c) for c in range(WIDTH))


def has_line(stones: int) -> bool:
    """True when ``stones`` contains four in a row in any direction."""
    for shift in (1, H1, H1 - 1, H1 + 1):  # vertical, horizontal, two diagonals
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def winning_cells(stones: int, mask: int) -> int:
    """Empty cells (possibly unreachable yet) that would complete a line of ``stones``."""
    # vertical: three stones straight below
    r = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (H1, H1 - 1, H1 + 1):  # horizontal and both diagonals
        p = (stones << shift) & (stones << 2 * shift)
        r |= p & (stones << 3 * shift)
        r |= p & (stones >> shift)
        p = (stones >> shift) & (stones >> 2 * shift)
        r |= p & (stones << shift)
        r |= p & (stones >> 3 * shift)
    return r & (BOARD ^ mask)


def popcount(x: int) -> int:
    return x.bit_count()


class Connect4(Board):
    """A Connect Four position with its move history."""

    name = "connect4"
    cells = CELLS
    #: 960,793 nodes at depth 7 from the empty board: ~15 ms in the kernel,
    #: ~6 s in pure Python; depth 8 is 7 times more.
    minimax_max_depth = 7
    move_names = "column"

    __slots__ = ("_stack", "current", "mask")

    def __init__(self) -> None:
        super().__init__()
        self.current = 0  # stones of the side to move
        self.mask = 0  # all stones
        self._stack: list[tuple[int, int]] = []

    # -- state ---------------------------------------------------------------
    def last_move_won(self) -> bool:
        return bool(self._history) and has_line(self.current ^ self.mask)

    def can_play(self, col: int) -> bool:
        return not self.mask & TOP_MASKS[col]

    def possible(self) -> int:
        """The cells where a stone can be dropped now."""
        return (self.mask + BOTTOM) & BOARD

    # -- moves ---------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self.is_terminal():
            return []
        return [c for c in range(WIDTH) if not self.mask & TOP_MASKS[c]]

    def ordered_moves(self) -> list[Move]:
        """Immediate wins, then forced blocks, then by threats created, centre first."""
        if self.is_terminal():
            return []
        mask, current = self.mask, self.current
        possible = (mask + BOTTOM) & BOARD
        wins = winning_cells(current, mask) & possible
        blocks = winning_cells(current ^ mask, mask) & possible
        keyed = []
        for rank, col in enumerate(CENTRE_ORDER):
            cell = possible & COLUMN_MASKS[col]
            if not cell:
                continue
            if cell & wins:
                group = 0
            elif cell & blocks:
                group = 1
            else:
                group = 2
            threats = popcount(winning_cells(current | cell, mask | cell))
            keyed.append((group, -threats, rank, col))
        keyed.sort()
        return [col for *_, col in keyed]

    def play(self, move: Move) -> None:
        if not isinstance(move, int) or not 0 <= move < WIDTH:
            raise IllegalMoveError(f"move {move!r} is not a column (1-7)")
        if self.is_terminal():
            raise IllegalMoveError(f"move '{move + 1}': the game is over")
        if self.mask & TOP_MASKS[move]:
            raise IllegalMoveError(f"move '{move + 1}': column {move + 1} is full")
        self._stack.append((self.current, self.mask))
        self.current ^= self.mask
        self.mask |= self.mask + BOTTOM_MASKS[move]
        self._history.append(move)

    def undo(self) -> Move:
        if not self._history:
            raise IllegalMoveError("no move to take back")
        self.current, self.mask = self._stack.pop()
        return self._history.pop()

    # -- search support --------------------------------------------------------
    def evaluate(self) -> int:
        """Threats (cells that would complete a line) and central stones, side to move."""
        mine, theirs = self.current, self.current ^ self.mask
        threats = popcount(winning_cells(mine, self.mask)) - popcount(
            winning_cells(theirs, self.mask)
        )
        centre = 0
        for col in range(WIDTH):
            column = COLUMN_MASKS[col]
            centre += COLUMN_WEIGHT[col] * (popcount(mine & column) - popcount(theirs & column))
        score = THREAT_WEIGHT * threats + STONE_WEIGHT * centre
        return max(-HEURISTIC_LIMIT, min(HEURISTIC_LIMIT, score))

    def threats(self) -> tuple[list[Move], list[Move]]:
        """The columns where the side to move wins now, and where the opponent would."""
        possible = self.possible()
        wins = winning_cells(self.current, self.mask) & possible
        blocks = winning_cells(self.current ^ self.mask, self.mask) & possible
        return (
            [c for c in range(WIDTH) if wins & COLUMN_MASKS[c]],
            [c for c in range(WIDTH) if blocks & COLUMN_MASKS[c]],
        )

    def key(self) -> int:
        return self.current + self.mask

    @property
    def native_engine(self) -> Callable[..., Any] | None:
        """The compiled kernel's primitives over this position (``webapp.games.connect4_kernel``).

        None when numba or the kernel cannot be loaded: ``search()`` then runs the
        pure-Python engine. ``load_native`` imports the kernel (and numba) on first use,
        so importing this module stays cheap.
        """
        kernel = connect4_kernel.load_native()
        return None if kernel is None else partial(kernel, self)

    def copy(self) -> Connect4:
        other = Connect4.__new__(Connect4)
        other.current, other.mask = self.current, self.mask
        other._history = list(self._history)
        other._stack = list(self._stack)
        return other

    # -- notation ------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        if len(text) != 1 or text not in "1234567":
            raise IllegalMoveError(f"move {text!r} is not a column (1-7)")
        return int(text) - 1

    def cell_owner(self, col: int, row: int) -> int | None:
        """0 (first player), 1 (second) or None; ``row`` 0 is the bottom."""
        bit = 1 << (col * H1 + row)
        if not self.mask & bit:
            return None
        side_to_move_owns = bool(self.current & bit)
        return self.to_move if side_to_move_owns else 1 - self.to_move
