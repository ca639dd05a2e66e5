"""Rules, bitboard and notation of Connect Four (webapp/games/connect4.py)."""

from __future__ import annotations

import random

import pytest

from webapp.engine.game import IllegalMoveError
from webapp.games import new_game
from webapp.games.connect4 import Connect4, has_line, winning_cells


def test_columns_are_numbered_from_the_left_and_stones_fall() -> None:
    game = new_game("connect4", "4453")
    assert game.history == [3, 3, 4, 2]
    assert game.cell_owner(3, 0) == 0
    assert game.cell_owner(3, 1) == 1
    assert game.cell_owner(4, 0) == 0
    assert game.cell_owner(2, 0) == 1
    assert game.cell_owner(3, 2) is None
    assert game.to_move == 0


@pytest.mark.parametrize(
    ("moves", "reason"),
    [
        ("8", "not a column"),
        ("0", "not a column"),
        ("x", "not a column"),
        ("1111111", "column 1 is full"),
        ("12121213", "the game is over"),  # first player has four in column 1, then 3
    ],
)
def test_bad_moves_raise_one_error_naming_move_and_reason(moves: str, reason: str) -> None:
    with pytest.raises(IllegalMoveError, match=reason):
        new_game("connect4", moves)


def test_unknown_game_and_non_string_moves_are_rejected() -> None:
    from webapp.games import UnknownGameError

    with pytest.raises(UnknownGameError, match="chess"):
        new_game("chess")
    with pytest.raises(IllegalMoveError):
        new_game("connect4", 44)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("moves", "winner_stones"),
    [
        ("1212121", 4),  # vertical
        ("1122334", 4),  # horizontal
        ("12234334544", 6),  # diagonal up-right: columns 1-4 at heights 0-3
        ("76654554344", 6),  # diagonal up-left (the mirror image)
    ],
)
def test_lines_in_every_direction_end_the_game(moves: str, winner_stones: int) -> None:
    game = new_game("connect4", moves)
    assert game.is_terminal() and game.last_move_won()
    assert game.winner() == 0
    assert game.terminal_score() == -(22 - winner_stones)
    assert game.legal_moves() == []


def test_no_line_across_the_sentinel_row() -> None:
    # stones on top of column 1 and bottom of column 2 are adjacent bits only
    # without the sentinel: they must never count as a line.
    game = new_game("connect4", "1" * 6)
    assert not game.is_terminal()
    assert not has_line(1 << 5 | 1 << 7 | 1 << 9 | 1 << 11)


def test_full_board_without_a_line_is_a_draw() -> None:
    game = new_game("connect4", "547125662261271266215743771576315353334444")
    assert game.moves_played == 42
    assert game.is_terminal() and game.terminal_score() == 0 and game.winner() is None


def test_key_identifies_the_position_not_the_history() -> None:
    assert new_game("connect4", "4453").key() == new_game("connect4", "5344").key()
    assert new_game("connect4", "4453").key() != new_game("connect4", "4435").key()


def test_play_undo_round_trip_on_random_games() -> None:
    rng = random.Random(7)
    for _ in range(50):
        game = Connect4()
        keys = [game.key()]
        while not game.is_terminal():
            game.play(rng.choice(game.legal_moves()))
            keys.append(game.key())
        while game.history:
            assert game.key() == keys.pop()
            game.undo()
        assert game.key() == keys.pop() == 0


def test_ordered_moves_put_wins_then_blocks_first() -> None:
    game = new_game("connect4", "112233")  # first player to move, wins at column 4
    assert game.ordered_moves()[0] == 3
    game = new_game("connect4", "1122336")  # second player must block at column 4
    assert game.ordered_moves()[0] == 3
    assert sorted(game.ordered_moves()) == game.legal_moves()


def test_winning_cells_finds_the_open_end_of_three() -> None:
    game = new_game("connect4", "1727")  # first player holds columns 1 and 2 bottoms
    game.play(2)  # and 3: the bottom of column 4 completes the line
    last_mover = game.current ^ game.mask
    assert winning_cells(last_mover, game.mask) == 1 << (3 * 7)


def test_evaluation_favours_the_side_with_threats() -> None:
    game = new_game("connect4", "11223")  # second player to move, first player has 3 in a row
    assert game.evaluate() < 0
    assert new_game("connect4", "").evaluate() == 0


def test_copy_is_independent() -> None:
    game = new_game("connect4", "44")
    other = game.copy()
    other.play(0)
    assert game.history == [3, 3] and other.history == [3, 3, 0]
    assert game.key() != other.key()
