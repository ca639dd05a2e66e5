"""The compiled Connect Four kernel (webapp/games/connect4_kernel), checked against the
pure-Python engine, which stays the readable reference, and against the benchmark files.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import random_position, read_positions
from webapp.engine.search import Limits, Progress, search
from webapp.games import new_game
from webapp.games.connect4 import Connect4

native = pytest.importorskip("webapp.games.connect4_kernel.native")


@pytest.fixture
def no_book() -> Iterator[None]:
    """Search without the opening book, so early positions are really searched."""
    native.load_book(Path("/nonexistent/book.bin"))
    yield
    native.load_book()


def assert_legal_line(game: Connect4, pv: str) -> None:
    line = game.copy()
    for char in pv:
        line.play(line.parse_move(char))


def test_connect4_uses_the_kernel() -> None:
    game = Connect4()
    assert game.native_engine is not None
    result = search(new_game("connect4", "4453"), "alphabeta", Limits(depth=2))
    assert result.extra.get("engine") == "numba"
    slow = search(new_game("connect4", "4453"), "alphabeta", Limits(depth=2), native=False)
    assert "engine" not in slow.extra and slow.best_move == result.best_move


def test_missing_kernel_falls_back_to_pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    import webapp.games.connect4_kernel as kernel

    monkeypatch.setattr(kernel, "load_native", lambda: None)
    game = new_game("connect4", "4453")
    assert game.native_engine is None  # type: ignore[attr-defined]
    result = search(game, "alphabeta", Limits(depth=2))
    assert result.extra.get("engine") is None and result.best_move is not None


# -- exact scores -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "count", "step"),
    [("Test_L3_R1", 200, 1), ("Test_L2_R1", 200, 1), ("Test_L2_R2", 40, 5),
     ("Test_L1_R1", 100, 2)],
)  # fmt: skip
def test_exact_scores_match_the_benchmark_files(name: str, count: int, step: int) -> None:
    for moves, expected in read_positions(name, count, step):
        game = new_game("connect4", moves)
        result = search(game, "alphabeta", seed=1)
        assert (result.score, result.exact) == (expected, True), moves
        assert result.best_move == result.pv[0]
        assert_legal_line(game, result.pv)


@pytest.mark.parametrize(("name", "count", "step"), [("Test_L3_R1", 12, 15), ("Test_L2_R1", 3, 60)])
def test_exact_scores_match_pure_python(name: str, count: int, step: int) -> None:
    for moves, _ in read_positions(name, count, step):
        game = new_game("connect4", moves)
        fast = search(game, "alphabeta", move_scores=True)
        slow = search(game, "alphabeta", move_scores=True, native=False)
        assert (fast.score, fast.exact) == (slow.score, slow.exact), moves
        assert fast.move_scores == slow.move_scores, moves


def test_exact_move_scores_are_the_children_scores() -> None:
    for moves, expected in read_positions("Test_L2_R1", 6, 30):
        game = new_game("connect4", moves)
        result = search(game, "alphabeta", move_scores=True)
        assert result.move_scores is not None and result.score == expected
        assert max(s.score for s in result.move_scores.values()) == expected
        for column, score in result.move_scores.items():
            assert score.exact
            child = game.copy()
            child.play(int(column) - 1)
            if not child.is_terminal():
                assert search(child, "alphabeta").score == -score.score


def test_winning_and_lost_and_finished_positions() -> None:
    assert search(new_game("connect4", "112233"), "alphabeta").best_move == "4"
    lost = search(new_game("connect4", "33445"), "alphabeta")  # open three below
    assert lost.exact and lost.score == -(22 - 4)
    over = search(new_game("connect4", "1212121"), "alphabeta")
    assert over.best_move is None and over.score == -(22 - 4) and over.exact


# -- depth-limited search -------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
def test_depth_limited_scores_match_pure_python(algorithm: str) -> None:
    rng = random.Random(4)
    for _ in range(25):
        game = random_position("connect4", rng.randrange(0, 34), rng)
        depth = rng.randrange(1, 5 if algorithm == "minimax" else 6)
        fast = search(game, algorithm, Limits(depth=depth), move_scores=True)
        slow = search(game, algorithm, Limits(depth=depth), move_scores=True, native=False)
        assert (fast.score, fast.exact, fast.depth) == (slow.score, slow.exact, slow.depth), game
        assert fast.move_scores == slow.move_scores, game
        assert_legal_line(game, fast.pv)
        assert fast.pv[0] == fast.best_move
        if algorithm == "minimax":  # the same tree, node for node
            assert fast.nodes == slow.nodes, game


def test_minimax_and_alphabeta_agree_and_alphabeta_visits_fewer_nodes() -> None:
    game = new_game("connect4", "44")
    minimax = search(game, "minimax", Limits(depth=6))
    alphabeta = search(game, "alphabeta", Limits(depth=6))
    assert minimax.score == alphabeta.score
    assert alphabeta.nodes < minimax.nodes


def test_seed_breaks_ties_repeatably() -> None:
    game = new_game("connect4", "")
    picks = {search(game, "minimax", Limits(depth=1), seed=s).best_move for s in range(20)}
    again = {search(game, "minimax", Limits(depth=1), seed=s).best_move for s in range(20)}
    assert picks == again
    scores = search(game, "minimax", Limits(depth=1), move_scores=True).move_scores
    assert scores is not None
    best = max(s.score for s in scores.values())
    assert picks == {m for m, s in scores.items() if s.score == best}


def test_progress_reports_each_completed_depth() -> None:
    seen: list[Progress] = []
    result = search(new_game("connect4", "4453"), "alphabeta", Limits(depth=5),
                    progress=seen.append)  # fmt: skip
    assert [p.depth for p in seen] == [1, 2, 3, 4, 5]
    assert [p.nodes for p in seen] == sorted(p.nodes for p in seen)
    assert (seen[-1].best_move, seen[-1].score) == (result.best_move, result.score)


def test_exact_search_reports_heuristic_depths_then_the_exact_score() -> None:
    seen: list[Progress] = []
    moves, expected = read_positions("Test_L2_R2", 1)[0]
    result = search(new_game("connect4", moves), "alphabeta", progress=seen.append)
    assert seen[-1].exact and seen[-1].score == expected == result.score
    assert [p.depth for p in seen[:-1]] == list(range(1, len(seen)))


# -- limits -----------------------------------------------------------------------------


@pytest.mark.usefixtures("no_book")
def test_cancel_stops_with_the_best_completed_result() -> None:
    cancel = threading.Event()
    cancel.set()
    result = search(new_game("connect4", "43"), "alphabeta", cancel=cancel)
    assert result.stopped == "cancelled"
    assert result.depth >= 1 and result.best_move in "1234567" and not result.exact
    assert_legal_line(new_game("connect4", "43"), result.pv)


@pytest.mark.usefixtures("no_book")
def test_cancel_from_another_thread_stops_the_exact_solve() -> None:
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    result = search(new_game("connect4", "4"), "alphabeta", move_scores=True, cancel=cancel)
    timer.join()
    assert result.stopped == "cancelled" and result.best_move is not None
    assert result.move_scores is not None and len(result.move_scores) == 7


@pytest.mark.usefixtures("no_book")
def test_time_budget_stops_the_search() -> None:
    result = search(new_game("connect4", "4"), "alphabeta", Limits(time=0.1))
    assert result.stopped == "time" and result.best_move is not None and result.depth >= 1


@pytest.mark.usefixtures("no_book")
@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
def test_node_limit_stops_the_search(algorithm: str) -> None:
    limits = Limits(depth=12, nodes=20_000)
    result = search(new_game("connect4", "44"), algorithm, limits)
    assert result.stopped == "nodes" and result.best_move is not None
    assert 1 <= result.depth < 12
