"""The search driver, one for every engine: what to search, when to stop, what to answer.

An engine supplies primitives (``Primitives``): the values of the root moves
at a depth, a principal variation, and optionally an exact solver
(``ExactSolver``). The pure-Python engine (``webapp.engine.python_engine``)
and the Connect Four kernel (``webapp.games.connect4_kernel.native``) are two
sets of primitives; everything below is written once for both, as Pons keeps
the driver in ``Solver`` and the primitives in ``Position``.

# Iterations
``alphabeta`` deepens 1, 2, ... and stops once its score (and, with
``move_scores``, every root move's score) is exact. ``minimax`` searches in
one pass when its depth reaches the end of the game or when it has no time
limit, so its node count is the minimax tree; only a time-limited minimax
with a horizon (or with ``Limits.deepen``: a time the user chose) deepens
iteratively (to keep a result when time runs out), and its result says
``iterations_counted``. ``alphabeta`` with no depth limit on
an engine with an exact solver solves instead (below).

# Limits
One ``Budget`` decides every stop: the node limit, then the cancel flag, then
the clock. Limits apply from the first node; if a stop lands before any depth
is complete, depth 1 is searched with the limits off (a handful of nodes), so
every search answers a legal move. A depth whose root values are complete is
kept even if the stop lands during its principal-variation walk (the line is
then cut short). The previous depth's best move is searched first.

# Exactness
A value is exact when the depth reached the end of every line
(depth >= empty cells) or when it is decisive (``scores.is_decisive``): a win
or loss found inside the horizon was searched to its end on every line.

# Ties
Equally good root moves are broken by a ``random.Random`` the caller seeds,
over the moves in their natural order, so a seed picks the same move in
every engine. A level with a ``Limits.style`` then plays its own way among
every root move's score (``webapp.engine.style``); exact solving always plays
a best move.

# Exact solving
With an ``ExactSolver`` and no depth limit, ``alphabeta`` first deepens to the
solver's ``fallback_depth`` when the search can be stopped or is watched (so a
stopped solve still has an answer), then asks the solver for the exact score,
its optimal moves and a line, and with ``move_scores`` each move's exact score
(a move the solver gives up on keeps its heuristic score; a search with limits
tries those again, ``patient``, with a larger budget of the solver's own). Without
``Limits.line`` (a pass that only shows scores) the line is the chosen move
alone, and with ``move_scores`` the moves are solved one by one as for
``root_moves`` (below): every move's score is wanted anyway, and the best of
them is the position's, so neither the position's own solve nor a proof of
its best move is worth its time (past an opening book, that line walk is a
solve at every ply).

# Root moves
``root_moves`` restricts the root to some of its moves: the best move, its
score and the move scores are then over those moves only. It is how the
exact scores of every root move are split between processes (root
splitting, ``webapp.services.split``): with an exact solver each move is
solved on its own (``child_score``), without the position's own solve,
unless the solver answers the position at once (an opening book), whose
optimal moves then take its score. Depth-limited searches still search the
whole root (their passes are cheap) and keep the given moves' values.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Protocol

from webapp.engine.game import Move
from webapp.engine.results import (
    CancelFlag,
    Limits,
    MoveScore,
    Progress,
    ProgressCallback,
    Pulse,
    PulseCallback,
    SearchResult,
    Stop,
)
from webapp.engine.scores import is_decisive, to_public
from webapp.engine.style import styled

#: The driver's clock; tests replace it to stop searches without waiting.
clock = time.perf_counter
#: Seconds between two pulses of a search under way (``Budget.pulse``).
PULSE_SECONDS = 0.5
#: ``Budget.phase`` during an exact solve (a depth-limited pass's phase is its depth).
SOLVING = "solving"


class Budget:
    """The limits of one search and the one rule that applies them.

    ``due(nodes)`` names the limit that is reached (nodes, then cancel, then
    time), or None. ``armed`` is False only for the depth-1 answer of a search
    stopped before any depth was complete. The first reason a search stops
    for stays in ``reason``.

    ``pulse(nodes, phase)``, called as the engine counts nodes, tells ``on_pulse`` how
    the search is going every ``PULSE_SECONDS`` while it is in a ``phase`` (the depth
    the driver is searching, or ``SOLVING``); the phase is None between them, so a
    line's walk, whose nodes a minimax result does not count, never pulses.
    """

    def __init__(
        self, limits: Limits, cancel: CancelFlag | None, on_pulse: PulseCallback | None = None
    ) -> None:
        self.start = clock()
        self.deadline = None if limits.time is None else self.start + limits.time
        self.node_limit = limits.nodes
        self.cancel = cancel
        self.armed = True
        self.reason: str | None = None
        self.on_pulse = on_pulse
        self.phase: int | str | None = None
        self.next_pulse = self.start + PULSE_SECONDS

    @property
    def stoppable(self) -> bool:
        return self.deadline is not None or self.cancel is not None or bool(self.node_limit)

    def due(self, nodes: int | None) -> str | None:
        if nodes is not None and self.node_limit is not None and nodes >= self.node_limit:
            return "nodes"
        if self.cancel is not None and self.cancel.is_set():
            return "cancelled"
        if self.deadline is not None and clock() >= self.deadline:
            return "time"
        return None

    def check(self, nodes: int) -> None:
        """Pulse if one is due, then raise Stop if armed and a limit is reached (the
        pure-Python engine's check)."""
        if self.on_pulse is not None:
            self.pulse(nodes, self.phase)
        if self.armed and self.poll(nodes):
            raise Stop

    def pulse(self, nodes: int, phase: int | str | None) -> None:
        """Tell ``on_pulse`` of the ``nodes`` searched so far, read in ``phase`` (read
        before them), if a pulse is due and the search is still in that phase."""
        if self.on_pulse is None or phase is None or phase != self.phase:
            return
        now = clock()
        if now < self.next_pulse:
            return
        self.next_pulse = now + PULSE_SECONDS
        depth = None if phase == SOLVING else int(phase)
        self.on_pulse(Pulse(depth, nodes, (now - self.start) * 1000.0))

    def poll(self, nodes: int | None) -> bool:
        """True (and the reason recorded) if armed and a limit is reached."""
        if not self.armed:
            return False
        reason = self.due(nodes)
        if reason is not None:
            self.reason = self.reason or reason
            return True
        return self.reason is not None

    @contextmanager
    def in_phase(self, phase: int | str) -> Iterator[None]:
        """Search in ``phase`` (a depth, or ``SOLVING``), between phases after it."""
        self.phase = phase
        try:
            yield
        finally:
            self.phase = None

    def elapsed_ms(self) -> float:
        return (clock() - self.start) * 1000.0


class ExactSolver(Protocol):
    """An engine's exact solver (alpha-beta with no depth limit)."""

    #: Depth of the heuristic pass run first when the solve may be stopped.
    fallback_depth: int

    def solve_root(
        self, pick: int, line: bool = True, whole: bool = False
    ) -> tuple[int, list[Move], list[Move], dict[str, Any]]:
        """``(exact score, optimal moves, a line starting with the chosen one, extra)``.

        ``pick`` (random) chooses the move among the optimal ones, each as
        likely. The optimal moves are all of them when the answer is known at
        once (``answers_at_once``), else at least the chosen one. Without
        ``line`` the line is the chosen move alone. ``whole``: the line is what
        is wanted, walked within the search's limits only (a solver may otherwise
        cut it short to answer at once). Raises Stop.
        """
        ...

    def child_score(self, move: Move, patient: bool = False) -> int | None:
        """The exact score of playing ``move``, or None if the solver gives up on it
        (its own budget, a larger one when ``patient``; the search's limits raise Stop)."""
        ...

    def answers_at_once(self) -> bool:
        """Whether ``solve_root`` answers without searching (an opening book's position)."""
        ...


class Primitives(Protocol):
    """What an engine supplies the driver. Values are on the internal scale."""

    empties: int
    solver: ExactSolver | None
    #: Added to every result's ``extra`` (e.g. ``{"engine": "numba"}``).
    extra: dict[str, Any]

    @property
    def nodes(self) -> int: ...

    def legal_moves(self) -> list[Move]: ...

    def format_moves(self, moves: Sequence[Move]) -> str: ...

    def root_values(
        self, depth: int, algorithm: str, all_scores: bool, first: Move | None
    ) -> dict[Move, int]:
        """Every legal root move's value at ``depth``, ``first`` searched first.

        With ``all_scores`` (or minimax) every value is exact at that depth;
        otherwise moves that tie the best are exact and the others are upper
        bounds below it, which is all the tie-break needs. Raises Stop.
        """
        ...

    def principal_variation(self, first: Move, value: int, depth: int) -> list[Move]:
        """The line after ``first`` (``value`` for the side to move after it) to ``depth``.

        Cut short, never raising, if the budget stops it.
        """
        ...


def drive(
    engine: Primitives,
    algorithm: str,
    limits: Limits,
    budget: Budget,
    rng: random.Random,
    move_scores: bool,
    progress: ProgressCallback | None,
    root_moves: Sequence[Move] | None = None,
) -> SearchResult:
    """Run one search over ``engine``'s primitives (see the module docstring).

    ``root_moves`` (legal moves, at least one): search the root as if only
    they were legal.
    """
    run = _Run(engine, algorithm, limits, budget, rng, progress, root_moves)
    if algorithm == "alphabeta" and limits.depth is None and engine.solver is not None:
        each = root_moves is not None or (move_scores and not limits.line)
        if each and not engine.solver.answers_at_once():
            return run.solve_each(engine.solver, move_scores)
        return run.solve(engine.solver, move_scores)
    if limits.style is not None:  # a level's way of playing, among every root move's score
        best = run.final(run.deepen(True), True)
        return styled(engine, best, limits.style, rng, move_scores)
    return run.final(run.deepen(move_scores), move_scores)


class _Run:
    def __init__(
        self,
        engine: Primitives,
        algorithm: str,
        limits: Limits,
        budget: Budget,
        rng: random.Random,
        progress: ProgressCallback | None,
        root_moves: Sequence[Move] | None = None,
    ) -> None:
        self.engine, self.algorithm, self.limits = engine, algorithm, limits
        legal = engine.legal_moves()
        self.root = legal if root_moves is None else [m for m in legal if m in root_moves]
        self.budget, self.rng, self.progress = budget, rng, progress
        self.passes = 0
        self.previous: Move | None = None  # the last completed depth's move

    def deepen(self, move_scores: bool, max_depth: int | None = None) -> SearchResult:
        """The completed depths of a depth-limited search; the deepest one."""
        engine, limits = self.engine, self.limits
        target = engine.empties if limits.depth is None else min(limits.depth, engine.empties)
        if max_depth is not None:
            target = min(target, max_depth)
        one_pass = self.algorithm == "minimax" and (
            limits.time is None or (target == engine.empties and not limits.deepen)
        )
        all_scores = move_scores or self.algorithm == "minimax"
        best: SearchResult | None = None
        for depth in range(target if one_pass else 1, target + 1):
            try:
                found = self.iteration(depth, all_scores)
            except Stop:
                break
            best = found
            self.report(best)
            everything_exact = best.exact and (
                not move_scores or all(s.exact for s in (best.move_scores or {}).values())
            )
            if (everything_exact and self.algorithm == "alphabeta") or self.budget.poll(
                engine.nodes
            ):
                break
        if best is None:  # stopped before any depth was complete: depth 1 is instant
            self.budget.armed = False
            best = self.iteration(1, all_scores)
            self.budget.armed = True
            self.report(best)  # a depth completed: the table shows it as any other
        return best

    def iteration(self, depth: int, all_scores: bool) -> SearchResult:
        engine = self.engine
        self.passes += 1  # a stopped pass's nodes count too
        with self.budget.in_phase(depth):  # not the line's walk next: not the depth's nodes
            values = engine.root_values(depth, self.algorithm, all_scores, self.previous)
        values = {move: value for move, value in values.items() if move in self.root}
        best = max(values.values())
        choice = self.rng.choice(sorted(m for m, v in values.items() if v == best))
        self.previous = choice
        line = [choice, *engine.principal_variation(choice, -best, depth - 1)]
        exhaustive = depth >= engine.empties
        exact = exhaustive or is_decisive(best)
        scores = None
        if all_scores:
            scores = {}
            for move in sorted(values):
                sure = exhaustive or is_decisive(values[move])
                scores[engine.format_moves([move])] = MoveScore(to_public(values[move], sure), sure)
        return SearchResult(
            engine.format_moves([choice]), to_public(best, exact), exact,
            engine.format_moves(line), engine.nodes, depth, self.budget.elapsed_ms(),
            self.algorithm, scores,
        )  # fmt: skip

    def report(self, result: SearchResult) -> None:
        if self.progress is not None:
            self.progress(Progress(result.depth, result.best_move or "", result.score,
                                   result.exact, result.pv, self.engine.nodes,
                                   self.budget.elapsed_ms()))  # fmt: skip

    def final(self, best: SearchResult, move_scores: bool) -> SearchResult:
        """``best`` as the search's answer: all nodes, the stop reason, the engine's extra."""
        stopped = self.budget.reason
        if (
            stopped is None
            and self.limits.capped
            and self.algorithm == "minimax"
            and not best.exact
            and best.depth < self.engine.empties
        ):
            stopped = "depth"
        return SearchResult(
            best.best_move, best.score, best.exact, best.pv, self.engine.nodes, best.depth,
            self.budget.elapsed_ms(), self.algorithm, best.move_scores if move_scores else None,
            stopped, self.engine.extra | best.extra, self.passes > 1,
        )  # fmt: skip

    # -- exact solving ------------------------------------------------------------
    def solve(self, solver: ExactSolver, move_scores: bool) -> SearchResult:
        engine, budget = self.engine, self.budget
        fallback = None
        if self.progress is not None or budget.stoppable:
            fallback = self.deepen(move_scores, solver.fallback_depth)
            if (fallback.exact and not move_scores) or budget.reason:
                return self.final(fallback, move_scores)
        with budget.in_phase(SOLVING):
            try:
                score, optimal, line, extra = solver.solve_root(
                    self.rng.getrandbits(31), self.limits.line, self.limits.whole_line
                )
            except Stop:
                assert fallback is not None  # only a stoppable search can be stopped
                return self.final(fallback, move_scores)
            self.passes += 1
            scores = (
                self.exact_scores(solver, score, optimal, extra, fallback) if move_scores else None
            )
        best = SearchResult(
            engine.format_moves(line[:1]), score, True, engine.format_moves(line), engine.nodes,
            engine.empties, budget.elapsed_ms(), self.algorithm, scores, extra=extra,
        )  # fmt: skip
        self.report(best)
        return self.final(best, move_scores)

    def exact_scores(
        self,
        solver: ExactSolver,
        score: int,
        optimal: list[Move],
        extra: dict[str, Any],
        fallback: SearchResult | None,
    ) -> dict[str, MoveScore]:
        """Every move's exact score, or its heuristic one where the solver gave up."""
        name = self.engine.format_moves
        known = set(optimal) if extra.get("book") else set()
        scores = {name([move]): MoveScore(score, True) for move in self.root if move in known}
        self.solve_moves(solver, [m for m in self.root if m not in known], scores, patient=False)
        missing = [m for m in self.root if name([m]) not in scores]
        if missing and self.budget.stoppable and self.budget.reason is None:
            # The moves given up on, again with the solver's larger budget (the cheap
            # ones came first, so a long one delays no other), till the limits stop it.
            self.solve_moves(solver, missing, scores, patient=True)
            missing = [m for m in missing if name([m]) not in scores]
        if missing and fallback is None and self.budget.reason is None:
            fallback = self.deepen(True, solver.fallback_depth)
        for move in missing:  # the heuristic's estimate, with the depth it reached
            if fallback is not None and fallback.move_scores is not None:
                estimate = fallback.move_scores[name([move])]
                depth = None if estimate.exact else fallback.depth  # a proof needs none
                scores[name([move])] = replace(estimate, depth=depth)
        return dict(sorted(scores.items()))

    def solve_moves(
        self, solver: ExactSolver, moves: list[Move], scores: dict[str, MoveScore], patient: bool
    ) -> None:
        """Each move's exact score into ``scores`` where the solver finds it, in order, until
        the search's limits stop it (the rest keep their heuristic scores)."""
        for move in moves:
            try:
                value = solver.child_score(move, patient=patient)
            except Stop:
                return
            if value is not None:
                scores[self.engine.format_moves([move])] = MoveScore(value, True)

    def solve_each(self, solver: ExactSolver, move_scores: bool) -> SearchResult:
        """The root moves solved one by one (``root_moves``, or every move when no line is
        wanted): the best of them, their scores."""
        engine, budget = self.engine, self.budget
        fallback = None
        if self.progress is not None or budget.stoppable:
            fallback = self.deepen(True, solver.fallback_depth)
            if budget.reason:
                return self.final(fallback, move_scores)
        with budget.in_phase(SOLVING):
            scores = self.exact_scores(solver, 0, [], {}, fallback)
        if not scores:  # stopped before the first move's score and without a fallback
            raise AssertionError("a search without limits cannot stop")
        best = max(s.score for s in scores.values())
        names = {engine.format_moves([m]): m for m in self.root}
        choice = self.rng.choice(sorted(names[n] for n, s in scores.items() if s.score == best))
        if not all(s.exact for s in scores.values()):  # the heuristic's best, the scores found
            fallback = fallback or self.deepen(True, solver.fallback_depth)
            return self.final(replace(fallback, move_scores=scores), move_scores)
        self.passes += 1
        name = engine.format_moves([choice])
        found = SearchResult(name, best, True, name, engine.nodes, engine.empties,
                             budget.elapsed_ms(), self.algorithm, scores)  # fmt: skip
        self.report(found)
        return self.final(found, move_scores)
