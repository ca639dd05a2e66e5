"""The exact solver: Pascal Pons' negamax, compiled with numba.

Scores are the game-theoretic ones of ``webapp.engine.scores`` (from the side
to move, ``22 - stones of the winner``). The techniques, each of which cuts
the tree: moves that hand the opponent an immediate win are never searched;
moves are tried by the number of winning cells they create, centre first on
ties; a transposition table keeps lower and upper bounds; the root value is
found by null-window searches that narrow ``[lo, hi]`` (first to the sign of
the score, then to the score); the opening book answers early positions and
the 12-stone database (in the same array, ``database.py``) every position
with 12 stones in which the side to move cannot win at once, so no search
goes deeper than 12 stones from an earlier root.

``negamax(current, mask, moves, alpha, beta, ...)`` requires that the side to
move cannot win at once and ``alpha < beta``. It is fail-soft: with ``s*``
the true score, ``r <= alpha`` means ``s* <= r``, ``r >= beta`` means
``s* >= r``, and otherwise ``r == s*``. When the stop flag is raised it
returns 0 at once and stores nothing; callers check the flag before using a
value.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.engine import scores
from webapp.games.connect4_kernel import book as book_
from webapp.games.connect4_kernel import control as c
from webapp.games.connect4_kernel import table as tt
from webapp.games.connect4_kernel.borrow import borrowed
from webapp.games.connect4_kernel.position import (
    CENTRE_ORDER,
    U0,
    bottom_mask,
    can_win_next,
    column_mask,
    column_of,
    mirror_key,
    move_score,
    non_losing_moves,
    popcount,
    possible,
    winning_cells,
)
from webapp.games.connect4_kernel.sorter import MAX_SORT_SCORE, ROW, cell_of, insert, sort_key
from webapp.games.connect4_layout import CELLS, WIDTH

#: Returned by the drivers when the search was stopped before it had a value.
STOPPED = -1000
NO_BOUND = 1 << 20
_win_now_score = njit(cache=True, inline="always")(scores.win_now_score)


@njit(cache=True, inline="always")
def win_now_score(moves: int) -> int:
    """The score of winning with the next stone (``webapp.engine.scores``, compiled).

    Pons' bounds follow from it: losing to the opponent's next stone scores
    ``-win_now_score(moves + 1)``; when the opponent cannot win with its next
    stone the score is at least ``-win_now_score(moves + 3)``; when we cannot
    win with ours it is at most ``win_now_score(moves + 2)``.
    """
    return _win_now_score(CELLS, moves)


@njit(cache=True, inline="always")
def check_limits(ctl: np.ndarray) -> None:
    """Every CHECK_EVERY nodes: raise the stop flag when the node limit is reached."""
    if ctl[c.ARMED] and ctl[c.NODE_LIMIT] and ctl[c.NODES] >= ctl[c.NODE_LIMIT]:
        ctl[c.STOP] = c.STOP_NODES


@njit(cache=True, inline="always")
def half(x: int) -> int:
    """``x / 2`` rounded toward zero, as in C."""
    return x // 2 if x >= 0 else -((-x) // 2)


@njit(cache=True, inline="always")
def canonical(key: np.uint64, moves: int, ctl: np.ndarray) -> tuple[np.uint64, bool]:
    """The table's key of a position and whether it is the mirror image's.

    A position and its mirror image have the same score, so early in the game
    (where mirror pairs are common) they share one entry: the smaller key.
    Late in the game pairs are rare and the mirror is not worth computing.
    """
    if moves > ctl[c.SYMMETRY_PLIES]:
        return key, False
    mirrored = mirror_key(key)
    if mirrored < key:
        return mirrored, True
    return key, False


@njit(cache=True, inline="always")
def child_upper(current: np.uint64, mask: np.uint64, moves: int, cell: np.uint64,
                table: np.ndarray, ctl: np.ndarray) -> int:  # fmt: skip
    """An upper bound on the child's score after ``cell`` from the table, or NO_BOUND."""
    child_mask = mask | cell
    key, _ = canonical((current ^ mask) + child_mask, moves + 1, ctl)
    entry = tt.probe(table, ctl, tt.tagged(key, tt.EXACT_DEPTH))
    if entry != U0 and tt.entry_bound(entry) == tt.UPPER:
        return tt.entry_value(entry)
    return NO_BOUND


@njit(cache=True, inline="always")
def _stored_move(col: int, mirrored: bool) -> int:
    """The table's move field: the column in the canonical orientation, + 1."""
    return (WIDTH - 1 - col if mirrored else col) + 1


@njit(
    "int64(uint64, uint64, int64, int64, int64, uint64[::1], int64[::1], uint64[::1], uint64[::1])",
    cache=True,
    nogil=True,
)
def negamax(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    alpha: int,
    beta: int,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """Fail-soft null-window-friendly negamax (contract in the module docstring)."""
    ctl[c.NODES] += 1
    if (ctl[c.NODES] & c.CHECK_MASK) == 0:
        check_limits(ctl)
    if ctl[c.STOP]:
        return 0
    nxt = non_losing_moves(current, mask)
    if nxt == U0:  # every move lets the opponent win with its next stone
        return -win_now_score(moves + 1)
    if moves >= CELLS - 2:  # the last two stones cannot make a line any more
        return 0
    lo = -win_now_score(moves + 3)  # the opponent cannot win with its next stone
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = win_now_score(moves + 2)  # we cannot win with our next stone
    key = current + mask
    if moves <= ctl[c.BOOK_PLIES] or moves == ctl[c.DATABASE_PLIES]:
        entry = book_.probe(book, key)
        if entry != U0:
            return book_.entry_score(entry)
    key, mirrored = canonical(key, moves, ctl)
    tag = tt.tagged(key, tt.EXACT_DEPTH)
    entry = tt.probe(table, ctl, tag)
    first = -1
    if entry != U0:
        value = tt.entry_value(entry)
        if tt.entry_bound(entry) == tt.LOWER:
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    return alpha
            first = tt.entry_move(entry) - 1
            if first >= 0 and mirrored:
                first = WIDTH - 1 - first
        elif value < hi:
            hi = value
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    if moves <= ctl[c.ETC_PLIES]:  # enhanced transposition cut-off: a child already refuted?
        for col in range(WIDTH):
            cell = nxt & column_mask(col)
            if cell:
                bound = child_upper(current, mask, moves, cell, table, ctl)
                if bound != NO_BOUND and -bound >= beta:
                    tt.store(table, ctl, tag, tt.LOWER, -bound, _stored_move(col, mirrored),
                             CELLS - moves)  # fmt: skip
                    return -bound
    base = moves * ROW
    count = 0
    for rank in range(WIDTH):
        col = CENTRE_ORDER[rank]
        cell = nxt & column_mask(col)
        if cell:
            score = MAX_SORT_SCORE if col == first else move_score(current, mask, cell)
            count = insert(scratch, base, count, sort_key(cell, score, rank))
    for i in range(count):
        cell = cell_of(scratch[base + i])
        score = -negamax(
            current ^ mask, mask | cell, moves + 1, -beta, -alpha, table, ctl, book, scratch
        )
        if ctl[c.STOP]:
            return 0
        if score >= beta:
            tt.store(table, ctl, tag, tt.LOWER, score, _stored_move(column_of(cell), mirrored),
                     CELLS - moves)  # fmt: skip
            return score
        if score > alpha:
            alpha = score
    tt.store(table, ctl, tag, tt.UPPER, alpha, 0, CELLS - moves)
    return alpha


@njit(cache=True, nogil=True)
def narrow(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    lo: int,
    hi: int,
    steps: int,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> tuple[int, int]:
    """Up to ``steps`` null-window searches shrinking ``lo <= s* <= hi``; new bounds.

    Each probe is tried near the middle, pulled toward 0 so that the sign of
    the score (the expensive part) is settled first. Stops early with the
    stop flag raised; the bounds returned are still true.
    """
    if can_win_next(current, mask):
        score = win_now_score(moves)
        return score, score
    table, ctl, book, scratch = borrowed(table), borrowed(ctl), borrowed(book), borrowed(scratch)
    while lo < hi and steps > 0:
        med = lo + (hi - lo) // 2
        if med <= 0 and half(lo) < med:
            med = half(lo)
        elif med >= 0 and half(hi) > med:
            med = half(hi)
        r = negamax(current, mask, moves, med, med + 1, table, ctl, book, scratch)
        if ctl[c.STOP]:
            break
        if r <= med:
            hi = r
        else:
            lo = r
        steps -= 1
    return lo, hi


@njit(cache=True, nogil=True)
def solve(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """The exact score of a position that is not over, or STOPPED."""
    lo, hi = narrow(
        current, mask, moves, lower_bound(current, mask, moves, ctl, book),
        win_now_score(moves), 1 << 30, table, ctl, book, scratch,
    )  # fmt: skip
    return lo if lo == hi else STOPPED


@njit(cache=True, inline="always")
def lower_bound(current: np.uint64, mask: np.uint64, moves: int, ctl: np.ndarray,
                book: np.ndarray) -> int:  # fmt: skip
    """A lower bound on the score of a position that is not over: a loss to the
    opponent's next stone, or better one stone past the database (``parents_floor``)."""
    lo = -win_now_score(moves + 1)
    if ctl[c.DATABASE_PLIES] >= 0 and moves == ctl[c.DATABASE_PLIES] + 1:
        lo = max(lo, parents_floor(current, mask, book))
    return lo


@njit(cache=True, nogil=True)
def parents_floor(current: np.uint64, mask: np.uint64, book: np.ndarray) -> int:
    """A lower bound on the score of a 13-stone position from the database: each of its
    parents ``p`` (the position less one of the last mover's top stones) scores at least
    minus this one's, its child's, so this one scores at least ``-score(p)``. A parent
    the database lacks (its side to move wins at once) bounds nothing."""
    floor = -NO_BOUND
    theirs = current ^ mask  # the side that moved last, to move in the parents
    for col in range(WIDTH):
        stones = mask & column_mask(col)
        if stones == U0:
            continue
        top = (stones + bottom_mask(col)) >> np.uint64(1)  # a column's stones are contiguous
        if not theirs & top:
            continue
        entry = book_.probe(book, (theirs ^ top) + (mask ^ top))
        if entry != U0:
            floor = max(floor, -book_.entry_score(entry))
    return floor


@njit(cache=True, nogil=True)
def child_score(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    col: int,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """The exact score, for the side to move, of playing column ``col`` (or STOPPED).

    When the book holds the position's own score ``s``, no column scores above it:
    the child's solve starts from the lower bound ``-s`` (when the position is lost,
    the sign of every child is known before any search). One stone past the
    database, every 12-stone parent of the child bounds it so (``lower_bound``).
    """
    cell = possible(mask) & column_mask(col)
    if winning_cells(current, mask) & cell:
        return win_now_score(moves)
    if not non_losing_moves(current, mask) & cell:
        return -win_now_score(moves + 1)  # the opponent wins with its next stone
    lo = lower_bound(current ^ mask, mask | cell, moves + 1, ctl, book)
    if moves <= ctl[c.BOOK_PLIES]:
        entry = book_.probe(book, current + mask)
        if entry != U0:
            lo = max(lo, -book_.entry_score(entry))
    lo, hi = narrow(current ^ mask, mask | cell, moves + 1, lo, win_now_score(moves + 1),
                    1 << 30, table, ctl, book, scratch)  # fmt: skip
    return -lo if lo == hi else STOPPED


@njit(cache=True, nogil=True)
def keeps_score(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    col: int,
    score: int,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> bool:
    """Whether column ``col`` achieves ``score``, the position's exact score.

    Since no move scores above ``score``, one null-window search around it
    decides. Check the stop flag before trusting either answer: a stopped
    search returns 0, which reads as "keeps" for any score of 0 or less.
    """
    cell = possible(mask) & column_mask(col)
    if winning_cells(current, mask) & cell:
        return score == win_now_score(moves)
    if not non_losing_moves(current, mask) & cell:
        return score == -win_now_score(moves + 1)
    table, ctl, book, scratch = borrowed(table), borrowed(ctl), borrowed(book), borrowed(scratch)
    r = negamax(current ^ mask, mask | cell, moves + 1, -score, -score + 1,
                table, ctl, book, scratch)  # fmt: skip
    return r <= -score


@njit(cache=True, nogil=True)
def best_columns(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    score: int,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """Bit ``c`` set for every column that keeps ``score`` (0 if stopped)."""
    found = 0
    playable = possible(mask)
    for col in range(WIDTH):
        if playable & column_mask(col):
            if keeps_score(current, mask, moves, col, score, table, ctl, book, scratch):
                found |= 1 << col
            if ctl[c.STOP]:
                return 0
    return found


@njit(cache=True, nogil=True)
def principal_variation(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    score: int,
    line: np.ndarray,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """Write a line that keeps ``score`` into ``line``; return its length.

    Each move is the table's cut-off move of the position, else the most
    central one, that keeps the score, checked by a null-window search, so
    the line is true by construction. It ends with the
    winning move, at the full board, or early if the stop flag is raised.
    """
    length = 0
    while moves < CELLS:
        chosen = -1
        playable = possible(mask)
        if moves <= ctl[c.BOOK_PLIES]:
            entry = book_.probe(book, current + mask)
            if entry != U0 and book_.entry_columns(entry):
                chosen = central_column(book_.entry_columns(entry))
        first = table_move(current, mask, moves, table, ctl) if chosen < 0 else -1
        for rank in range(-1, WIDTH if chosen < 0 else -1):
            col = first if rank < 0 else CENTRE_ORDER[rank]
            if col < 0 or (rank >= 0 and col == first):
                continue
            if playable & column_mask(col):
                keeps = keeps_score(current, mask, moves, col, score, table, ctl, book, scratch)
                if ctl[c.STOP]:  # a stopped search's answer proves nothing, True nor False
                    return length
                if keeps:
                    chosen = col
                    break
        if chosen < 0:
            return length
        line[length] = chosen
        length += 1
        cell = playable & column_mask(chosen)
        if winning_cells(current, mask) & cell:
            return length
        current, mask, moves, score = current ^ mask, mask | cell, moves + 1, -score
    return length


@njit(cache=True, nogil=True)
def pick_column(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    score: int,
    pick: int,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """A column that keeps ``score`` (the exact score), any optimal one as likely; -1 if stopped.

    The columns are tried in an order drawn from ``pick`` (a permutation of
    seven, 5040 of them); the first that keeps the score is the answer. In a
    uniformly random order the first optimal column is each of them with
    equal chance, and the columns after it are never searched.
    """
    order = np.arange(WIDTH)
    for i in range(WIDTH - 1, 0, -1):  # Fisher-Yates, ``pick`` as the random digits
        j = pick % (i + 1)
        pick //= i + 1
        order[i], order[j] = order[j], order[i]
    playable = possible(mask)
    for col in order:
        if playable & column_mask(int(col)):
            keeps = keeps_score(current, mask, moves, int(col), score, table, ctl, book, scratch)
            if ctl[c.STOP]:
                return -1
            if keeps:
                return int(col)
    return -1


@njit(cache=True, inline="always")
def table_move(current: np.uint64, mask: np.uint64, moves: int, table: np.ndarray,
               ctl: np.ndarray) -> int:  # fmt: skip
    """The column the table keeps as the position's cut-off move, or -1."""
    key, mirrored = canonical(current + mask, moves, ctl)
    entry = tt.probe(table, ctl, tt.tagged(key, tt.EXACT_DEPTH))
    if entry == U0 or tt.entry_bound(entry) != tt.LOWER:
        return -1
    col = tt.entry_move(entry) - 1
    if col >= 0 and mirrored:
        col = WIDTH - 1 - col
    return col


@njit(cache=True, inline="always")
def central_column(columns: int) -> int:
    for rank in range(WIDTH):
        if columns >> CENTRE_ORDER[rank] & 1:
            return int(CENTRE_ORDER[rank])
    return -1


@njit(cache=True, nogil=True)
def solve_root(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    pick: int,
    line: np.ndarray,
    table: np.ndarray,
    ctl: np.ndarray,
    book: np.ndarray,
    scratch: np.ndarray,
) -> tuple[int, int, int, bool]:
    """Everything an exact search answers, in one call: ``(score, best columns, pv length,
    from book)``, the principal variation written into ``line``.

    The caller's random number ``pick`` breaks ties: from the book, the move
    played is the ``pick % n``-th of its ``n`` optimal columns (all of them
    in ``best columns``); when searched, ``pick_column`` draws it and ``best
    columns`` is that column alone (proving the others optimal or not would
    cost more than the solve itself on early positions). Score STOPPED if
    stopped first.
    """
    score, columns, from_book = STOPPED, 0, False
    if moves <= ctl[c.BOOK_PLIES]:
        entry = book_.probe(book, current + mask)
        if entry != U0 and book_.entry_columns(entry):
            score, columns, from_book = book_.entry_score(entry), book_.entry_columns(entry), True
    if from_book:
        k = pick % popcount(np.uint64(columns))
        choice = 0
        for col in range(WIDTH):
            if columns >> col & 1:
                if k == 0:
                    choice = col
                    break
                k -= 1
    else:
        score = solve(current, mask, moves, table, ctl, book, scratch)
        if score == STOPPED:
            return STOPPED, 0, 0, False
        choice = pick_column(current, mask, moves, score, pick, table, ctl, book, scratch)
        if choice < 0:
            return STOPPED, 0, 0, False
        columns = 1 << choice
    line[0] = choice
    cell = possible(mask) & column_mask(choice)
    if winning_cells(current, mask) & cell:
        return score, columns, 1, from_book
    length = principal_variation(current ^ mask, mask | cell, moves + 1, -score, line[1:],
                                 table, ctl, book, scratch)  # fmt: skip
    return score, columns, length + 1, from_book
