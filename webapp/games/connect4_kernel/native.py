"""``native_search``: the kernel behind the engine's search API and result type.

``webapp.engine.search.search`` hands Connect Four searches to this function
(through ``Connect4.native_search``); it returns the same ``SearchResult``
with the same meaning as the pure-Python engine:

* ``minimax``, or ``alphabeta`` with a depth limit: the same iterations as the
  pure-Python engine (one pass for minimax, iterative deepening for
  alpha-beta), the same values at each depth, a Progress after each depth.
* ``alphabeta`` without a depth limit: exact solving. In-book positions are
  answered from the book. Otherwise, when the search can be stopped (time,
  node limit or cancel flag) or is watched (progress), a quick heuristic
  iterative deepening to ``FALLBACK_DEPTH`` runs first, with a Progress per
  depth, so a stopped search still returns a completed result; then the
  null-window narrowing finds the exact score (one more Progress, at the full
  depth, once it is known), the optimal columns, and a principal variation.

Limits: the kernel counts nodes and checks the node limit and a stop flag
every ``control.CHECK_EVERY`` nodes; a watcher thread raises the flag when the
time budget runs out or the cancel flag is set. As in the pure-Python engine
no limit applies until a first result is complete.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from webapp.engine.scores import INFINITY, is_decisive, to_public
from webapp.engine.search import (
    CancelFlag,
    Limits,
    MoveScore,
    Progress,
    ProgressCallback,
    SearchResult,
)
from webapp.games.connect4 import CELLS, WIDTH, Connect4
from webapp.games.connect4_kernel import book as book_
from webapp.games.connect4_kernel import control as c
from webapp.games.connect4_kernel import depth as dl
from webapp.games.connect4_kernel import solver
from webapp.games.connect4_kernel.sorter import new_scratch
from webapp.games.connect4_kernel.table import new_table, next_generation

log = logging.getLogger(__name__)

#: Depth of the heuristic pass before an interruptible exact solve: milliseconds.
FALLBACK_DEPTH = 8
#: How often the watcher thread looks at the clock and the cancel flag (seconds).
WATCH_INTERVAL = 0.002
#: Slots of the table used when the process's main table is busy (another thread).
SPARE_TABLE_BITS = 18
#: Nodes for solving each non-optimal column of a position answered by the book,
#: and for the principal variation past the book's last stone (~50 ms each).
BOOK_CHILD_NODES = 300_000
BOOK_LINE_NODES = 300_000
_NO_VALUE = -(INFINITY + 1)


@dataclass
class KernelState:
    """One search's working memory: table, control array, sort scratch, book."""

    table: np.ndarray
    ctl: np.ndarray = field(default_factory=c.new_control)
    scratch: np.ndarray = field(default_factory=new_scratch)
    line: np.ndarray = field(default_factory=lambda: np.zeros(CELLS + 1, dtype=np.int64))
    book: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))

    def use_book(self, book: book_.Book) -> None:
        self.book = book.entries
        self.ctl[c.BOOK_PLIES] = book.plies if book.entries.size else -1


_main: KernelState | None = None
_main_lock = threading.Lock()
_book_loaded = False
_book = book_.EMPTY


def load_book(path: Path | None = None) -> book_.Book:
    """Load the shipped book (or ``path``); on a missing or bad file, log why and use none.

    Returns the book in use (``book.EMPTY`` after a failure): searches then
    solve early positions from scratch.
    """
    try:
        book = book_.read_book(book_.DEFAULT_PATH if path is None else path)
    except book_.BookError as err:
        log.warning("%s; Connect Four will search from the first move", err)
        book = book_.EMPTY
    return use_book(book)


def use_book(book: book_.Book) -> book_.Book:
    """Answer from ``book`` from now on (``book.EMPTY``: search everything, as benchmarks do)."""
    global _book, _book_loaded
    _book, _book_loaded = book, True
    if _main is not None:
        _main.use_book(book)
    return book


def _state() -> tuple[KernelState, bool]:
    """The process's state (and True: release the lock after), or a small spare one."""
    global _main
    if not _book_loaded:
        load_book()
    if _main_lock.acquire(blocking=False):
        if _main is None:
            _main = KernelState(new_table())
            _main.use_book(_book)
        return _main, True
    spare = KernelState(new_table(SPARE_TABLE_BITS))
    spare.use_book(_book)
    return spare, False


def _line(line: np.ndarray, length: int) -> str:
    return "".join([_COLUMN_NAMES[m] for m in line[:length].tolist()])


_COLUMN_NAMES = "1234567"
#: Tie-breaks of searches without a seed (seeding a new generator costs a system call).
_unseeded = random.Random()


class _Watcher:
    """A thread that raises the stop flag at the deadline or when ``cancel`` is set."""

    def __init__(self, ctl: np.ndarray, deadline: float | None, cancel: CancelFlag | None):
        self.ctl, self.deadline, self.cancel = ctl, deadline, cancel
        self.thread: threading.Thread | None = None
        if deadline is not None or cancel is not None:
            self.done = threading.Event()
            self.thread = threading.Thread(target=self._run, name="c4-watch", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        ctl = self.ctl
        while not self.done.wait(WATCH_INTERVAL):
            if not ctl[c.ARMED] or ctl[c.STOP]:
                continue
            if self.cancel is not None and self.cancel.is_set():
                ctl[c.STOP] = c.STOP_CANCELLED
            elif self.deadline is not None and time.perf_counter() >= self.deadline:
                ctl[c.STOP] = c.STOP_TIME

    def close(self) -> None:
        if self.thread is not None:
            self.done.set()
            self.thread.join()


def native_search(
    game: Connect4,
    algorithm: str,
    limits: Limits,
    *,
    move_scores: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelFlag | None = None,
    seed: int | None = None,
) -> SearchResult:
    """Search ``game`` with the kernel; same contract as ``webapp.engine.search.search``."""
    start = time.perf_counter()
    if game.is_terminal():
        ms = (time.perf_counter() - start) * 1000.0
        return SearchResult(None, game.terminal_score(), True, "", 1, 0, ms, algorithm)
    state, owned = _state()
    try:
        ctl = state.ctl
        next_generation(state.table, ctl)
        ctl[c.STOP] = ctl[c.NODES] = ctl[c.ARMED] = 0
        ctl[c.NODE_LIMIT] = limits.nodes or 0
        deadline = None if limits.time is None else start + limits.time
        watcher = _Watcher(ctl, deadline, cancel)
        try:
            rng = _unseeded if seed is None else random.Random(seed)
            run = _Run(game, state, algorithm, limits, rng, start)
            if algorithm == "alphabeta" and limits.depth is None:
                watched = progress is not None or watcher.thread is not None or bool(limits.nodes)
                return run.exact(move_scores, progress, watched)
            return run.depth_limited(move_scores, progress)
        finally:
            watcher.close()
    finally:
        if owned:
            _main_lock.release()


class _Run:
    """One native search: the position as bitboards and the per-search bookkeeping."""

    def __init__(
        self,
        game: Connect4,
        state: KernelState,
        algorithm: str,
        limits: Limits,
        rng: random.Random,
        start: float,
    ) -> None:
        self.state, self.algorithm, self.limits, self.rng = state, algorithm, limits, rng
        self.start = start
        self.current, self.mask = np.uint64(game.current), np.uint64(game.mask)
        self.moves = game.moves_played
        self.empties = CELLS - self.moves
        self.game = game

    @property
    def legal(self) -> list[int]:
        return [col for col in range(WIDTH) if self.game.can_play(col)]

    # -- bookkeeping -------------------------------------------------------------
    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000.0

    @property
    def nodes(self) -> int:
        return int(self.state.ctl[c.NODES])

    def stopped(self) -> str | None:
        return c.STOP_REASONS.get(int(self.state.ctl[c.STOP]))

    def result(self, best: SearchResult, with_scores: bool) -> SearchResult:
        return SearchResult(
            best.best_move, best.score, best.exact, best.pv, self.nodes, best.depth,
            self.elapsed_ms(), self.algorithm, best.move_scores if with_scores else None,
            self.stopped(), {"engine": "numba"} | best.extra,
        )  # fmt: skip

    def report(self, progress: ProgressCallback | None, r: SearchResult) -> None:
        if progress is not None:
            progress(Progress(r.depth, r.best_move or "", r.score, r.exact, r.pv, self.nodes,
                              self.elapsed_ms()))  # fmt: skip

    # -- depth-limited: the pure-Python engine's iterations ----------------------
    def depth_limited(
        self, move_scores: bool, progress: ProgressCallback | None, max_depth: int | None = None
    ) -> SearchResult:
        limits, ctl = self.limits, self.state.ctl
        target = self.empties if limits.depth is None else min(limits.depth, self.empties)
        if max_depth is not None:
            target = min(target, max_depth)
        iterative = self.algorithm == "alphabeta" or limits.time is not None
        if not iterative:  # one pass; if it is stopped, depth 1 (instant) answers
            ctl[c.ARMED] = 1
        best: SearchResult | None = None
        for depth in range(1, target + 1) if iterative else range(target, target + 1):
            found = self.iteration(depth, move_scores or self.algorithm == "minimax")
            if found is None:
                break
            best = found
            ctl[c.ARMED] = 1
            self.report(progress, best)
            everything_exact = best.exact and (
                not move_scores or all(s.exact for s in (best.move_scores or {}).values())
            )
            if (everything_exact and self.algorithm == "alphabeta") or ctl[c.STOP]:
                break
        if best is None:  # the single minimax pass was stopped
            stop = ctl[c.STOP]
            ctl[c.STOP] = ctl[c.ARMED] = 0
            best = self.iteration(1, True)
            ctl[c.STOP] = stop
            assert best is not None
        return self.result(best, move_scores)

    def iteration(self, depth: int, all_scores: bool) -> SearchResult | None:
        s = self.state
        values = np.full(WIDTH, _NO_VALUE, dtype=np.int64)
        algo = dl.MINIMAX if self.algorithm == "minimax" else dl.ALPHABETA
        dl.root_values(self.current, self.mask, self.moves, depth, algo, all_scores, values,
                       s.table, s.ctl, s.scratch)  # fmt: skip
        if s.ctl[c.STOP]:
            return None
        best = max(int(values[col]) for col in self.legal)
        choice = self.rng.choice([col for col in self.legal if values[col] == best])
        cell = np.uint64((int(self.mask) + (1 << (choice * 7))) & ~int(self.mask))
        counted = int(s.ctl[c.NODES])
        length = dl.principal_variation(self.current ^ self.mask, self.mask | cell,
                                        self.moves + 1, depth - 1, -best, s.line, s.table,
                                        s.ctl, s.scratch)  # fmt: skip
        if self.algorithm == "minimax":
            # Minimax's line comes with its values in the pure-Python engine, for free;
            # here a replay finds it. Its nodes are not the minimax tree's: the count
            # stays the tree's size, as in the reference engine and the textbook.
            s.ctl[c.NODES] = counted
        pv = str(choice + 1) + _line(s.line, length)
        exhaustive = depth >= self.empties
        exact = exhaustive or is_decisive(best)
        scores = None
        if all_scores:
            scores = {}
            for col in self.legal:
                v = int(values[col])
                sure = exhaustive or is_decisive(v)
                scores[str(col + 1)] = MoveScore(to_public(v, sure), sure)
        return SearchResult(str(choice + 1), to_public(best, exact), exact, pv, self.nodes,
                            depth, self.elapsed_ms(), self.algorithm, scores)  # fmt: skip

    # -- exact solving -------------------------------------------------------------
    def exact(
        self, move_scores: bool, progress: ProgressCallback | None, watched: bool
    ) -> SearchResult:
        s, ctl = self.state, self.state.ctl
        fallback = None
        if watched:
            fallback = self.depth_limited(move_scores, progress, FALLBACK_DEPTH)
            if (fallback.exact and not move_scores) or ctl[c.STOP]:
                return fallback
        ctl[c.ARMED] = 1
        # A book answer is instant, but its line runs on past the book, where each
        # move costs a solve: the line gets a node budget and may end early there.
        with self.node_budget(BOOK_LINE_NODES if self.in_book() else None):
            score, columns, length, from_book = solver.solve_root(
                self.current, self.mask, self.moves, self.rng.getrandbits(31), s.line,
                s.table, ctl, s.book, s.scratch,
            )  # fmt: skip
        if score == solver.STOPPED:
            assert fallback is not None  # only a watched search can be stopped
            return self.result(fallback, move_scores)
        pv = _line(s.line, length)
        scores = None
        if move_scores:
            optimal = columns if from_book else 0
            scores = self.exact_column_scores(fallback, score, optimal)
        extra = {"engine": "numba", "book": from_book}
        best = SearchResult(pv[0], score, True, pv, self.nodes, self.empties, self.elapsed_ms(),
                            self.algorithm, scores, self.stopped(), extra)  # fmt: skip
        if progress is None:
            return best
        self.report(progress, best)
        return self.result(best, move_scores)

    def in_book(self) -> bool:
        """Whether the book answers this position (its score and optimal columns)."""
        s = self.state
        if self.moves > s.ctl[c.BOOK_PLIES]:
            return False
        return bool(book_.entry_columns(book_.probe(s.book, self.current + self.mask)))

    @contextmanager
    def node_budget(self, nodes: int | None) -> Iterator[None]:
        """Stop the kernel after ``nodes`` more nodes (None: no budget of its own).

        The search's own node limit still applies; when the budget (not the
        search's limit) stops the kernel, the stop flag is lowered again after.
        """
        ctl = self.state.ctl
        limit = int(ctl[c.NODE_LIMIT])
        if nodes is None:
            yield
            return
        own = int(ctl[c.NODES]) + nodes
        ctl[c.NODE_LIMIT] = own if not limit else min(limit, own)
        try:
            yield
        finally:
            if ctl[c.STOP] == c.STOP_NODES and (not limit or ctl[c.NODES] < limit):
                ctl[c.STOP] = 0
            ctl[c.NODE_LIMIT] = limit

    def exact_column_scores(
        self, fallback: SearchResult | None, score: int, book_columns: int
    ) -> dict[str, MoveScore]:
        """Every column's exact score, or its heuristic one where the solve was stopped.

        ``book_columns``: the optimal columns of a position answered by the book
        (0 otherwise). They score ``score``; the other columns lead to positions
        the book does not hold, which may take minutes to solve this early, so
        each gets ``BOOK_CHILD_NODES`` nodes and keeps its heuristic score if
        that is not enough.
        """
        s, ctl = self.state, self.state.ctl
        scores: dict[str, MoveScore] = {}
        for col in self.legal:
            if book_columns >> col & 1:
                scores[str(col + 1)] = MoveScore(score, True)
                continue
            with self.node_budget(BOOK_CHILD_NODES if book_columns else None):
                value = solver.child_score(self.current, self.mask, self.moves, col,
                                           s.table, s.ctl, s.book, s.scratch)  # fmt: skip
            if value != solver.STOPPED:
                scores[str(col + 1)] = MoveScore(value, True)
            elif ctl[c.STOP]:  # the search's limits: the rest keep the heuristic scores
                break
        missing = [col for col in self.legal if str(col + 1) not in scores]
        if missing and fallback is None and not ctl[c.STOP]:
            fallback = self.depth_limited(True, None, FALLBACK_DEPTH)
        for col in missing:
            if fallback is not None and fallback.move_scores is not None:
                scores[str(col + 1)] = fallback.move_scores[str(col + 1)]
        return scores
