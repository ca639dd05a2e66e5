"""``new_game``: the positions it keeps, and the caller's own copy every time."""

from __future__ import annotations

import pytest

import webapp.games as games
from webapp.games import IllegalMoveError, forget_positions, new_game
from webapp.games.connect4 import Connect4


@pytest.fixture(autouse=True)
def _fresh() -> None:
    forget_positions()


def counted_plays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    plays: list[int] = []
    play = Connect4.play

    def counted(self: Connect4, move: int) -> None:
        plays.append(move)
        play(self, move)

    monkeypatch.setattr(Connect4, "play", counted)
    return plays


def test_each_caller_gets_a_position_of_its_own() -> None:
    first = new_game("connect4", "4455")
    first.play(0)
    assert new_game("connect4", "4455").history == [3, 3, 4, 4]
    second = new_game("connect4", "4455")
    second.undo()
    assert new_game("connect4", "4455").history == [3, 3, 4, 4]
    assert new_game("connect4", "44551").history == [3, 3, 4, 4, 0]
    assert new_game("connect4", "4455").history == [3, 3, 4, 4]  # not played on in place


def test_the_next_position_is_the_last_one_and_a_move(monkeypatch: pytest.MonkeyPatch) -> None:
    plays = counted_plays(monkeypatch)
    new_game("connect4", "4455")
    assert len(plays) == 4
    new_game("connect4", "4455")  # kept
    assert len(plays) == 4
    new_game("connect4", "44556")  # the kept one and a move
    assert plays[4:] == [5]
    new_game("connect4", "445566")
    assert plays[5:] == [5]
    forget_positions()
    new_game("connect4", "445566")  # none kept: the whole game
    assert len(plays) == 6 + 6


def test_a_bad_move_is_named_alike_whether_the_position_before_it_is_kept_or_not() -> None:
    with pytest.raises(IllegalMoveError) as cold:
        new_game("connect4", "4444444")
    new_game("connect4", "444444")
    with pytest.raises(IllegalMoveError) as kept:
        new_game("connect4", "4444444")
    assert str(kept.value) == str(cold.value) == "move 7 of '4444444': move '4': column 4 is full"
    with pytest.raises(IllegalMoveError, match="move 3 of '448'"):
        new_game("connect4", "448")
    assert new_game("connect4", "4444441").history[-1] == 0  # the kept one still good


def test_games_keep_their_positions_apart() -> None:
    assert new_game("tictactoe", "5").name == "tictactoe"
    assert new_game("connect4", "5").name == "connect4"
    assert new_game("tictactoe", "5").name == "tictactoe"


def test_at_most_positions_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(games, "POSITIONS_KEPT", 3)
    for moves in ["1", "2", "3", "4", "5"]:
        new_game("connect4", moves)
    assert list(games._positions) == [("connect4", m) for m in "345"]
    new_game("connect4", "3")  # used: the last to go now
    new_game("connect4", "6")
    assert list(games._positions) == [("connect4", m) for m in "536"]
