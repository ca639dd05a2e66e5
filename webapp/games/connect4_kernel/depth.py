"""Depth-limited minimax and alpha-beta with the heuristic evaluation, compiled.

Values are on the engine's internal scale (``webapp.engine.scores``): exact
wins and losses beyond ``WIN_BASE``, heuristic values within it, and both
functions return exactly what ``webapp.engine.python_engine`` returns at the
same depth: depth 0 evaluates unless the game is over (with the control's
``EXTEND``, past any forced line, as ``leaf`` explains), and a finished game
scores ``to_internal`` of the convention's loss (``webapp.engine.scores``).
Both may return early with a meaningless 0 when the stop flag is raised; callers check the flag.

``alphabeta(..., depth, alpha, beta)`` is fail-soft with the contract of
``webapp.engine.python_engine``, and its table entries are tagged with the
remaining depth, so it agrees with minimax value for value. Its best move is
also read from the previous iteration's entry (depth - 1) when the current
depth has none, so iterative deepening tries the last best move first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.engine import scores
from webapp.engine.scores import INFINITY
from webapp.games.connect4_kernel import control as c
from webapp.games.connect4_kernel import table as tt
from webapp.games.connect4_kernel.position import (
    CENTRE_ORDER,
    U0,
    U1,
    column_mask,
    evaluate,
    has_line,
    move_score,
    possible,
    winning_cells,
)
from webapp.games.connect4_kernel.solver import check_limits
from webapp.games.connect4_kernel.sorter import MAX_SORT_SCORE, ROW, cell_of, insert, sort_key
from webapp.games.connect4_layout import CELLS, WIDTH

WIN_NOW, BLOCK = MAX_SORT_SCORE, MAX_SORT_SCORE - 1
MINIMAX, ALPHABETA = 0, 1
# The score convention, compiled from its one definition.
_win_score = njit(cache=True, inline="always")(scores.win_score)
_to_internal = njit(cache=True, inline="always")(scores.to_internal)


@njit(cache=True, inline="always")
def lost_score(moves: int) -> int:
    """The internal value, for the side to move, of a game just won with stone ``moves``."""
    return _to_internal(-_win_score(CELLS, (moves + 1) // 2))


@njit(cache=True)
def leaf(current: np.uint64, mask: np.uint64, moves: int, ctl: np.ndarray) -> int:
    """The value at the horizon: the evaluation, past any forced line (``EXTEND``).

    A side that can win at once scores the win, one facing two threats the
    loss; one facing a single threat blocks it and the line goes on.
    """
    if not ctl[c.EXTEND]:
        return evaluate(current, mask)
    sign = 1
    while True:
        if moves == CELLS:
            return 0
        playable = possible(mask)
        if winning_cells(current, mask) & playable:
            return -sign * lost_score(moves + 1)
        threats = winning_cells(current ^ mask, mask) & playable
        if not threats:
            return sign * evaluate(current, mask)
        if threats & (threats - U1):
            return sign * lost_score(moves + 2)
        ctl[c.NODES] += 1
        current, mask, moves, sign = current ^ mask, mask | threats, moves + 1, -sign


@njit(cache=True, inline="always")
def _count(ctl: np.ndarray) -> None:
    ctl[c.NODES] += 1
    if (ctl[c.NODES] & c.CHECK_MASK) == 0:
        check_limits(ctl)


@njit("int64(uint64, uint64, int64, int64, int64[::1])", cache=True, nogil=True)
def minimax(current: np.uint64, mask: np.uint64, moves: int, depth: int, ctl: np.ndarray) -> int:
    """Plain negamax: full width, no pruning, no table."""
    _count(ctl)
    if ctl[c.STOP]:
        return 0
    if moves and has_line(current ^ mask):
        return lost_score(moves)
    if moves == CELLS:
        return 0
    if depth == 0:
        return leaf(current, mask, moves, ctl)
    best = -INFINITY
    playable = possible(mask)
    for col in range(WIDTH):
        cell = playable & column_mask(col)
        if cell:
            value = -minimax(current ^ mask, mask | cell, moves + 1, depth - 1, ctl)
            if ctl[c.STOP]:
                return 0
            best = max(best, value)
    return best


@njit(cache=True, inline="always")
def order_moves(
    current: np.uint64, mask: np.uint64, moves: int, first: int, scratch: np.ndarray
) -> int:
    """Sort the legal moves into the scratch row: the table's move, wins, blocks, threats."""
    playable = possible(mask)
    wins = winning_cells(current, mask) & playable
    blocks = winning_cells(current ^ mask, mask) & playable
    base = moves * ROW
    count = 0
    for rank in range(WIDTH):
        col = CENTRE_ORDER[rank]
        cell = playable & column_mask(col)
        if cell:
            if col == first:
                score = WIN_NOW + 1  # clipped to the top score; wins the tie on rank 0
                rank = -1
            elif cell & wins:
                score = WIN_NOW
            elif cell & blocks:
                score = BLOCK
            else:
                score = min(move_score(current, mask, cell), BLOCK - 1)
            count = insert(scratch, base, count, sort_key(cell, score, rank + 1))
    return count


@njit(
    "int64(uint64, uint64, int64, int64, int64, int64, uint64[::1], int64[::1], uint64[::1])",
    cache=True,
    nogil=True,
)
def alphabeta(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    depth: int,
    alpha: int,
    beta: int,
    table: np.ndarray,
    ctl: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """Fail-soft alpha-beta with a depth-tagged table (see the module docstring)."""
    _count(ctl)
    if ctl[c.STOP]:
        return 0
    if moves and has_line(current ^ mask):
        return lost_score(moves)
    if moves == CELLS:
        return 0
    if depth == 0:
        return leaf(current, mask, moves, ctl)
    if winning_cells(current, mask) & possible(mask):
        return -lost_score(moves + 1)  # winning now is the fastest win: minimax's value
    tag = tt.tagged(current + mask, depth)
    entry = tt.probe(table, ctl, tag)
    first = -1
    if entry != U0:
        value = tt.entry_value(entry)
        bound = tt.entry_bound(entry)
        if (
            bound == tt.EXACT
            or (bound == tt.LOWER and value >= beta)
            or (bound == tt.UPPER and value <= alpha)
        ):
            return value
        first = tt.entry_move(entry)
    elif depth > 1:  # the previous iteration's best move, kept whatever the depth
        previous = tt.probe(table, ctl, tt.tagged(current + mask, depth - 1))
        if previous != U0 and tt.entry_bound(previous) != tt.UPPER:
            first = tt.entry_move(previous)
    count = order_moves(current, mask, moves, first, scratch)
    base = moves * ROW
    best, best_col, low = -INFINITY, 0, alpha
    for i in range(count):
        cell = cell_of(scratch[base + i])
        value = -alphabeta(current ^ mask, mask | cell, moves + 1, depth - 1, -beta, -low,
                           table, ctl, scratch)  # fmt: skip
        if ctl[c.STOP]:
            return 0
        if value > best:
            best = value
            best_col = 0
            while not cell & column_mask(best_col):
                best_col += 1
            if value > low:
                low = value
                if low >= beta:
                    break
    bound = tt.UPPER if best <= alpha else tt.LOWER if best >= beta else tt.EXACT
    tt.store(table, ctl, tag, bound, best, best_col, depth)
    return best


@njit(cache=True, nogil=True)
def root_values(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    depth: int,
    algorithm: int,
    all_scores: bool,
    first: int,
    values: np.ndarray,
    table: np.ndarray,
    ctl: np.ndarray,
    scratch: np.ndarray,
) -> None:
    """Fill ``values[col]`` with each legal root move's value at ``depth`` (others untouched).

    Column ``first`` (the previous depth's best, or -1) is searched first.

    With ``all_scores`` (or minimax) every value is exact; otherwise moves that
    tie the best are exact and the others are upper bounds below the best, which
    is all the tie-break needs. Check the stop flag before using the values.
    """
    _count(ctl)
    playable = possible(mask)
    best = -INFINITY
    for rank in range(-1, WIDTH):
        col = first if rank < 0 else CENTRE_ORDER[rank]
        if col < 0 or (rank >= 0 and col == first):
            continue
        cell = playable & column_mask(col)
        if not cell:
            continue
        child_current, child_mask = current ^ mask, mask | cell
        if algorithm == MINIMAX:
            value = -minimax(child_current, child_mask, moves + 1, depth - 1, ctl)
        elif all_scores:
            value = -alphabeta(child_current, child_mask, moves + 1, depth - 1,
                               -INFINITY, INFINITY, table, ctl, scratch)  # fmt: skip
        else:
            value = -alphabeta(child_current, child_mask, moves + 1, depth - 1,
                               -INFINITY, -(best - 1), table, ctl, scratch)  # fmt: skip
        if ctl[c.STOP]:
            return
        values[col] = value
        best = max(best, value)


@njit(cache=True, nogil=True)
def principal_variation(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    depth: int,
    value: int,
    line: np.ndarray,
    table: np.ndarray,
    ctl: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """Write into ``line`` a line of at most ``depth`` moves keeping ``value``; its length.

    As in the pure-Python engine, each step searches candidates with a window
    around the expected value, so the line is true by construction.
    """
    length = 0
    while depth > 0 and moves < CELLS and not (moves and has_line(current ^ mask)):
        chosen = -1
        playable = possible(mask)
        count = order_moves(current, mask, moves, -1, scratch)
        base = moves * ROW
        for i in range(count):
            cell = cell_of(scratch[base + i])
            child = alphabeta(current ^ mask, mask | cell, moves + 1, depth - 1,
                              -value - 1, -value + 1, table, ctl, scratch)  # fmt: skip
            if ctl[c.STOP]:
                return length
            if child == -value:
                chosen = 0
                while not cell & column_mask(chosen):
                    chosen += 1
                break
        if chosen < 0:
            return length
        line[length] = chosen
        length += 1
        cell = playable & column_mask(chosen)
        current, mask, moves = current ^ mask, mask | cell, moves + 1
        value, depth = -value, depth - 1
    return length
