"""A traced search: the engine's own search, every node it visits logged in visit order.

The search explorer (``/tree``) draws what the engine did, so the trace is not
a second search written for pictures: ``TracedEngine`` subclasses the
pure-Python primitives (``PythonEngine``) and wraps each of its node
functions (``root_values``, ``minimax``, ``negamax``) around the inherited
one, and the one driver (``webapp.engine.driver.drive``) runs it exactly as
``search(..., native=False)`` runs the untraced engine. The untraced engine
pays nothing for this (not one check), and the trace's node count, root value,
best move and line equal the engine's (``tests/test_trace.py`` holds them
to it).

What a wrapper sees from outside the inherited code is enough to tell what
happened inside, because ``negamax`` has one shape: a node is a terminal
position, a horizon leaf (remaining depth 0), a transposition-table hit (any
other node with no child searched), or an inner node that searched its
children in order and broke off at the first value ``>= beta`` (a cut-off:
the moves after it are ``pruned``). The table's entries remember the node
that stored them, so a hit names the node it reused.

# Visit order and parents
Nodes are numbered in the order the engine counted them. A node's parent is
the latest node of its iteration one move up its line, which is the node
whose search called it; the principal-variation walk after each
alpha-beta iteration (short re-searches that check the line, ``line``) hangs
under the nodes of the line it walks. Every iteration of iterative deepening
starts a new root (``iteration`` is its depth).

# Passes
``iterations`` lists each pass of iterative deepening (minimax makes one) as
``{depth, nodes, complete}``: ``nodes`` are that pass's own (its root's search
and the line walk after it), so they add up to ``node_count``. The last pass
alone is what one search to that depth costs; the sum is what iterative
deepening paid, table hits and all. A truncated trace's last pass is
``complete: False``.

# Bounds
``limit`` nodes at most: the next node raises ``TraceFull`` out of the driver,
and the trace says ``truncated``, keeping the last completed iteration's
answer (if any).
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.driver import Budget, drive
from webapp.engine.game import Game, Move
from webapp.engine.python_engine import PythonEngine
from webapp.engine.results import ALGORITHMS, CancelFlag, Limits, Progress
from webapp.engine.scores import INFINITY, is_decisive, to_public
from webapp.engine.table import EXACT, LOWER, Entry, TranspositionTable

#: Nodes a trace records unless asked otherwise, and the most it ever may. The default
#: holds the suggested comparisons whole: tic-tac-toe minimax from two stones (7,332
#: nodes) and Connect Four minimax to depth 4 (2,801 from the empty board).
DEFAULT_LIMIT = 10_000
MAX_LIMIT = 50_000
ORDERINGS = ("engine", "natural")


class TraceFull(Exception):
    """The trace reached its node limit (raised past the driver, which only catches Stop)."""


@dataclass
class TracedNode:
    """One visited node. Values and windows are internal, from the side to move there."""

    id: int
    parent: int | None
    move: Move | None
    ply: int  # moves from the root
    alpha: int | None  # None: minimax (no window)
    beta: int | None
    iteration: int
    line: bool  # visited by the principal-variation walk
    value: int | None = None  # None until the node returns
    bound: str | None = None  # "exact", "lower" or "upper", from the side to move
    cut: bool = False
    tt_hit: int | None = None  # the node whose stored result this one reused
    kind: str = "open"  # "terminal", "leaf", "hit", "inner", "root"
    size: int = 0  # nodes its own search visited, itself included (ids id .. id + size - 1)
    children: list[Move] = field(default_factory=list)  # searched, in order
    pruned: list[Move] = field(default_factory=list)  # never searched: the cut-off's reason


class Recorder:
    """The nodes of one traced search, and which node is where on the board."""

    def __init__(self, game: Game, limit: int) -> None:
        self.game, self.limit = game, limit
        self.root_ply = game.moves_played
        self.nodes: list[TracedNode] = []
        self.latest: dict[tuple[Move, ...], int] = {}  # a line from the root -> its latest node
        self.iteration = 0
        self.line = False

    def path(self) -> tuple[Move, ...]:
        return tuple(self.game.history[self.root_ply :])

    def open(self, alpha: int | None, beta: int | None) -> TracedNode:
        """Log the node the game stands on; its parent is the latest node one move up."""
        if len(self.nodes) >= self.limit:
            raise TraceFull
        path = self.path()
        if not path:
            self.latest = {}  # a new iteration: its own tree
        parent = self.latest.get(path[:-1]) if path else None
        node = TracedNode(
            len(self.nodes), parent, path[-1] if path else None, len(path),
            alpha, beta, self.iteration, self.line,
        )  # fmt: skip
        if parent is not None and self.nodes[parent].value is None:  # its own search's child
            self.nodes[parent].children.append(path[-1])
        self.nodes.append(node)
        self.latest[path] = node.id
        return node

    def current(self) -> int | None:
        """The node the game stands on (the one storing a table entry)."""
        return self.latest.get(self.path())


class RecordingTable(TranspositionTable):
    """The engine's table, remembering which node stored each entry."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder
        self.stored_by: dict[tuple[Hashable, int], int | None] = {}
        self.last_hit: tuple[int, int | None] | None = None  # (flag, storing node) of the last get

    def get(self, key: Hashable, depth: int) -> Entry | None:
        entry = super().get(key, depth)
        self.last_hit = None if entry is None else (entry[0], self.stored_by.get((key, depth)))
        return entry

    def put(self, key: Hashable, depth: int, flag: int, value: int, move: Move) -> None:
        super().put(key, depth, flag, value, move)
        self.stored_by[(key, depth)] = self.recorder.current()


class TracedEngine(PythonEngine):
    """``PythonEngine`` whose every node is logged by ``recorder`` (see the module docstring)."""

    def __init__(
        self,
        game: Game,
        recorder: Recorder,
        natural: bool = False,
        cancel: CancelFlag | None = None,
    ) -> None:
        self.recorder = recorder
        self.recording_table = RecordingTable(recorder)
        super().__init__(game, Budget(Limits(), cancel), self.recording_table)
        if natural:
            self.game = NaturalOrder(game)

    def root_values(
        self, depth: int, algorithm: str, all_scores: bool, first: Move | None
    ) -> dict[Move, int]:
        self.recorder.iteration = depth
        window = (None, None) if algorithm == "minimax" else (-INFINITY, INFINITY)
        root = self.recorder.open(*window)
        values = super().root_values(depth, algorithm, all_scores, first)
        root.value, root.bound, root.kind = max(values.values()), "exact", "root"
        root.size = len(self.recorder.nodes) - root.id
        return values

    def principal_variation(self, first: Move, value: int, depth: int) -> list[Move]:
        self.recorder.line = True
        try:
            return super().principal_variation(first, value, depth)
        finally:
            self.recorder.line = False

    def minimax(self, depth: int) -> tuple[int, list[Move]]:
        node = self.recorder.open(None, None)
        value, line = super().minimax(depth)
        self._close(node, value, depth)
        return value, line

    def negamax(self, depth: int, alpha: int, beta: int) -> int:
        node = self.recorder.open(alpha, beta)
        value = super().negamax(depth, alpha, beta)
        self._close(node, value, depth)
        return value

    def _close(self, node: TracedNode, value: int, depth: int) -> None:
        """What the node turned out to be, read from what the inherited search did."""
        game = self.game
        node.value, node.bound = value, "exact"
        node.size = len(self.recorder.nodes) - node.id
        if game.is_terminal():
            node.kind = "terminal"
        elif depth == 0:
            node.kind = "leaf"
        elif not node.children:  # negamax returned before any child: a table hit
            hit = self.recording_table.last_hit
            assert hit is not None, "a node with no child must be a table hit"
            flag, node.tt_hit = hit
            node.kind = "hit"
            node.bound = "exact" if flag == EXACT else "lower" if flag == LOWER else "upper"
        else:
            node.kind = "inner"
            if node.alpha is not None and node.beta is not None:
                if value >= node.beta:
                    node.bound = "lower"
                    searched = set(node.children)
                    node.pruned = [m for m in game.legal_moves() if m not in searched]
                    node.cut = bool(node.pruned)
                elif value <= node.alpha:
                    node.bound = "upper"


class NaturalOrder:
    """A game whose "most promising first" order is its natural one: alpha-beta without
    the engine's move-ordering guesses (the table's best move still goes first)."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def ordered_moves(self) -> list[Move]:
        return self._game.legal_moves()


@dataclass
class Trace:
    """A traced search's answer: ``nodes`` as the API sends them (see ``node_dict``)."""

    nodes: list[dict[str, Any]]
    root_value: int | float | None
    exact: bool
    best_move: str | None
    pv: str
    node_count: int
    truncated: bool
    iterations: list[dict[str, Any]]  # {depth, nodes, complete} per pass (see "Passes")

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "root_value": self.root_value,
            "exact": self.exact,
            "best_move": self.best_move,
            "pv": self.pv,
            "node_count": self.node_count,
            "truncated": self.truncated,
            "iterations": self.iterations,
        }


def trace(
    game: Game,
    algorithm: str,
    depth: int,
    *,
    ordering: str = "engine",
    limit: int = DEFAULT_LIMIT,
    seed: int = 0,
    cancel: CancelFlag | None = None,
) -> Trace:
    """Search ``game`` (left unchanged) as ``search(game, algorithm, Limits(depth=depth),
    native=False, seed=seed)`` does, logging every node (at most ``limit``).

    ``cancel`` stops it as it stops a search (a worker's trace is cancelled or
    preempted like any job): the answer is then cut short and not to be shown.

    >>> from webapp.games import new_game
    >>> position = new_game("tictactoe", "1529")  # X to move, and cell 3 wins at once
    >>> found = trace(position, "minimax", 9)
    >>> found.node_count, found.best_move, found.root_value
    (162, '3', 3)
    >>> trace(position, "alphabeta", 9).node_count  # the win ends the deepening at depth 1
    6
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    if ordering not in ORDERINGS:
        raise ValueError(f"unknown ordering {ordering!r}")
    if depth < 1 or not 1 <= limit <= MAX_LIMIT:
        raise ValueError("depth must be at least 1 and limit within 1..MAX_LIMIT")
    if game.is_terminal():
        return Trace([], game.terminal_score(), True, None, "", 0, False, [])
    position = game.copy()
    recorder = Recorder(position, limit)
    engine = TracedEngine(position, recorder, natural=ordering == "natural", cancel=cancel)
    completed: list[Progress] = []
    limits = Limits(depth=depth)
    try:
        result = drive(
            engine, algorithm, limits, engine.budget, random.Random(seed), False, completed.append
        )
    except TraceFull:
        last = completed[-1] if completed else None
        return Trace(
            [node_dict(game, n) for n in recorder.nodes],
            None if last is None else last.score, bool(last and last.exact),
            None if last is None else last.best_move, "" if last is None else last.pv,
            len(recorder.nodes), True, passes(recorder.nodes, completed),
        )  # fmt: skip
    return Trace(
        [node_dict(game, n) for n in recorder.nodes], result.score, result.exact,
        result.best_move, result.pv, result.nodes, False, passes(recorder.nodes, completed),
    )  # fmt: skip


def passes(nodes: list[TracedNode], completed: list[Progress]) -> list[dict[str, Any]]:
    """Each pass's own nodes, in order (see "Passes" in the module docstring).

    >>> from webapp.games import new_game
    >>> traced = trace(new_game("tictactoe", "1529"), "alphabeta", 9)
    >>> traced.iterations
    [{'depth': 1, 'nodes': 6, 'complete': True}]
    """
    done = {p.depth for p in completed}
    counts: dict[int, int] = {}
    for node in nodes:
        counts[node.iteration] = counts.get(node.iteration, 0) + 1
    return [{"depth": d, "nodes": n, "complete": d in done} for d, n in counts.items()]


def public(value: int | None) -> int | float | None:
    """An internal value as the user sees it; None for no value or an infinite bound."""
    if value is None or abs(value) >= INFINITY:
        return None
    return to_public(value, is_decisive(value))


def node_dict(game: Game, node: TracedNode) -> dict[str, Any]:
    """A node as the API sends it: values from the root's side to move (Max), public scale.

    ``alpha``/``beta`` are None where the window is unbounded (or minimax has
    none); ``bound`` says whether ``value`` is the node's value (``exact``) or
    only a lower or upper bound on it, for Max.
    """
    flip = node.ply % 2 == 1  # Min's nodes: negate, and the window turns around
    value = None if node.value is None else -node.value if flip else node.value
    alpha, beta = node.alpha, node.beta
    if flip and alpha is not None and beta is not None:
        alpha, beta = -beta, -alpha
    bound = node.bound
    if flip and bound in ("lower", "upper"):
        bound = "upper" if bound == "lower" else "lower"
    return {
        "id": node.id,
        "parent": node.parent,
        "move": None if node.move is None else game.format_move(node.move),
        "depth": node.ply,
        "alpha": public(alpha),
        "beta": public(beta),
        "value": public(value),
        "exact": bound == "exact",
        "bound": bound,
        "cut": node.cut,
        "tt_hit": node.tt_hit,
        "iteration": node.iteration,
        "line": node.line,
        "kind": node.kind,
        "size": node.size,
        "pruned": [game.format_move(m) for m in node.pruned],
    }
