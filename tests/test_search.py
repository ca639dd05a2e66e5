"""The search (webapp/engine/search.py), checked against plain minimax and known values.

These tests run the pure-Python engine (``native=False``): it is the readable
reference that any faster implementation is checked against.
"""

from __future__ import annotations

import itertools
import random
import threading

import pytest

from tests.conftest import random_position, read_positions
from webapp.engine.game import Game
from webapp.engine.search import Limits, Progress, search
from webapp.games import new_game
from webapp.games.tictactoe import TicTacToe

# -- helpers ---------------------------------------------------------------------


def all_tictactoe_positions() -> list[TicTacToe]:
    """Every position reachable from the empty board, once each."""
    found: dict[int, TicTacToe] = {}

    def walk(game: TicTacToe) -> None:
        if game.key() in found:
            return
        found[game.key()] = game.copy()
        for move in game.legal_moves():
            game.play(move)
            walk(game)
            game.undo()

    walk(TicTacToe())
    return list(found.values())


def assert_pv_is_legal(game: Game, pv: str) -> Game:
    """Play ``pv`` on a copy of ``game`` (raises if any move is illegal) and return it."""
    line = game.copy()
    for char in pv:
        line.play(line.parse_move(char))
    return line


# -- tic-tac-toe: the whole game ------------------------------------------------


@pytest.mark.slow
def test_minimax_visits_549946_nodes_from_the_empty_board() -> None:
    result = search(TicTacToe(), "minimax", move_scores=True, native=False)
    assert result.nodes == 549_946
    assert result.score == 0 and result.exact
    assert result.depth == 9
    assert result.move_scores is not None
    assert set(result.move_scores) == set("123456789")
    assert all(s.score == 0 and s.exact for s in result.move_scores.values())


def test_alphabeta_solves_the_empty_board_with_far_fewer_nodes() -> None:
    result = search(TicTacToe(), "alphabeta", native=False)
    assert result.score == 0 and result.exact
    assert result.nodes < 549_946 // 10
    final = assert_pv_is_legal(TicTacToe(), result.pv)
    assert final.is_terminal() and final.terminal_score() == 0


@pytest.mark.slow
def test_alphabeta_agrees_with_minimax_on_every_reachable_position() -> None:
    for game in all_tictactoe_positions():
        if game.is_terminal():
            continue
        exact = search(game, "minimax", native=False)
        fast = search(game, "alphabeta", move_scores=True, native=False, seed=1)
        assert exact.exact and fast.exact
        assert fast.score == exact.score, game
        # the engine's move keeps the position's value: a win stays a win at
        # the same speed, a draw a draw.
        assert fast.best_move is not None and fast.move_scores is not None
        assert fast.move_scores[fast.best_move].score == exact.score
        after = game.copy()
        after.play(after.parse_move(fast.best_move))
        if not after.is_terminal():
            reply = search(after, "minimax", native=False)
            assert -reply.score == exact.score, game
        line = assert_pv_is_legal(game, fast.pv)
        assert line.is_terminal(), "an exact PV runs to the end of the game"
        assert (-1) ** len(fast.pv) * line.terminal_score() == exact.score


def test_immediate_win_is_taken_and_scores_prefer_fast_wins() -> None:
    game = new_game("tictactoe", "1425")  # X to move: 3 wins now
    result = search(game, "alphabeta", move_scores=True, native=False)
    assert result.best_move == "3"
    assert result.score == 3  # won with X's 3rd stone: 6 - 3
    assert result.move_scores is not None
    assert result.move_scores["3"].score == 3
    assert all(s.score < 3 for m, s in result.move_scores.items() if m != "3")


def test_a_move_that_loses_at_once_scores_worst() -> None:
    game = new_game("tictactoe", "152")  # X: 1, 2; O: 5. O to move must block cell 3
    result = search(game, "alphabeta", move_scores=True, native=False)
    assert result.move_scores is not None
    # every move that does not block cell 3 loses at once (-3)
    assert all(s.score == -3 for m, s in result.move_scores.items() if m != "3")
    assert result.best_move == "3" and result.score > -3


# -- Connect Four -----------------------------------------------------------------


@pytest.mark.parametrize(("moves", "expected"), read_positions("Test_L3_R1", 40, step=5))
def test_endgame_scores_match_the_benchmark(moves: str, expected: int) -> None:
    result = search(new_game("connect4", moves), "alphabeta", native=False)
    assert result.exact and result.score == expected


@pytest.mark.parametrize(("moves", "expected"), read_positions("Test_L2_R1", 8, step=25))
def test_middle_game_scores_match_the_benchmark(moves: str, expected: int) -> None:
    game = new_game("connect4", moves)
    result = search(game, "alphabeta", native=False)
    assert result.exact and result.score == expected
    line = assert_pv_is_legal(game, result.pv)
    if line.is_terminal():  # the PV reaches the end: it gives the result the score says
        assert (-1) ** len(result.pv) * line.terminal_score() == expected


@pytest.mark.parametrize("seed", range(12))
def test_alphabeta_and_minimax_agree_at_equal_depth(seed: int) -> None:
    rng = random.Random(seed)
    game = random_position("connect4", rng.randrange(0, 30), rng)
    depth = 1 + seed % 4
    mm = search(game, "minimax", Limits(depth=depth), move_scores=True, native=False)
    ab = search(game, "alphabeta", Limits(depth=depth), move_scores=True, native=False)
    assert ab.score == mm.score and ab.exact == mm.exact
    assert ab.move_scores == mm.move_scores
    assert mm.depth == depth
    # alpha-beta stops deepening early only once every score is exact
    all_exact = ab.exact and all(s.exact for s in (ab.move_scores or {}).values())
    assert ab.depth == depth or (ab.depth < depth and all_exact)
    assert ab.nodes <= mm.nodes * 2  # iterative deepening costs at most a fraction more
    for result in (mm, ab):
        line = assert_pv_is_legal(game, result.pv)
        assert len(result.pv) == result.depth or line.is_terminal()


def test_depth_limited_scores_are_heuristic_unless_decisive() -> None:
    game = new_game("connect4", "4453")
    result = search(game, "alphabeta", Limits(depth=3), move_scores=True, native=False)
    assert not result.exact
    assert -1 < result.score < 1
    game = new_game("connect4", "112233")  # a win in one is decisive at any depth
    result = search(game, "alphabeta", Limits(depth=2), native=False)
    assert result.exact and result.score == 22 - 4 and result.best_move == "4"


# -- the search's controls ------------------------------------------------------


def test_progress_reports_every_completed_depth() -> None:
    seen: list[Progress] = []
    game = new_game("connect4", "4453")
    result = search(game, "alphabeta", Limits(depth=6), progress=seen.append, native=False)
    assert [p.depth for p in seen] == [1, 2, 3, 4, 5, 6]
    assert all(a.nodes <= b.nodes for a, b in itertools.pairwise(seen))
    assert seen[-1].pv == result.pv and seen[-1].score == result.score
    for p in seen:
        assert_pv_is_legal(game, p.pv)


def test_cancel_returns_the_best_completed_depth() -> None:
    cancel = threading.Event()

    def stop_after_three(progress: Progress) -> None:
        if progress.depth == 3:
            cancel.set()

    game = new_game("connect4", "44")
    result = search(game, "alphabeta", progress=stop_after_three, cancel=cancel, native=False)
    assert result.stopped == "cancelled"
    assert result.depth == 3
    assert_pv_is_legal(game, result.pv)


def test_cancel_before_start_still_gives_a_legal_move() -> None:
    cancel = threading.Event()
    cancel.set()
    game = new_game("connect4", "")
    for algorithm in ("alphabeta", "minimax"):
        result = search(game, algorithm, cancel=cancel, native=False)
        assert result.best_move is not None and result.best_move in "1234567"
        assert result.depth >= 1


def test_node_limit_stops_the_search() -> None:
    result = search(new_game("connect4", ""), "alphabeta", Limits(nodes=3000), native=False)
    assert result.stopped == "nodes"
    assert result.depth >= 1 and not result.exact
    assert result.nodes < 3000 + 2000  # stops within one check interval of the limit


def test_time_limit_stops_the_search_with_a_completed_depth() -> None:
    result = search(new_game("connect4", ""), "alphabeta", Limits(time=1e-6), native=False)
    assert result.stopped == "time"
    assert result.depth >= 1
    assert result.best_move is not None


@pytest.mark.slow
def test_ties_are_broken_at_random_but_repeatably() -> None:
    game = TicTacToe()  # every first move draws
    moves = {search(game, "alphabeta", seed=s, native=False).best_move for s in range(30)}
    assert len(moves) > 1
    again = [search(game, "alphabeta", seed=5, native=False).best_move for _ in range(3)]
    assert len(set(again)) == 1


def test_a_finished_game_has_no_move() -> None:
    result = search(new_game("tictactoe", "14253"), "alphabeta", native=False)
    assert result.best_move is None and result.exact and result.score == -3


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown algorithm"):
        search(TicTacToe(), "expectimax")
    with pytest.raises(ValueError, match="depth"):
        search(TicTacToe(), "alphabeta", Limits(depth=0))
