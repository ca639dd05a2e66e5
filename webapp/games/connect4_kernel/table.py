"""The kernel's transposition table: one packed ``uint64`` NumPy array.

Slot ``i`` is two words: ``table[2i]`` holds the full tagged key and
``table[2i + 1]`` the entry::

    bits 40-55  generation   (0 = never written)
    bits 32-37  weight       how much work the entry saves (see below)
    bits 28-29  bound        EXACT, LOWER or UPPER
    bits 24-26  move         the depth-limited search's best column; the exact
                             solver's cut-off column + 1 (0: none)
    bits  0-15  value + 2**15

A tagged key is the position key (49 bits) with the remaining depth above it
(bits 49-54); the exact solver uses the tag ``EXACT_DEPTH``, whose values are
bounds on the game-theoretic score and hold at any depth. A depth-limited
value is only the minimax value at that depth, hence the tag.

Each search gets a new generation instead of a cleared table: an entry of an
older generation reads as empty. The array is allocated and touched once per
process, so no search pays for page faults.

Replacement: slots go in buckets of two (one cache line). The first slot
keeps the heaviest entry (``weight``: the remaining depth of a depth-limited
search, the empty cells of an exact solve: the bigger subtree), the second
always takes the newest. A new entry heavier than the first slot's pushes
that one down to the second. Early, long solves overflow any table; losing a
position near the root to the flood of leaves' entries costs most, and this
keeps them (the two-level scheme of Breuker's thesis on replacement schemes).
"""

from __future__ import annotations

import mmap

import numpy as np
from numba import njit

from webapp.games.connect4_kernel import control as ctl_
from webapp.games.connect4_kernel.position import U0

#: 2**18 slots (4 MiB). A probe's cost is its cache miss: with two-slot buckets
#: keeping the heavy entries, a table that stays in the processor's caches searches
#: about twice the nodes per second of a 64 MiB one for a fifth more nodes, on early
#: solves of 30 million nodes (``python -m webapp.bench DIR --sections hard``).
DEFAULT_BITS = 18
EXACT, LOWER, UPPER = 0, 1, 2
NO_ENTRY = -1
EXACT_DEPTH = 63
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_DEPTH_SHIFT = np.uint64(49)
_GEN_SHIFT = np.uint64(40)
_BOUND_SHIFT = np.uint64(28)
_MOVE_SHIFT = np.uint64(24)
_WEIGHT_SHIFT = np.uint64(32)
_WEIGHT_BITS = np.uint64(0x3F)
_VALUE_OFFSET = 1 << 15
_LOW16 = np.uint64(0xFFFF)
GENERATION_LIMIT = 1 << 16
#: Bytes of a huge page (x86-64 and most arm64 Linux systems).
HUGE_PAGE = 2 << 20


def new_table(bits: int = DEFAULT_BITS) -> np.ndarray:
    """A table of ``2**bits`` slots, every page touched now rather than mid-search.

    A probe lands anywhere in the table: with 4 KiB pages nearly every probe
    also misses the TLB, and that page walk cost more than the search itself.
    The table asks for huge pages (``MADV_HUGEPAGE``: Linux's transparent huge
    pages, which most systems grant on request); elsewhere it is a plain array.
    """
    words = 2 << bits
    table = _huge_pages(words * 8)
    if table is None:
        table = np.empty(words, dtype=np.uint64)
    table.fill(0)
    return table


def _huge_pages(size: int) -> np.ndarray | None:
    """A zeroed ``uint64`` array of ``size`` bytes in memory advised for huge pages, or None."""
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is None or size < HUGE_PAGE:
        return None
    try:
        memory = mmap.mmap(-1, size + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        memory.madvise(advice)
    except (OSError, ValueError, AttributeError):
        return None
    whole = np.frombuffer(memory, dtype=np.uint8)
    skip = -whole.ctypes.data % HUGE_PAGE  # start on a huge page's boundary
    return whole[skip : skip + size].view(np.uint64)


@njit(cache=True, inline="always")
def tagged(key: np.uint64, depth: int) -> np.uint64:
    return key | (np.uint64(depth) << _DEPTH_SHIFT)


@njit(cache=True, inline="always")
def _bucket(ctl: np.ndarray, tag: np.uint64) -> int:
    """The first word of ``tag``'s bucket (two slots, four words)."""
    return int(np.int64((tag * _GOLDEN) >> np.uint64(ctl[ctl_.TABLE_SHIFT]))) * 4


@njit(cache=True, inline="always")
def _current(table: np.ndarray, ctl: np.ndarray, i: int) -> bool:
    return bool(np.int64(table[i + 1] >> _GEN_SHIFT) == ctl[ctl_.GENERATION])


@njit(cache=True, inline="always")
def probe(table: np.ndarray, ctl: np.ndarray, tag: np.uint64) -> np.uint64:
    """The entry word stored for ``tag`` in this generation, or 0."""
    i = _bucket(ctl, tag)
    if table[i] != tag:
        i += 2
        if table[i] != tag:
            return U0
    if not _current(table, ctl, i):
        return U0
    return np.uint64(table[i + 1])


@njit(cache=True, inline="always")
def store(
    table: np.ndarray,
    ctl: np.ndarray,
    tag: np.uint64,
    bound: int,
    value: int,
    move: int,
    weight: int,
) -> None:
    """Keep an entry for ``tag`` (replacement scheme in the module docstring)."""
    entry = (
        (np.uint64(ctl[ctl_.GENERATION]) << _GEN_SHIFT)
        | (np.uint64(weight) << _WEIGHT_SHIFT)
        | (np.uint64(bound) << _BOUND_SHIFT)
        | (np.uint64(move) << _MOVE_SHIFT)
        | np.uint64(value + _VALUE_OFFSET)
    )
    i = _bucket(ctl, tag)
    if table[i] != tag:
        if table[i + 2] == tag:
            i += 2
        elif _current(table, ctl, i) and entry_weight(table[i + 1]) > weight:
            i += 2  # the first slot's entry is worth more: the second slot takes this one
        elif _current(table, ctl, i):
            table[i + 2], table[i + 3] = table[i], table[i + 1]  # pushed down, not lost
    table[i] = tag
    table[i + 1] = entry


@njit(cache=True, inline="always")
def entry_weight(entry: np.uint64) -> int:
    return int(np.int64((entry >> _WEIGHT_SHIFT) & _WEIGHT_BITS))


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
    ctl[ctl_.TABLE_SHIFT] = 64 - (table.size // 4).bit_length() + 1  # buckets
    generation = int(ctl[ctl_.GENERATION]) + 1
    if generation >= GENERATION_LIMIT:
        table.fill(0)
        generation = 1
    ctl[ctl_.GENERATION] = generation
