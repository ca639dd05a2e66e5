"""Connect Four positions as two uint64 bitboards, compiled with numba.

The layout is the one of ``webapp.games.connect4`` (Pascal Pons' layout)::

    .  .  .  .  .  .  .     <- sentinel row (always 0)
    5 12 19 26 33 40 47
    4 11 18 25 32 39 46
    3 10 17 24 31 38 45
    2  9 16 23 30 37 44
    1  8 15 22 29 36 43
    0  7 14 21 28 35 42     <- bottom row

A position is ``(current, mask, moves)``: the stones of the side to move, all
stones, and how many have been played. ``current + mask`` is its key.

Every bitboard value and every shift amount is a ``uint64``: numba promotes a
``uint64`` mixed with an ``int64`` to ``float64``, silently and slowly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.engine.scores import HEURISTIC_LIMIT
from webapp.games.connect4_layout import (
    BOARD,
    BOTTOM,
    CELLS,
    COLUMN_WEIGHT,
    H1,
    HEIGHT,
    STONE_WEIGHT,
    THREAT_WEIGHT,
    WIDTH,
)

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
UH1 = np.uint64(H1)
UBOARD = np.uint64(BOARD)
UBOTTOM = np.uint64(BOTTOM)
COLUMN_BITS = np.uint64((1 << HEIGHT) - 1)
#: A whole column with its sentinel: one column of a key.
KEY_COLUMN = np.uint64((1 << H1) - 1)
#: Centre first, then outwards; the sorter visits columns in this order.
CENTRE_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
WEIGHTS = np.array(COLUMN_WEIGHT, dtype=np.int64)
#: Pons' score bounds: a win with the first stone / a loss to it.
MAX_SCORE = (CELLS + 1) // 2 - 3
MIN_SCORE = -(CELLS // 2) + 3

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S56 = np.uint64(56)


@njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:
    """Set bits of ``x`` (SWAR; LLVM turns it into one instruction)."""
    x = x - ((x >> U1) & _M1)
    x = (x & _M2) + ((x >> U2) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return int(np.int64((x * _H01) >> _S56))


@njit(cache=True, inline="always")
def column_mask(col: int) -> np.uint64:
    return COLUMN_BITS << (np.uint64(col) * UH1)


@njit(cache=True, inline="always")
def bottom_mask(col: int) -> np.uint64:
    return U1 << (np.uint64(col) * UH1)


@njit(cache=True, inline="always")
def possible(mask: np.uint64) -> np.uint64:
    """Cells where a stone can be dropped now."""
    return (mask + UBOTTOM) & UBOARD


@njit(cache=True, inline="always")
def winning_cells(stones: np.uint64, mask: np.uint64) -> np.uint64:
    """Empty cells that would complete a line of ``stones`` (as in connect4.py)."""
    r = (stones << U1) & (stones << U2) & (stones << U3)
    for s in (UH1, UH1 - U1, UH1 + U1):
        p = (stones << s) & (stones << (U2 * s))
        r |= p & (stones << (U3 * s))
        r |= p & (stones >> s)
        p = (stones >> s) & (stones >> (U2 * s))
        r |= p & (stones << s)
        r |= p & (stones >> (U3 * s))
    return r & (UBOARD ^ mask)


@njit(cache=True, inline="always")
def has_line(stones: np.uint64) -> bool:
    for s in (U1, UH1, UH1 - U1, UH1 + U1):
        pairs = stones & (stones >> s)
        if pairs & (pairs >> (U2 * s)):
            return True
    return False


@njit(cache=True, inline="always")
def can_win_next(current: np.uint64, mask: np.uint64) -> bool:
    return bool((winning_cells(current, mask) & possible(mask)) != U0)


@njit(cache=True, inline="always")
def non_losing_moves(current: np.uint64, mask: np.uint64) -> np.uint64:
    """Playable cells that do not let the opponent win at once (0: every move loses).

    Assumes the side to move cannot win at once. A forced block is the only
    candidate; two forced blocks lose; a cell just below an opponent's winning
    cell is never played.
    """
    moves = possible(mask)
    threats = winning_cells(current ^ mask, mask)
    forced = moves & threats
    if forced:
        if forced & (forced - U1):
            return U0
        moves = forced
    return moves & ~(threats >> U1)


@njit(cache=True, inline="always")
def move_score(current: np.uint64, mask: np.uint64, move: np.uint64) -> int:
    """How many winning cells the side to move has after playing cell ``move``."""
    return popcount(winning_cells(current | move, mask | move))


@njit(cache=True, inline="always")
def evaluate(current: np.uint64, mask: np.uint64) -> int:
    """The heuristic of ``Connect4.evaluate``, bit for bit."""
    theirs = current ^ mask
    threats = popcount(winning_cells(current, mask)) - popcount(winning_cells(theirs, mask))
    centre = 0
    for col in range(WIDTH):
        column = column_mask(col)
        centre += WEIGHTS[col] * (popcount(current & column) - popcount(theirs & column))
    score = THREAT_WEIGHT * threats + STONE_WEIGHT * centre
    return max(-HEURISTIC_LIMIT, min(HEURISTIC_LIMIT, score))


@njit(cache=True, inline="always")
def mirror_key(key: np.uint64) -> np.uint64:
    """The key of the left-right mirrored position (columns never carry into each other)."""
    out = U0
    for col in range(WIDTH):
        part = (key >> (np.uint64(col) * UH1)) & KEY_COLUMN
        out |= part << (np.uint64(WIDTH - 1 - col) * UH1)
    return out


@njit(cache=True, inline="always")
def column_of(move: np.uint64) -> int:
    """The column of a one-bit cell."""
    col = 0
    while not (move & column_mask(col)):
        col += 1
    return col


def from_moves(history: list[int]) -> tuple[int, int]:
    """``(current, mask)`` as Python ints after 0-based column moves (no checks)."""
    current = mask = 0
    for col in history:
        current ^= mask
        mask |= mask + (1 << (col * H1))
    return current, mask
