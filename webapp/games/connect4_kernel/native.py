"""The kernel's primitives for the engine's one driver (``webapp.engine.driver``).

``webapp.engine.search.search`` opens a ``KernelEngine`` over a Connect Four
position (through ``Connect4.native_engine``) and drives it exactly as it
drives the pure-Python engine: the driver decides the iterations, the stops,
the tie-break and the exactness; the kernel only searches:

* ``root_values``: every root move's value at a depth (minimax or alpha-beta);
* ``principal_variation``: a line that keeps a value, cut short on a stop;
* ``solve_root`` / ``child_score`` (the ``ExactSolver``): exact solving with
  the opening book. A book answer is instant, but its line runs on past the
  book, where each move costs a solve: the line (unless it is what is wanted,
  ``whole``), and each non-optimal column's score, get a node budget of their
  own and may end early there.

Limits: the kernel counts nodes and checks the node limit and a stop flag
every ``control.CHECK_EVERY`` nodes; a watcher thread raises the flag when the
driver's ``Budget`` says a limit is due (time, cancel flag). The rule of which
limit applies when is the budget's, the same for both engines.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from webapp.engine.driver import Budget
from webapp.engine.results import Stop
from webapp.engine.scores import INFINITY
from webapp.games.connect4_kernel import book as book_
from webapp.games.connect4_kernel import control as c
from webapp.games.connect4_kernel import database as database_
from webapp.games.connect4_kernel import depth as dl
from webapp.games.connect4_kernel import solver
from webapp.games.connect4_kernel.sorter import new_scratch
from webapp.games.connect4_kernel.table import new_table, next_generation
from webapp.games.connect4_layout import CELLS, WIDTH

if TYPE_CHECKING:  # the rules import this package (``Connect4.native_engine``)
    from webapp.games.connect4 import Connect4

log = logging.getLogger(__name__)

#: Depth of the heuristic pass before an interruptible exact solve: milliseconds.
FALLBACK_DEPTH = 8
#: How often the watcher thread asks the budget whether a limit is due (seconds).
WATCH_INTERVAL = 0.002
#: Slots of the table used when the process's main table is busy (another thread).
SPARE_TABLE_BITS = 18
#: Nodes for solving each non-optimal column of a position answered by the book,
#: and for the principal variation past the book's last stone (~50 ms each).
BOOK_CHILD_NODES = 300_000
BOOK_LINE_NODES = 300_000
#: The second try at such a column (``child_score(patient=True)``): about a second.
PATIENT_CHILD_NODES = 8_000_000
_NO_VALUE = -(INFINITY + 1)
_REASON_CODES = {reason: code for code, reason in c.STOP_REASONS.items()}


@dataclass
class KernelState:
    """One search's working memory: table, control array, sort scratch, book."""

    table: np.ndarray
    ctl: np.ndarray = field(default_factory=c.new_control)
    scratch: np.ndarray = field(default_factory=new_scratch)
    line: np.ndarray = field(default_factory=lambda: np.zeros(CELLS + 1, dtype=np.int64))
    #: What the kernel probes: the book's entries and the database's, merged.
    book: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))

    def use(self, book: book_.Book, with_database: bool, merged: np.ndarray) -> None:
        """Probe ``merged``: the entries of ``book`` (and of the database, if with it)."""
        self.book = merged
        self.ctl[c.BOOK_PLIES] = book.plies if book.entries.size else -1
        self.ctl[c.DATABASE_PLIES] = database_.PLIES if with_database else -1


_main: KernelState | None = None
_main_lock = threading.Lock()
_book_loaded = False
_book = book_.EMPTY
_database_loaded = False
_database_status = database_.STATUS_MISSING
_with_database = False
#: The book's entries and the database's in one sorted array, as every search probes
#: them; the database's own array is not kept beside it (34 MB each).
_probe = np.zeros(0, dtype=np.uint64)


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
    global _book, _book_loaded, _probe
    _probe = database_.merge(book.entries, database_.without(_probe, _book.entries))
    _book, _book_loaded = book, True
    _refresh()
    return book


def _refresh() -> None:
    if _main is not None:
        _main.use(_book, _with_database, _probe)


def probe_entries() -> np.ndarray:
    """The book's entries and the database's in one sorted array, as every search probes."""
    return _probe


def load_database(source: Path | None = None, cache_dir: Path | None = None) -> str:
    """Load the 12-stone database (``database.read_database``); its status, as
    ``database_status`` then reports it. A missing or damaged database is logged in one
    line, and searches go on without it."""
    try:
        database = database_.read_database(source, cache_dir)
    except database_.DatabaseError as err:
        log.warning("12-stone database %s (%s); Connect Four will solve without it",
                    err.status, err)  # fmt: skip
        database = database_.Database(database_.EMPTY.entries, err.status)
    return use_database(database)


def use_database(database: database_.Database) -> str:
    """Probe ``database`` from now on (``database.EMPTY``: solve without it)."""
    global _database_loaded, _database_status, _with_database, _probe
    _probe = database_.merge(_book.entries, database.entries)
    _with_database = bool(database.entries.size)
    _database_loaded, _database_status = True, database.status
    _refresh()
    return database.status


def database_status() -> str:
    """``ok``, ``missing`` or ``damaged``: the database this process's searches use (loaded
    now if it was not yet)."""
    if not _database_loaded:
        load_database()
    return _database_status


def database_loaded() -> bool:
    return _database_loaded


def _state() -> tuple[KernelState, bool]:
    """The process's state (and True: release the lock after), or a small spare one."""
    global _main
    if not _book_loaded:
        load_book()
    if not _database_loaded:
        load_database()
    if _main_lock.acquire(blocking=False):
        if _main is None:
            _main = KernelState(new_table())
            _main.use(_book, _with_database, _probe)
        return _main, True
    spare = KernelState(new_table(SPARE_TABLE_BITS))
    spare.use(_book, _with_database, _probe)
    return spare, False


class _Watcher:
    """A thread that raises the stop flag when the budget says a limit is due, and
    pulses the budget with the kernel's node count (``Budget.pulse``)."""

    def __init__(self, ctl: np.ndarray, budget: Budget) -> None:
        self.ctl, self.budget = ctl, budget
        self.thread: threading.Thread | None = None
        if budget.deadline is not None or budget.cancel is not None or budget.on_pulse:
            self.done = threading.Event()
            self.thread = threading.Thread(target=self._run, name="c4-watch", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        ctl, budget = self.ctl, self.budget
        while not self.done.wait(WATCH_INTERVAL):
            if ctl[c.ARMED] and not ctl[c.STOP]:
                reason = budget.due(None)
                if reason is not None:
                    ctl[c.STOP] = _REASON_CODES[reason]
            if budget.on_pulse is not None:
                phase = budget.phase  # before the count: the count is that phase's
                try:
                    budget.pulse(int(ctl[c.NODES]), phase)
                except Exception:  # the listener is gone (a broken pipe): the stops go on
                    log.warning("a search's pulses stopped", exc_info=True)
                    budget.on_pulse = None

    def close(self) -> None:
        if self.thread is not None:
            self.done.set()
            self.thread.join()


@contextmanager
def open_engine(game: Connect4, budget: Budget, extend: bool = False) -> Iterator[KernelEngine]:
    """The kernel's primitives over ``game`` for one search, its table and watcher held."""
    state, owned = _state()
    try:
        ctl = state.ctl
        next_generation(state.table, ctl)
        ctl[c.STOP] = ctl[c.NODES] = 0
        ctl[c.ARMED] = 1
        ctl[c.NODE_LIMIT] = budget.node_limit or 0
        ctl[c.EXTEND] = int(extend)
        watcher = _Watcher(ctl, budget)
        try:
            yield KernelEngine(game, state, budget)
        finally:
            watcher.close()
    finally:
        if owned:
            _main_lock.release()


def solve_score(game: Connect4) -> tuple[int, int]:
    """``(exact score, nodes)`` of a position that is not over, with a clean table: the
    score alone, no move and no line (what solver benchmarks compare)."""
    state, owned = _state()
    try:
        ctl = state.ctl
        next_generation(state.table, ctl)
        ctl[c.STOP] = ctl[c.NODES] = ctl[c.NODE_LIMIT] = 0
        current, mask = np.uint64(game.current), np.uint64(game.mask)
        score = solver.solve(current, mask, game.moves_played, state.table, ctl, state.book,
                             state.scratch)  # fmt: skip
        return int(score), int(ctl[c.NODES])
    finally:
        if owned:
            _main_lock.release()


_COLUMN_NAMES = "1234567"


class KernelEngine:
    """The driver's primitives (and exact solver) over one position, as bitboards."""

    fallback_depth = FALLBACK_DEPTH

    def __init__(self, game: Connect4, state: KernelState, budget: Budget) -> None:
        self.state, self.budget = state, budget
        self.current, self.mask = np.uint64(game.current), np.uint64(game.mask)
        self.moves = game.moves_played
        self.empties = CELLS - self.moves
        self.legal = [col for col in range(WIDTH) if game.can_play(col)]
        self.extra: dict[str, Any] = {"engine": "numba"}
        self.solver = self
        self.algorithm = "alphabeta"
        self._in_book: bool | None = None

    @property
    def nodes(self) -> int:
        return int(self.state.ctl[c.NODES])

    def legal_moves(self) -> list[int]:
        return list(self.legal)

    def format_moves(self, moves: Sequence[int]) -> str:
        return "".join([_COLUMN_NAMES[m] for m in moves])

    # -- the budget ------------------------------------------------------------------
    def _enter(self) -> None:
        """Mirror the budget's arming; a disarmed call runs with the stop flag down."""
        ctl = self.state.ctl
        ctl[c.ARMED] = int(self.budget.armed)
        if not self.budget.armed:
            ctl[c.STOP] = 0

    def _stopped(self) -> bool:
        """Whether the last call was stopped (its reason handed to the budget)."""
        code = int(self.state.ctl[c.STOP])
        if code and self.budget.armed:
            self.budget.reason = self.budget.reason or c.STOP_REASONS[code]
        return bool(code)

    # -- depth-limited primitives ------------------------------------------------------
    def root_values(
        self, depth: int, algorithm: str, all_scores: bool, first: int | None
    ) -> dict[int, int]:
        s = self.state
        self._enter()
        self.algorithm = algorithm
        values = np.full(WIDTH, _NO_VALUE, dtype=np.int64)
        algo = dl.MINIMAX if algorithm == "minimax" else dl.ALPHABETA
        dl.root_values(self.current, self.mask, self.moves, depth, algo, all_scores,
                       -1 if first is None else first, values, s.table, s.ctl,
                       s.scratch)  # fmt: skip
        if self._stopped():
            raise Stop
        return {col: int(values[col]) for col in self.legal}

    def principal_variation(self, first: int, value: int, depth: int) -> list[int]:
        s = self.state
        self._enter()
        cell = np.uint64((int(self.mask) + (1 << (first * 7))) & ~int(self.mask))
        counted = int(s.ctl[c.NODES])
        length = dl.principal_variation(self.current ^ self.mask, self.mask | cell,
                                        self.moves + 1, depth, value, s.line, s.table,
                                        s.ctl, s.scratch)  # fmt: skip
        if self.algorithm == "minimax":
            # Minimax's line comes with its values in the pure-Python engine, for free;
            # here a replay finds it. Its nodes are not the minimax tree's: the count
            # stays the tree's size, as in the reference engine and the textbook.
            s.ctl[c.NODES] = counted
        self._stopped()
        return [int(m) for m in s.line[:length]]

    # -- the exact solver -------------------------------------------------------------
    def solve_root(
        self, pick: int, line: bool = True, whole: bool = False
    ) -> tuple[int, list[int], list[int], dict[str, Any]]:
        s = self.state
        self._enter()
        if not line:
            return self._solve_move(pick)
        # A book's answer is instant; its line past the book is not, and waits for no
        # one unless the line is what is wanted (``whole``: within the search's limits).
        with self.node_budget(BOOK_LINE_NODES if self.in_book() and not whole else None):
            score, columns, length, from_book = solver.solve_root(
                self.current, self.mask, self.moves, pick, s.line, s.table, s.ctl, s.book,
                s.scratch,
            )  # fmt: skip
        stopped = self._stopped()  # a stop in the line cuts it short but keeps the score
        if score == solver.STOPPED:
            assert stopped
            raise Stop
        optimal = [col for col in range(WIDTH) if columns >> col & 1]
        return score, optimal, [int(m) for m in s.line[:length]], {"book": from_book}

    def _solve_move(self, pick: int) -> tuple[int, list[int], list[int], dict[str, Any]]:
        """``solve_root`` without the line: the score and a chosen optimal column."""
        s = self.state
        if self.in_book():
            entry = book_.probe(s.book, self.current + self.mask)
            optimal = [col for col in range(WIDTH) if book_.entry_columns(entry) >> col & 1]
            return book_.entry_score(entry), optimal, [optimal[pick % len(optimal)]], {"book": True}
        score = solver.solve(self.current, self.mask, self.moves, s.table, s.ctl, s.book,
                             s.scratch)  # fmt: skip
        choice = -1
        if score != solver.STOPPED:
            choice = solver.pick_column(self.current, self.mask, self.moves, score, pick,
                                        s.table, s.ctl, s.book, s.scratch)  # fmt: skip
        if choice < 0:
            assert self._stopped()
            raise Stop
        return int(score), [choice], [choice], {"book": False}

    def child_score(self, move: int, patient: bool = False) -> int | None:
        s = self.state
        self._enter()
        budget = None
        if self.answers_at_once():
            budget = PATIENT_CHILD_NODES if patient else BOOK_CHILD_NODES
        with self.node_budget(budget):
            value = solver.child_score(self.current, self.mask, self.moves, move,
                                       s.table, s.ctl, s.book, s.scratch)  # fmt: skip
        if value != solver.STOPPED:
            return int(value)
        if self._stopped():
            raise Stop
        return None

    def in_book(self) -> bool:
        """Whether the book answers this position (its score and optimal columns)."""
        s = self.state
        if self.moves > s.ctl[c.BOOK_PLIES]:
            return False
        return bool(book_.entry_columns(book_.probe(s.book, self.current + self.mask)))

    def answers_at_once(self) -> bool:
        """The driver's question: the book answers this position. Its columns that are
        not optimal may lead past the book, where a solve is long: each gets a budget."""
        if self._in_book is None:
            self._in_book = self.in_book()
        return self._in_book

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
