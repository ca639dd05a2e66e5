"""The compiled Connect Four kernel (webapp/games/connect4_kernel), checked against the
pure-Python engine, which stays the readable reference, and against the benchmark files.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import random_position, read_positions
from webapp.engine.search import Limits, Progress, search
from webapp.games import new_game
from webapp.games.connect4 import Connect4
from webapp.games.connect4_kernel import control, database, native, solver
from webapp.games.connect4_kernel import table as tt


@pytest.fixture
def no_book() -> Iterator[None]:
    """Search without the opening book and the 12-stone database, so early positions are
    really searched."""
    native.load_book(Path("/nonexistent/book.bin"))
    native.use_database(database.EMPTY)
    yield
    native.load_book()
    native.load_database()


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


@pytest.mark.parametrize(
    ("name", "count", "step"),
    [("Test_L3_R1", 12, 15), pytest.param("Test_L2_R1", 3, 60, marks=pytest.mark.slow)],
)
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


# -- the solver's table, symmetry and cut-offs ----------------------------------------


@pytest.mark.slow
def test_hard_early_positions_without_the_book_score_as_the_sample_says(no_book: None) -> None:
    """The two quickest of the hard sample (bench/hard.py): a few seconds each."""
    for moves, expected in read_positions("Hard_early")[2:4]:
        result = search(new_game("connect4", moves), "alphabeta", seed=1)
        assert (result.score, result.exact) == (expected, True), moves


def test_mirror_positions_share_the_table_and_keep_their_own_moves() -> None:
    """A position, then its mirror image in the same table: same score, mirrored columns."""
    state = native.KernelState(native.new_table(16))
    native.next_generation(state.table, state.ctl)
    answers, nodes = [], []
    line, expected = read_positions("Test_L1_R1", 1)[0]  # few stones: mirrors share entries
    for moves in (line, "".join(str(8 - int(m)) for m in line)):  # mirror images
        game = new_game("connect4", moves)
        current, mask, plies = np.uint64(game.current), np.uint64(game.mask), game.moves_played
        args = (state.table, state.ctl, state.book, state.scratch)
        before = int(state.ctl[control.NODES])
        score = solver.solve(current, mask, plies, *args)
        nodes.append(int(state.ctl[control.NODES]) - before)
        answers.append((score, solver.best_columns(current, mask, plies, score, *args)))
        assert score == expected
    (score, columns), (mirror_score, mirror_columns) = answers
    assert mirror_score == score
    assert nodes[1] < nodes[0] // 10  # the mirror image was answered from the table
    assert mirror_columns == sum(1 << (6 - c) for c in range(7) if columns >> c & 1)


def test_the_table_keeps_the_heavier_entry_of_a_bucket() -> None:
    table = native.new_table(4)
    ctl = control.new_control()
    native.next_generation(table, ctl)
    tags = [tt.tagged(np.uint64(k), tt.EXACT_DEPTH) for k in range(1, 5000)]
    heavy, light, newer = [t for t in tags if tt._bucket(ctl, t) == tt._bucket(ctl, tags[0])][:3]
    tt.store(table, ctl, heavy, tt.LOWER, 5, 1, 30)
    tt.store(table, ctl, light, tt.LOWER, 6, 2, 3)
    tt.store(table, ctl, newer, tt.UPPER, -1, 0, 2)  # takes the light one's slot only
    assert tt.entry_value(tt.probe(table, ctl, heavy)) == 5
    assert tt.probe(table, ctl, light) == 0
    assert tt.entry_value(tt.probe(table, ctl, newer)) == -1
    tt.store(table, ctl, light, tt.LOWER, 6, 2, 40)  # heavier: pushes the heavy one down
    assert tt.entry_value(tt.probe(table, ctl, light)) == 6
    assert tt.entry_value(tt.probe(table, ctl, heavy)) == 5
    assert tt.probe(table, ctl, newer) == 0


# -- root moves (a part of a split root search) ---------------------------------------


@pytest.mark.parametrize("book", [pytest.param(False, marks=pytest.mark.slow), True])
def test_root_moves_score_only_their_moves_and_as_the_whole_search(book: bool) -> None:
    """Each part's scores are the whole search's; the best move is the parts' best."""
    if not book:
        native.load_book(Path("/nonexistent/book.bin"))
    try:
        for moves in ("4453", *(m for m, _ in read_positions("Test_L2_R1", 3, 60))):
            game = new_game("connect4", moves)
            whole = search(game, "alphabeta", move_scores=True, seed=1)
            assert whole.move_scores is not None
            for hand in (("1", "3", "5", "7"), ("2", "4", "6")):
                legal = tuple(m for m in hand if m in whole.move_scores)
                part = search(game, "alphabeta", Limits(root_moves=legal), move_scores=True)
                assert part.move_scores == {m: whole.move_scores[m] for m in legal}, moves
                assert part.score == max(s.score for s in part.move_scores.values())
                assert part.best_move in legal and part.exact
    finally:
        native.load_book()


@pytest.mark.parametrize("book", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_scores_only_solve_gives_the_whole_search_scores_and_no_line(book: bool) -> None:
    """``Limits(line=False)`` (a scores pass): the same exact scores, score and a best move;
    no line past that move. With the book: "", "4453" and "7424" are book positions (the
    last holds only its score), the others lie past the book."""
    if not book:
        native.load_book(Path("/nonexistent/book.bin"))
    early = ("", "4453", "7424") if book else ()
    try:
        for moves in (*early, *(m for m, _ in read_positions("Test_L2_R1", 3, 60))):
            game = new_game("connect4", moves)
            whole = search(game, "alphabeta", move_scores=True, seed=1)
            only = search(game, "alphabeta", Limits(line=False), move_scores=True, seed=1)
            assert only.move_scores == whole.move_scores, moves
            assert (only.score, only.exact) == (whole.score, True), moves
            assert only.move_scores is not None and only.best_move is not None
            assert only.move_scores[only.best_move].score == only.score
            assert only.pv == only.best_move
            # without move scores: the score and an optimal move, still no line
            alone = search(game, "alphabeta", Limits(line=False), seed=1)
            assert (alone.score, alone.exact, alone.pv) == (whole.score, True, alone.best_move)
            assert alone.best_move in {m for m, s in whole.move_scores.items()
                                       if s.score == whole.score}, moves  # fmt: skip
    finally:
        native.load_book()


@pytest.mark.slow
def test_a_scores_only_solve_of_a_book_score_skips_the_line_past_the_book() -> None:
    """The player's position "7424" is in the book as a score, its moves as entries: the
    scores cost a few nodes, where the solve and its line go on past the book's last stone."""
    game = new_game("connect4", "7424")
    whole = search(game, "alphabeta", move_scores=True, seed=1)
    only = search(game, "alphabeta", Limits(line=False), move_scores=True, seed=1)
    assert only.move_scores == whole.move_scores
    assert only.nodes * 100 < whole.nodes


def test_root_moves_must_be_legal() -> None:
    with pytest.raises(ValueError, match="not a legal move"):
        search(new_game("connect4", "111111"), "alphabeta", Limits(root_moves=("1",)))
    with pytest.raises(ValueError, match="at least one"):
        search(new_game("connect4", ""), "alphabeta", Limits(root_moves=()))


def test_root_moves_of_a_depth_limited_search_keep_those_values() -> None:
    game = new_game("connect4", "4453")
    whole = search(game, "alphabeta", Limits(depth=5), move_scores=True)
    part = search(game, "alphabeta", Limits(depth=5, root_moves=("2", "6")), move_scores=True)
    assert whole.move_scores is not None
    assert part.move_scores == {m: whole.move_scores[m] for m in ("2", "6")}


def test_an_exact_search_draws_its_move_among_all_optimal_ones() -> None:
    """``pick_column`` tries columns in a seeded random order: every optimal one comes up."""
    for moves, _ in read_positions("Test_L2_R1", 40, 5):
        game = new_game("connect4", moves)
        scores = search(game, "alphabeta", move_scores=True).move_scores
        assert scores is not None
        best = max(s.score for s in scores.values())
        optimal = {m for m, s in scores.items() if s.score == best}
        if len(optimal) < 2:
            continue
        picks = {search(game, "alphabeta", seed=seed).best_move for seed in range(40)}
        assert picks == optimal, moves
        return
    pytest.fail("no position with two optimal moves in the sample")
