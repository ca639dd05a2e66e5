"""The review's classes: ``classify`` on exact values, and whole tic-tac-toe games with
known mistakes, valued by the pure-Python engine (an independent exact search)."""

from __future__ import annotations

from functools import cache

import pytest

from webapp.engine.review import PositionValue, classify, review_moves
from webapp.engine.search import search
from webapp.games import new_game


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (3, 3, "best"),
        (0, 0, "best"),
        (-2, -2, "best"),
        (3, 1, "inaccuracy"),  # still wins, later
        (-2, -3, "inaccuracy"),  # still loses, sooner
        (3, 0, "mistake"),  # a win thrown to a draw
        (0, -1, "mistake"),  # a draw thrown to a loss
        (3, -3, "blunder"),  # a win thrown to a loss
        (1, -18, "blunder"),
        (None, 0, None),  # no exact value: no class
        (0, None, None),
    ],
)
def test_classify(before: int | None, after: int | None, expected: str | None) -> None:
    assert classify(before, after) == expected


@cache
def exact_value(moves: str) -> PositionValue:
    """The position's exact value and its best moves, by the pure-Python engine."""
    result = search(new_game("tictactoe", moves), "alphabeta", move_scores=True, native=False)
    assert result.exact
    scores = result.move_scores or {}
    return PositionValue(
        result.score, True, tuple(m for m, s in scores.items() if s.score == result.score)
    )


def classes(moves: str) -> list[str | None]:
    return [entry["class"] for entry in review_moves(moves, exact_value)]


def test_x_blunders_a_win_into_a_loss() -> None:
    # X 1, 2 threatens 3 and O 4, 5 threatens 6: X plays 9 instead of winning at 3; O wins at 6.
    entries = review_moves("142596", exact_value)
    blunder = entries[4]
    assert (blunder["ply"], blunder["player"], blunder["move"]) == (5, 0, "9")
    assert blunder["class"] == "blunder"
    assert blunder["value_before"] == 3  # a win with X's third stone: 6 - 3
    assert blunder["value_after"] == -3  # O wins with its third stone
    assert blunder["best_moves"] == ["3"]
    assert entries[5]["class"] == "best"  # O takes the win


def test_x_throws_a_win_to_a_draw() -> None:
    assert classes("1425637")[4] == "mistake"  # 6 blocks O instead of winning at 3


def test_the_classic_first_mistakes() -> None:
    # After a corner, only the centre holds the draw; then O blocks 3 but 5 loses sooner.
    assert classes("14253") == ["best", "mistake", "best", "inaccuracy", "best"]


def test_a_drawn_game_is_all_best() -> None:
    assert classes("5137") == ["best"] * 4
    assert classes("51372")[-1] == "mistake"  # a draw thrown to a loss (O wins at 4)


def test_unknown_values_leave_moves_unclassified() -> None:
    known = {"": PositionValue(0, True, ("5",)), "5": PositionValue(0.02, False)}
    (entry,) = review_moves("5", known.get)
    assert entry["value_before"] == 0 and entry["value_after"] is None
    assert entry["class"] is None and entry["best_moves"] == ["5"]


def test_preset_moves_are_marked_and_judged_as_no_ones() -> None:
    """The issue's game: made from ``moves=1235947`` at Perfect. Its 4 (O's, a blunder had
    O played it here) and the rest were on the board when the game began."""
    entries = review_moves("12359476", exact_value, preset=7)
    assert [e["preset"] for e in entries] == [True] * 7 + [False]
    assert [e["class"] for e in entries[:7]] == [None] * 7
    assert classify(entries[5]["value_before"], entries[5]["value_after"]) == "blunder"
    assert entries[5]["player"] == 1  # still whose stone it is
    assert entries[7]["class"] == classes("12359476")[7] is not None  # a move of the game


def test_without_preset_moves_every_move_is_judged() -> None:
    entries = review_moves("14253", exact_value)
    assert not any(e["preset"] for e in entries)
    assert [e["class"] for e in entries] == classes("14253")
