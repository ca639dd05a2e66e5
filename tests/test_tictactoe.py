"""Rules and notation of tic-tac-toe (webapp/games/tictactoe.py)."""

from __future__ import annotations

import pytest

from webapp.engine.game import IllegalMoveError
from webapp.games import new_game
from webapp.games.tictactoe import TicTacToe


def test_cells_are_numbered_row_by_row_from_the_top_left() -> None:
    game = new_game("tictactoe", "159")
    assert game.history == [0, 4, 8]
    assert [game.cell_owner(c) for c in (0, 4, 8, 1)] == [0, 1, 0, None]
    assert game.to_move == 1


@pytest.mark.parametrize(
    ("moves", "reason"),
    [
        ("0", "not a cell"),
        ("a", "not a cell"),
        ("1 ", "not a cell"),
        ("11", "cell 1 is taken"),
        ("1425367", "the game is over"),  # X completes 1-2-3 with its 3rd stone, then 6
    ],
)
def test_bad_moves_raise_one_error_naming_move_and_reason(moves: str, reason: str) -> None:
    with pytest.raises(IllegalMoveError, match=reason) as info:
        new_game("tictactoe", moves)
    assert isinstance(info.value, ValueError)


def test_a_bad_sequence_leaves_the_position_unchanged() -> None:
    game = new_game("tictactoe", "15")
    from webapp.engine.game import play_moves

    with pytest.raises(IllegalMoveError, match="move 2 of '95'"):
        play_moves(game, "95")
    assert game.history == [0, 4]


def test_play_rejects_non_moves() -> None:
    game = TicTacToe()
    for bad in (-1, 9, "5", None):
        with pytest.raises(IllegalMoveError):
            game.play(bad)  # type: ignore[arg-type]
    assert game.history == []


@pytest.mark.parametrize(
    ("moves", "score"),
    [
        ("14253", -3),  # X wins with its 3rd stone: 6 - 3, from O's side
        ("415273", -3),  # O takes 1-2-3 with its 3rd stone
        ("1425893", -2),  # X wins with its 4th stone
        ("123546879", 0),  # a full board, no line: a draw (verified below)
    ],
)
def test_terminal_scores_follow_the_convention(moves: str, score: int) -> None:
    game = new_game("tictactoe", moves)
    assert game.is_terminal()
    assert game.terminal_score() == score
    assert (game.winner() is None) == (score == 0)


def test_undo_restores_position_and_key() -> None:
    game = new_game("tictactoe", "52")
    key = game.key()
    game.play(0)
    assert game.key() != key
    assert game.undo() == 0
    assert game.key() == key
    with pytest.raises(IllegalMoveError):
        TicTacToe().undo()


def test_ordered_moves_put_wins_then_blocks_first() -> None:
    game = new_game("tictactoe", "1425")  # X: 1,2  O: 4,5 ; X to move
    ordered = game.ordered_moves()
    assert ordered[0] == 2  # cell 3 wins for X
    assert ordered[1] == 5  # cell 6 blocks O's 4-5-6
    assert sorted(ordered) == game.legal_moves()


def test_copy_is_independent() -> None:
    game = new_game("tictactoe", "5")
    other = game.copy()
    other.play(0)
    assert game.history == [4]
    assert other.history == [4, 0]


def test_evaluation_is_symmetric_between_the_sides() -> None:
    game = new_game("tictactoe", "5")
    assert game.evaluate() < 0  # O to move, X holds the centre
    assert new_game("tictactoe", "").evaluate() == 0
