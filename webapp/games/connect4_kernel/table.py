"""The kernel's transposition table: one packed ``uint64`` NumPy array.

Slot ``i`` is two words: ``table[2i]`` holds the full tagged key and
``table[2i + 1]`` the entry::

    bits 40-55  generation   (0 = never written)
    bits 32-37  unused
    bits 28-29  bound        EXACT, LOWER or UPPER
    bits 24-26  best column  (depth-limited search only)
    bits  0-15  value + 2**15

A tagged key is the position key (49 bits) with the remaining depth above it
(bits 49-54); the exact solver uses the tag ``EXACT_DEPTH``, whose values are
bounds on the game-theoretic score and hold at any depth. A depth-limited
value is only the minimax value at that depth, hence the tag.

Each search gets a new generation instead of a cleared table: an entry of an
older generation reads as empty. The array is allocated and touched once per
process, so no search pays for page faults. Collisions simply overwrite.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.games.connect4_kernel import control as ctl_
from webapp.games.connect4_kernel.position import U0

#: 2**22 slots (64 MiB): the middle-game benchmark files fit without thrashing.
DEFAULT_BITS = 22
EXACT, LOWER, UPPER = 0, 1, 2
NO_ENTRY = -1
EXACT_DEPTH = 63
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_DEPTH_SHIFT = np.uint64(49)
_GEN_SHIFT = np.uint64(40)
_BOUND_SHIFT = np.uint64(28)
_MOVE_SHIFT = np.uint64(24)
_VALUE_OFFSET = 1 << 15
_LOW16 = np.uint64(0xFFFF)
GENERATION_LIMIT = 1 << 16


def new_table(bits: int = DEFAULT_BITS) -> np.ndarray:
    """A table of ``2**bits`` slots, every page touched now rather than mid-search."""
    table = np.empty(2 << bits, dtype=np.uint64)
    table.fill(0)
    return table


@njit(cache=True, inline="always")
def tagged(key: np.uint64, depth: int) -> np.uint64:
    return key | (np.uint64(depth) << _DEPTH_SHIFT)


@njit(cache=True, inline="always")
def _slot(ctl: np.ndarray, tag: np.uint64) -> int:
    return int(np.int64((tag * _GOLDEN) >> np.uint64(ctl[ctl_.TABLE_SHIFT]))) * 2


@njit(cache=True, inline="always")
def probe(table: np.ndarray, ctl: np.ndarray, tag: np.uint64) -> np.uint64:
    """The entry word stored for ``tag`` in this generation, or 0."""
    i = _slot(ctl, tag)
    if table[i] != tag:
        return U0
    entry = table[i + 1]
    if np.int64(entry >> _GEN_SHIFT) != ctl[ctl_.GENERATION]:
        return U0
    return np.uint64(entry)


@njit(cache=True, inline="always")
def store(
    table: np.ndarray, ctl: np.ndarray, tag: np.uint64, bound: int, value: int, move: int
) -> None:
    i = _slot(ctl, tag)
    table[i] = tag
    table[i + 1] = (
        (np.uint64(ctl[ctl_.GENERATION]) << _GEN_SHIFT)
        | (np.uint64(bound) << _BOUND_SHIFT)
        | (np.uint64(move) << _MOVE_SHIFT)
        | np.uint64(value + _VALUE_OFFSET)
    )


@njit(cache=True, inline="always")
def entry_bound(entry: np.uint64) -> int:
    return int(np.int64((entry >> _BOUND_SHIFT) & np.uint64(3)))


@njit(cache=True, inline="always")
def entry_value(entry: np.uint64) -> int:
    return int(np.int64(entry & _LOW16)) - _VALUE_OFFSET


@njit(cache=True, inline="always")
def entry_move(entry: np.uint64) -> int:
    return int(np.int64((entry >> _MOVE_SHIFT) & np.uint64(7)))


def next_generation(table: np.ndarray, ctl: np.ndarray) -> None:
    """Start a search with an empty-looking table (a real clear once per 65535 searches)."""
    ctl[ctl_.TABLE_SHIFT] = 64 - (table.size // 2).bit_length() + 1
    generation = int(ctl[ctl_.GENERATION]) + 1
    if generation >= GENERATION_LIMIT:
        table.fill(0)
        generation = 1
    ctl[ctl_.GENERATION] = generation
