"""Typed move sequences and drawn positions (webapp/games/notation.py)."""

from __future__ import annotations

import random

import pytest

from webapp.engine.game import Game, IllegalMoveError
from webapp.games import GAMES, UnknownGameError, new_game, notation
from webapp.games.notation import (
    NotationError,
    PositionError,
    normalize_moves,
    parse_cells,
    position_moves,
)


@pytest.mark.parametrize(
    ("game", "typed", "moves"),
    [
        ("connect4", "4453", "4453"),
        ("connect4", "4 4 5 3", "4453"),
        ("connect4", " 4,4, 5-3 ", "4453"),
        ("connect4", "ddec", "4453"),
        ("connect4", "D d E c", "4453"),
        ("connect4", "a g 4", "174"),
        ("connect4", "", ""),
        ("tictactoe", "5 1 9", "519"),
        ("tictactoe", "519", "519"),
    ],
)
def test_typed_sequences_are_normalised(game: str, typed: str, moves: str) -> None:
    assert normalize_moves(game, typed) == moves


@pytest.mark.parametrize(
    ("game", "typed", "message", "sentence"),
    [
        (
            "connect4",
            "1111111",
            "move 7 of '1111111': move '1': column 1 is full",
            "Move 7 (1): column 1 is full.",
        ),
        (
            "connect4",
            "a a a a a a a",
            "move 7 of 'a a a a a a a': move 'a': column 1 is full",
            "Move 7 (a): column 1 is full.",
        ),
        (
            "connect4",
            "44x",
            "move 3 of '44x': move 'x' is not a column (1-7 or a-g)",
            "Move 3 (x): 'x' is not a column (1-7 or a-g).",
        ),
        (
            "connect4",
            "448",
            "move 3 of '448': move '8' is not a column (1-7 or a-g)",
            "Move 3 (8): '8' is not a column (1-7 or a-g).",
        ),
        (
            "connect4",
            "h",
            "move 1 of 'h': move 'h' is not a column (1-7 or a-g)",
            "Move 1 (h): 'h' is not a column (1-7 or a-g).",
        ),
        (
            "connect4",
            "12121213",
            "move 8 of '12121213': move '3': the game is already over",
            "Move 8 (3): the game is already over.",
        ),
        (
            "connect4",
            "d4",  # a chess square, not columns 4 and 4
            "move 1 of 'd4': move 'd4': letters and digits in one word: "
            "write the columns as 1-7 or as a-g",
            "Move 1 (d4): letters and digits in one word: write the columns as 1-7 or as a-g.",
        ),
        (
            "connect4",
            "4 4 e5",
            "move 3 of '4 4 e5': move 'e5': letters and digits in one word: "
            "write the columns as 1-7 or as a-g",
            "Move 3 (e5): letters and digits in one word: write the columns as 1-7 or as a-g.",
        ),
        (
            "tictactoe",
            "11",
            "move 2 of '11': move '1': cell 1 is taken",
            "Move 2 (1): cell 1 is taken.",
        ),
        (
            "tictactoe",
            "1 0",
            "move 2 of '1 0': move '0' is not a cell (1-9)",
            "Move 2 (0): '0' is not a cell (1-9).",
        ),
        (
            "tictactoe",
            "5d",
            "move 2 of '5d': move 'd' is not a cell (1-9)",
            "Move 2 (d): 'd' is not a cell (1-9).",
        ),
        (
            "tictactoe",
            "1425367",  # X completes 1-2-3 with its 3rd stone, then 6
            "move 6 of '1425367': move '6': the game is already over",
            "Move 6 (6): the game is already over.",
        ),
    ],
)
def test_an_illegal_sequence_names_the_move_and_the_reason(
    game: str, typed: str, message: str, sentence: str
) -> None:
    with pytest.raises(NotationError) as raised:
        normalize_moves(game, typed)
    assert str(raised.value) == message
    assert raised.value.sentence() == sentence
    assert isinstance(raised.value, IllegalMoveError)  # one error for every bad move


def test_an_unknown_game_is_refused() -> None:
    with pytest.raises(UnknownGameError, match="unknown game 'chess'"):
        normalize_moves("chess", "1")


def cells_of(game: Game) -> list[int | None]:
    """The drawn board of ``game``: rows from the top, 0, 1 or None."""
    if game.name == "tictactoe":
        return [game.cell_owner(cell) for cell in range(9)]  # type: ignore[attr-defined]
    return [game.cell_owner(col, 5 - row) for row in range(6) for col in range(7)]  # type: ignore[attr-defined]


def test_every_random_position_is_reached_by_the_order_found() -> None:
    rng = random.Random(19)
    for _ in range(200):
        name = rng.choice(sorted(GAMES))
        game = GAMES[name]()
        while not game.is_terminal() and rng.random() > 0.03:
            game.play(rng.choice(game.legal_moves()))
        moves = position_moves(name, cells_of(game), game.moves_played % 2)
        assert cells_of(new_game(name, moves)) == cells_of(game)


def test_a_drawn_board_is_read_row_by_row_from_the_top() -> None:
    board = "... .x. o.."
    assert parse_cells("tictactoe", board) == [None] * 4 + [0, None, 1, None, None]
    assert position_moves("tictactoe", parse_cells("tictactoe", board), 0) == "57"
    connect4 = "." * 35 + "...xo.."
    assert position_moves("connect4", parse_cells("connect4", connect4), 0) == "45"


@pytest.mark.parametrize(
    ("game", "board", "to_move", "reason"),
    [
        ("tictactoe", "xxx xxx xxx", 0, "X has 9 and O 0: X moves first, so X has as many as O"),
        ("tictactoe", "ooo ... ...", 0, "X has 0 and O 3: X moves first"),
        ("tictactoe", "xxx ooo x..", 1, "Both X and O have a line: one game has one winner."),
        (
            "tictactoe",
            "xxx oo. o..",
            0,
            "X has a line, so the game ended on X's move, but the counts say O moved last.",
        ),
        ("tictactoe", "x.. ... ...", 0, "With 1 X and 0 O, O is to move, not X."),
        ("tictactoe", "... ... ...", 1, "With 0 X and 0 O, X is to move, not O."),
        (
            "connect4",
            "." * 34 + "x" + "." * 7,
            1,
            "A disc floats in column 7: the cell under it is empty.",
        ),
        (
            "connect4",
            "." * 28 + "xxxx..." + "xxxxooo",
            1,
            "Red has 8 and Yellow 3: Red moves first",
        ),
        (
            "connect4",
            "." * 28 + "oooo..." + "xxxx...",
            0,
            "Both Red and Yellow have a line",
        ),
        (
            # Red's two lines share no disc: the first made ended the game.
            "connect4",
            "." * 21 + "o......" + "oooxxxx" + "xxxxooo",
            1,
            "No order of moves reaches this position",
        ),
        (
            # The first disc is Red's, and it lies on the bottom row.
            "connect4",
            "." * 28 + "xx....." + "oo.....",
            0,
            "The first disc is Red's, so some Red disc lies on the bottom row: none does.",
        ),
        ("connect4", "x" * 41, 0, "A connect4 board is 42 cells of x, o or '.', row by row."),
        ("tictactoe", "xo? ... ...", 0, "A tictactoe board is 9 cells of x, o or '.', row by row."),
    ],
)
def test_an_impossible_position_is_refused_with_the_reason(
    game: str, board: str, to_move: int, reason: str
) -> None:
    with pytest.raises(PositionError) as raised:
        position_moves(game, parse_cells(game, board), to_move)
    assert str(raised.value).startswith(reason)


def test_a_board_too_tangled_to_trace_back_is_refused_in_bounded_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A board built so that no order exists and every way back branches (the quick check
    on the bottom row refuses this one first): the backward search gives up after
    ``STATES_SEARCHED`` positions, so a request's thread never spends seconds on it."""
    board = "..x...x/oox.oox/xxo.xxo/oox.oox/xxx.xxx/ooo.ooo"
    with pytest.raises(PositionError, match="The first disc is Red's"):
        position_moves("connect4", parse_cells("connect4", board), 0)
    with pytest.raises(notation._TooTangled):  # past the bound: given up
        notation._find_order("connect4", parse_cells("connect4", board), 7)
    monkeypatch.setattr(notation, "STATES_SEARCHED", 10**6)  # the whole search: no order
    assert notation._find_order("connect4", parse_cells("connect4", board), 7) is None
    real = parse_cells("connect4", "." * 35 + "...xo..")
    assert position_moves("connect4", real, 0) == "45"  # a real position needs a handful
