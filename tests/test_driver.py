"""The one search driver (webapp/engine/driver.py) over both engines' primitives.

The pure-Python engine and the Connect Four kernel run through the same
driver, so they must agree on everything the driver decides: scores, every
root move's score, the move a seed picks, exactness, and where a stop lands.
Stops here are deterministic: a cancel flag that becomes set after a number
of looks, and a clock that advances by one tick per look.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tests.conftest import random_position
from tests.test_search import assert_pv_is_legal
from webapp.engine import driver, python_engine
from webapp.engine.search import Limits, Progress, SearchResult, search
from webapp.engine.table import LOWER, UPPER, TranspositionTable
from webapp.game_settings import merge_settings, search_limits
from webapp.games import new_game
from webapp.games.connect4_kernel.native import FALLBACK_DEPTH
from webapp.protocol import DEFAULT_SETTINGS


class CancelAfter:
    """A cancel flag that becomes set on its ``n``-th look (no clock, no thread)."""

    def __init__(self, n: int) -> None:
        self.looks, self.n = 0, n

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks >= self.n


class CancelOnceReported:
    """A cancel flag that becomes set once the search has reported ``depths`` depths: the
    native engine's watcher thread looks every few milliseconds, so a count of looks (a
    time) may come before any depth is done on a loaded machine; a count of depths never."""

    def __init__(self, seen: list[Progress], depths: int) -> None:
        self.seen, self.depths = seen, depths

    def is_set(self) -> bool:
        return len(self.seen) >= self.depths


def same_answer(a: SearchResult, b: SearchResult) -> None:
    assert (a.score, a.exact, a.depth, a.best_move) == (b.score, b.exact, b.depth, b.best_move)
    assert a.move_scores == b.move_scores


# -- both engines, one driver ------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
@pytest.mark.parametrize("extend", [False, True])
def test_both_engines_give_identical_answers_on_random_positions(
    algorithm: str, extend: bool
) -> None:
    rng = random.Random(10 + extend)
    for _ in range(12):
        game = random_position("connect4", rng.randrange(0, 30), rng)
        depth = rng.randrange(1, 5 if algorithm == "minimax" else 7)
        limits = Limits(depth=depth, extend=extend)
        kernel = search(game, algorithm, limits, move_scores=True, seed=3)
        python = search(game, algorithm, limits, move_scores=True, seed=3, native=False)
        assert kernel.extra["engine"] == "numba" and "engine" not in python.extra
        same_answer(kernel, python)
        for result in (kernel, python):
            assert result.pv.startswith(result.best_move or "-")
            assert_pv_is_legal(game, result.pv)


def test_the_kernel_solves_random_late_positions_as_the_python_reference() -> None:
    rng = random.Random(7)
    for _ in range(8):
        game = random_position("connect4", rng.randrange(26, 34), rng)
        kernel = search(game, "alphabeta", move_scores=True, seed=1)
        python = search(game, "alphabeta", move_scores=True, seed=1, native=False)
        assert kernel.exact and python.exact
        assert kernel.score == python.score and kernel.move_scores == python.move_scores
        assert_pv_is_legal(game, kernel.pv)
        assert_pv_is_legal(game, python.pv)


# -- honest minimax ----------------------------------------------------------------


@pytest.mark.slow
def test_perfect_minimax_tictactoe_through_the_web_settings_counts_the_whole_tree() -> None:
    settings = merge_settings({"algorithm": "minimax", "level": "perfect"}, DEFAULT_SETTINGS)
    limits = search_limits(settings, "tictactoe")
    result = search(new_game("tictactoe"), "minimax", limits, move_scores=True)
    assert result.nodes == 549_946
    assert result.exact and result.score == 0 and result.depth == 9
    assert result.stopped is None and not result.iterations_counted
    assert result.to_dict()["iterations_counted"] is False


def test_perfect_minimax_connect4_stops_at_the_cap_and_says_so() -> None:
    settings = merge_settings({"algorithm": "minimax", "level": "perfect"}, DEFAULT_SETTINGS)
    limits = search_limits(settings, "connect4")
    assert limits.depth == 7 and limits.capped
    seen: list[Progress] = []
    result = search(new_game("connect4"), "minimax", limits, progress=seen.append)
    assert result.depth == 7 and result.stopped == "depth"
    assert result.iterations_counted and [p.depth for p in seen] == list(range(1, 8))
    one_pass = search(new_game("connect4"), "minimax", Limits(depth=7))
    assert one_pass.nodes == 960_793 and not one_pass.iterations_counted
    assert result.nodes > one_pass.nodes and one_pass.stopped is None


def test_a_level_depth_below_the_cap_is_not_a_stop() -> None:
    settings = merge_settings({"algorithm": "minimax", "level": "easy"}, DEFAULT_SETTINGS)
    limits = search_limits(settings, "connect4")
    assert not limits.capped
    assert search(new_game("connect4"), "minimax", limits).stopped is None


# -- stops keep the last completed depth -------------------------------------------


@pytest.mark.parametrize("native_engine", [False, True])
def test_cancellation_keeps_the_last_completed_depth(native_engine: bool) -> None:
    seen: list[Progress] = []
    game = new_game("connect4", "4453")
    # The pure-Python engine looks at the flag itself, every few nodes: a count of looks.
    cancel = CancelOnceReported(seen, 3) if native_engine else CancelAfter(40)
    result = search(game, "alphabeta", Limits(depth=30), progress=seen.append, cancel=cancel,
                    native=native_engine)  # fmt: skip
    assert result.stopped == "cancelled" and seen
    assert result.depth == seen[-1].depth and result.score == seen[-1].score
    assert result.pv == seen[-1].pv and result.best_move == seen[-1].best_move
    assert_pv_is_legal(game, result.pv)


def test_a_stop_during_the_pv_walk_keeps_that_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(python_engine, "CHECK_EVERY", 1)
    cancel = CancelAfter(10**9)
    walk = python_engine.PythonEngine.principal_variation

    def cancelled_during_depth_5(self: python_engine.PythonEngine, first: int, value: int,
                                 depth: int) -> list[int]:  # fmt: skip
        if depth + 1 == 5:
            cancel.n = cancel.looks + 3  # a few nodes into the walk
        return walk(self, first, value, depth)

    monkeypatch.setattr(python_engine.PythonEngine, "principal_variation",
                        cancelled_during_depth_5)  # fmt: skip
    game = new_game("connect4", "4453")
    seen: list[Progress] = []
    result = search(game, "alphabeta", Limits(depth=9), progress=seen.append, cancel=cancel,
                    native=False)  # fmt: skip
    assert result.stopped == "cancelled"
    assert result.depth == 5 and seen[-1].depth == 5
    assert 1 <= len(result.pv) < 5 and result.pv[0] == result.best_move
    assert_pv_is_legal(game, result.pv)


def test_a_time_stop_keeps_the_last_completed_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = iter(range(10**9))
    monkeypatch.setattr(driver, "clock", lambda: float(next(ticks)))
    monkeypatch.setattr(python_engine, "CHECK_EVERY", 1)
    seen: list[Progress] = []
    game = new_game("connect4", "44")
    result = search(game, "alphabeta", Limits(time=3000), progress=seen.append, native=False)
    assert result.stopped == "time" and len(seen) >= 2
    assert result.depth == seen[-1].depth and result.pv == seen[-1].pv
    assert_pv_is_legal(game, result.pv)


def test_a_users_time_makes_minimax_deepen_so_a_stop_keeps_a_completed_depth() -> None:
    """Depth 9 in tic-tac-toe reaches the end of the game, so plain minimax would search it
    in one pass; under a time the user chose (``deepen``), a stop in that depth keeps the
    deepest completed one, not a depth-1 answer with the limits off."""
    seen: list[Progress] = []
    cancel = CancelOnceReported(seen, 3)  # stopped after depth 3, deterministically
    game = new_game("tictactoe")
    limits = Limits(depth=9, time=600.0, deepen=True)
    result = search(game, "minimax", limits, cancel=cancel, progress=seen.append)
    assert [p.depth for p in seen] == [1, 2, 3] and result.stopped == "cancelled"
    assert result.depth == 3 and result.pv == seen[-1].pv and result.iterations_counted
    one_pass: list[Progress] = []
    cancel = CancelOnceReported(one_pass, 0)  # the same stop: before the one pass is done
    result = search(game, "minimax", replace(limits, deepen=False), cancel=cancel,
                    progress=one_pass.append)  # fmt: skip
    assert result.depth == 1 and [p.depth for p in one_pass] == [1]  # a lone pass's answer


def test_a_stop_before_any_depth_still_answers_depth_one() -> None:
    for native_engine in (False, True):
        seen: list[Progress] = []
        result = search(new_game("connect4"), "minimax", Limits(depth=7, nodes=10),
                        native=native_engine, progress=seen.append)  # fmt: skip
        assert result.stopped == "nodes" and result.depth == 1
        assert result.best_move is not None and result.iterations_counted
        # Reported as any completed depth: the panel's table is never empty beside it.
        assert [(p.depth, p.best_move) for p in seen] == [(1, result.best_move)]


# -- table reuse ---------------------------------------------------------------------


def test_best_moves_are_kept_whatever_the_depth() -> None:
    table = TranspositionTable()
    table.put("p", 3, LOWER, 5, 2)
    assert table.get("p", 4) is None and table.best_move("p") == 2
    table.put("p", 4, UPPER, -5, 6)  # a fail-low's move is no better guess
    assert table.best_move("p") == 2


def test_iterative_deepening_orders_by_the_previous_depth() -> None:
    """With the move table, deepening costs fewer nodes than without it."""
    game = new_game("connect4", "4453")
    with_moves = search(game, "alphabeta", Limits(depth=8), native=False)

    class Forgetful(TranspositionTable):
        def best_move(self, key: object) -> int | None:
            return None

    without = search(game, "alphabeta", Limits(depth=8), native=False, table=Forgetful())
    assert with_moves.score == without.score
    assert with_moves.nodes < without.nodes


def test_the_estimates_the_solver_leaves_behind_say_how_deep_they_were_searched() -> None:
    """The scores' exact pass, stopped by its node budget part way through solving the
    root's moves one by one: the moves it solved are exact, each other one keeps the
    estimate of the heuristic pass that came first, marked with that pass's depth (the
    board says "depth 8", and a later pass knows it is no deeper)."""
    limits = Limits(nodes=300_000, line=False)
    result = search(new_game("connect4", "321571572542777"), "alphabeta", limits, move_scores=True)
    assert result.stopped == "nodes" and result.move_scores is not None
    exact = {m: s for m, s in result.move_scores.items() if s.exact}
    left = {m: s for m, s in result.move_scores.items() if not s.exact}
    assert exact and left  # part way
    assert {s.depth for s in left.values()} == {FALLBACK_DEPTH}
    assert all(s.depth is None for s in exact.values())
    sent = result.to_dict()["move_scores"]
    assert all(sent[m] == {"score": s.score, "exact": True} for m, s in exact.items())
    assert all(sent[m] == {"score": s.score, "exact": False, "depth": 8} for m, s in left.items())
