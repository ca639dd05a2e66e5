"""The scores on the board are the strongest analysis at every level (issue 16, part 1).

The level sets how the engine plays; the scores shown (``scores`` events,
``state["scores"]``, the engine's options) are exact wherever the solver
reaches, at Easy as at Perfect and with minimax as with alpha-beta. The values
are checked against an independent tic-tac-toe solver written here (a
memoized negamax over every reachable position), and a Connect Four position
against the pure-Python engine.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

from tests.web.holding_pool import (
    HoldingPool,
    Sent,
    pure_python_scores,
    scores_of,
    values,
)
from webapp import protocol
from webapp.game_settings import analysis_limits
from webapp.search_pool import Priority
from webapp.services import GameService
from webapp.services.live_scores import FIRST_TIME

#: A Connect Four position whose columns differ, solved in well under a second.
CONNECT4 = "1666425755643557763612254722"
LEVELS = ("easy", "medium", "hard", "perfect")
#: The eight lines of three, cells 0-8 row by row (restated here: the solver is independent).
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


# -- an independent tic-tac-toe solver -------------------------------------------------
def _winner(cells: tuple[int, ...]) -> int | None:
    for line in LINES:
        a, b, c = (cells[i] for i in line)
        if a != -1 and a == b == c:
            return a
    return None


@functools.cache
def _value(cells: tuple[int, ...]) -> int:
    """The exact score for the side to move (win with the k-th stone: 6 - k, as in
    ``webapp.engine.scores``: 9 cells, ``max_exact_score`` 6)."""
    return max((_after(cells, cell) for cell in range(9) if cells[cell] == -1), default=0)


def _after(cells: tuple[int, ...], cell: int) -> int:
    """The mover's score after playing ``cell``."""
    stones = sum(c != -1 for c in cells)
    mover = stones % 2
    board = (*cells[:cell], mover, *cells[cell + 1 :])
    if _winner(board) == mover:
        return 6 - (stones // 2 + 1)
    if stones + 1 == 9:
        return 0
    return -_value(board)


def reachable() -> dict[tuple[int, ...], str]:
    """Every position reachable in play and not over, with one move string leading there."""
    found: dict[tuple[int, ...], str] = {}
    todo = [((-1,) * 9, "")]
    while todo:
        cells, moves = todo.pop()
        if cells in found or _winner(cells) is not None or -1 not in cells:
            continue
        found[cells] = moves
        mover = len(moves) % 2
        for cell in range(9):
            if cells[cell] == -1:
                todo.append(((*cells[:cell], mover, *cells[cell + 1 :]), moves + str(cell + 1)))
    return found


def exact_options(cells: tuple[int, ...]) -> dict[str, tuple[int | float, bool]]:
    return {str(cell + 1): (_after(cells, cell), True) for cell in range(9) if cells[cell] == -1}


# -- the tests ---------------------------------------------------------------------------
@pytest.mark.slow
def test_every_reachable_tictactoe_position_at_easy_shows_the_exact_scores(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """All 4,520 positions, each through the live scores as a game at Easy shows them."""
    service, _, sent = games
    positions = reachable()
    assert len(positions) == 4520
    for cells, moves in positions.items():
        engine_plays = "second" if len(moves) % 2 == 0 else "first"  # the player is to move
        settings = {"level": "easy", "engine_plays": engine_plays}
        record = service.create("tictactoe", settings, moves, owner="me")
        final = service.searches.live.current(record.id, moves)
        assert final is not None and final["complete"], moves
        assert values(final) == exact_options(cells), moves
        service.searches.live.stop(record.id)
        sent.clear()


@pytest.mark.parametrize("algorithm", protocol.ALGORITHMS)
@pytest.mark.parametrize("level", LEVELS)
def test_the_scores_are_exact_at_every_level_with_either_algorithm(
    games: tuple[GameService, HoldingPool, Sent], level: str, algorithm: str
) -> None:
    service, pool, sent = games
    settings = {"level": level, "algorithm": algorithm}
    service.create("connect4", settings, CONNECT4, owner="me")
    final = scores_of(sent)[-1]
    assert final["moves"] == CONNECT4 and final["complete"]
    assert values(final) == pure_python_scores("connect4", CONNECT4)
    scored = [job for job in pool.submitted if job.tag[0] == "scores"]
    assert {job.algorithm for job in scored} == {"alphabeta"}
    # The strongest budget, not the level's: the first pass under FIRST_TIME, any later
    # one whole.
    exact = dataclasses.replace(analysis_limits("connect4"), line=False)
    assert scored[0].limits == dataclasses.replace(exact, time=FIRST_TIME)
    assert all(job.limits == exact for job in scored[1:])


def test_a_custom_level_shows_the_exact_scores_too(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, _, sent = games
    service.create("tictactoe", {"level": "custom", "depth": 1}, "15", owner="me")
    final = scores_of(sent)[-1]
    assert final["complete"] and values(final) == pure_python_scores("tictactoe", "15")


def test_at_easy_the_engines_options_are_finished_exactly_after_the_players_scores(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """The engine moved at Easy before its options' exact pass: that pass follows as lesser
    work, so the options kept with its move are exact (as at Perfect)."""
    service, pool, _ = games
    pool.hold.add("scores")
    record = service.create("tictactoe", {"level": "easy", "engine_plays": "first"}, owner="me")
    quick = pool.waiting[-1]
    pool.waiting.remove(quick)
    pool.finish_cut_short(quick)  # the options' first pass: estimates; their exact pass waits
    pool.release("engine")
    pool.release("scores")
    assert [job for job in pool.submitted if job.priority == Priority.ANALYSIS]
    stored = service.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    options = stored.last_engine_move["move_scores"]
    assert values({"move_scores": options}) == pure_python_scores("tictactoe", "")
