"""Move ordering for the kernel: a tiny insertion sort in a per-ply scratch row.

A sort key packs, from the high bits down, the move's score (6 bits), its
rank in the centre-first order (3 bits) and the move's one-bit cell (48
bits), so sorting the keys in descending order gives the best score first and,
among equal scores, the more central column. Row ``ply`` of the scratch array
belongs to the recursion level at ``ply`` stones, so levels never collide.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ROW = 8  # slots per ply (7 moves, rounded up)
PLIES = 43
_SCORE_SHIFT = np.uint64(51)
_RANK_SHIFT = np.uint64(48)
CELL_BITS = np.uint64((1 << 48) - 1)
MAX_SORT_SCORE = 63


def new_scratch() -> np.ndarray:
    return np.zeros(PLIES * ROW, dtype=np.uint64)


@njit(cache=True, inline="always")
def sort_key(cell: np.uint64, score: int, rank: int) -> np.uint64:
    score = min(score, MAX_SORT_SCORE)
    return (np.uint64(score) << _SCORE_SHIFT) | (np.uint64(7 - rank) << _RANK_SHIFT) | cell


@njit(cache=True, inline="always")
def insert(scratch: np.ndarray, base: int, count: int, key: np.uint64) -> int:
    """Insert ``key`` among ``count`` keys sorted best first; return the new count."""
    pos = base + count
    while pos > base and scratch[pos - 1] < key:
        scratch[pos] = scratch[pos - 1]
        pos -= 1
    scratch[pos] = key
    return count + 1


@njit(cache=True, inline="always")
def cell_of(key: np.uint64) -> np.uint64:
    return key & CELL_BITS
