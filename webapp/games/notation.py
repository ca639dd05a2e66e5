"""Move sequences as people type them, and positions as people draw them.

A sequence is normalised to the one form the rest of the app keeps (``"4453"``):
spaces and commas between moves are dropped, and Connect Four columns may be
written as letters ``a``-``g`` (``"ddec"`` is ``"4453"``)::

    >>> normalize_moves("connect4", "4 4 5 3"), normalize_moves("connect4", "D d e C")
    ('4453', '4453')
    >>> normalize_moves("connect4", "1111111")
    Traceback (most recent call last):
    ...
    webapp.games.notation.NotationError: move 7 of '1111111': move '1': column 1 is full

A drawn position (``position_moves``) is a board of cells and the side to move;
it is refused with the reason (floating discs, counts, two winners), else
answered with a legal move order that reaches it, since the server and the
links only take move sequences.

Pure: the rules only (``webapp.games``), nothing from the web or the store.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from webapp.engine.game import Game, IllegalMoveError
from webapp.games import GAMES, UnknownGameError
from webapp.games.connect4 import has_line
from webapp.games.connect4_layout import H1, HEIGHT, WIDTH
from webapp.games.tictactoe import LINES

#: What may stand between two moves of a typed sequence.
SEPARATORS = re.compile(r"[\s,;.\-]+")
#: Connect Four's columns as letters, left to right (the gamesolver.org habit).
COLUMN_LETTERS = "abcdefg"
#: Why a Connect Four word with both letters and digits ("d4", a chess square) is refused.
MIXED = "letters and digits in one word: write the columns as 1-7 or as a-g"
#: The players' names by game, first player first (as the pages say them).
PLAYERS = {"connect4": ("Red", "Yellow"), "tictactoe": ("X", "O")}
#: A drawn board's cells: row by row from the top left, one character each.
CELL_MARKS = {"x": 0, "o": 1, ".": None}

Cells = Sequence[int | None]


class NotationError(IllegalMoveError):
    """A typed sequence that is not a legal game: the message names the move and why.

    ``ply`` is the 1-based number of the move refused, ``move`` its text as typed,
    ``reason`` a sentence's clause (``"column 1 is full"``). The message keeps the
    rules' own form (``webapp.engine.game.play_moves``), which the pages put in words.
    """

    def __init__(self, text: str, ply: int, move: str, reason: str) -> None:
        joiner = " " if reason.startswith("is ") else ": "
        super().__init__(f"move {ply} of '{text}': move '{move}'{joiner}{reason}")
        self.ply, self.move, self.reason = ply, move, reason

    def sentence(self) -> str:
        """The refusal as one sentence: ``Move 7 (1): column 1 is full.``"""
        reason = f"'{self.move}' {self.reason}" if self.reason.startswith("is ") else self.reason
        return f"Move {self.ply} ({self.move}): {reason}."


class PositionError(ValueError):
    """A drawn position no game can reach; the message says why."""


def _game(name: str) -> Game:
    try:
        return GAMES[name]()
    except (KeyError, TypeError):
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game {name!r} (known: {known})") from None


def _not_a_move(game: Game) -> str:
    """Why a character is no move of ``game`` at all."""
    if game.name == "connect4":
        return "is not a column (1-7 or a-g)"
    return "is not a cell (1-9)"


def normalize_moves(game_name: str, text: str) -> str:
    """``text`` as the app's move string, checked against the rules.

    Raises NotationError naming the first bad move (its number and text) and the
    reason: not a move, column full, cell taken, game already over.
    """
    game = _game(game_name)
    if not isinstance(text, str):
        raise IllegalMoveError("moves must be text, like 4453")
    if game.name == "connect4":  # "d4" is no pair of columns: refuse it rather than guess
        before = 0
        for word in SEPARATORS.split(text.strip()):
            if any(c in COLUMN_LETTERS for c in word.lower()) and any(c.isdigit() for c in word):
                raise NotationError(text, before + 1, word, MIXED)
            before += len(word)
    out: list[str] = []
    for ply, typed in enumerate(SEPARATORS.sub("", text.strip()), start=1):
        digit = typed
        if game.name == "connect4" and typed.lower() in COLUMN_LETTERS:
            digit = str(COLUMN_LETTERS.index(typed.lower()) + 1)
        try:
            move = game.parse_move(digit)
        except IllegalMoveError:
            raise NotationError(text, ply, typed, _not_a_move(game)) from None
        if game.is_terminal():
            raise NotationError(text, ply, typed, "the game is already over")
        if move not in game.legal_moves():
            noun = "column" if game.name == "connect4" else "cell"
            state = "full" if game.name == "connect4" else "taken"
            raise NotationError(text, ply, typed, f"{noun} {digit} is {state}")
        game.play(move)
        out.append(digit)
    return "".join(out)


# -- Drawn positions ------------------------------------------------------------------


def parse_cells(game_name: str, board: str) -> list[int | None]:
    """A drawn board written as text (``x``, ``o``, ``.`` per cell, rows top first)."""
    size = 42 if game_name == "connect4" else 9
    flat = re.sub(r"[\s/]+", "", board.lower())
    if len(flat) != size or any(mark not in CELL_MARKS for mark in flat):
        raise PositionError(f"A {game_name} board is {size} cells of x, o or '.', row by row.")
    return [CELL_MARKS[mark] for mark in flat]


def position_moves(game_name: str, cells: Cells, to_move: int) -> str:
    """A legal move string that reaches ``cells`` with ``to_move`` (0 or 1) to move.

    ``cells`` run row by row from the top left (0 first player, 1 second, None
    empty). Raises PositionError with the reason when no game reaches it.
    """
    game = _game(game_name)
    players = PLAYERS[game.name]
    width = WIDTH if game.name == "connect4" else 3
    if len(cells) != game.cells:
        raise PositionError(f"A {game.name} board has {game.cells} cells, not {len(cells)}.")
    counts = [sum(1 for c in cells if c == side) for side in (0, 1)]
    first, second = players
    if not counts[1] <= counts[0] <= counts[1] + 1:
        raise PositionError(
            f"{first} has {counts[0]} and {second} {counts[1]}: {first} moves first, "
            f"so {first} has as many as {second} or one more."
        )
    if game.name == "connect4":
        _check_floating(cells)
    mover = (counts[0] + counts[1]) % 2
    winners = [side for side in (0, 1) if _lines(game.name, cells, side)]
    if len(winners) == 2:
        raise PositionError(f"Both {first} and {second} have a line: one game has one winner.")
    if winners and winners[0] != 1 - mover:
        winner = players[winners[0]]
        raise PositionError(
            f"{winner} has a line, so the game ended on {winner}'s move, but the counts "
            f"say {players[1 - mover]} moved last."
        )
    if to_move != mover:
        raise PositionError(
            f"With {counts[0]} {first} and {counts[1]} {second}, {players[mover]} is to move, "
            f"not {players[to_move]}."
        )
    if game.name == "connect4" and counts[0] and 0 not in cells[(HEIGHT - 1) * WIDTH :]:
        raise PositionError(
            f"The first disc is {first}'s, so some {first} disc lies on the bottom row: none does."
        )
    try:
        order = _find_order(game.name, list(cells), width)
    except _TooTangled:
        raise PositionError(
            "This position takes too long to trace back to a start: "
            "type its moves instead, or draw a simpler one."
        ) from None
    if order is None:
        raise PositionError(
            "No order of moves reaches this position: every way back to the start makes "
            "a line before the last move, or needs a move out of turn."
        )
    return "".join(str(move + 1) for move in order)


def _check_floating(cells: Cells) -> None:
    for row in range(HEIGHT - 1):
        for col in range(WIDTH):
            if cells[row * WIDTH + col] is not None and cells[(row + 1) * WIDTH + col] is None:
                raise PositionError(
                    f"A disc floats in column {col + 1}: the cell under it is empty."
                )


def _lines(game_name: str, cells: Cells, side: int) -> bool:
    """True when ``side`` has a line on ``cells``."""
    if game_name == "tictactoe":
        stones = sum(1 << i for i, c in enumerate(cells) if c == side)
        return any(stones & line == line for line in LINES)
    stones = 0
    for i, c in enumerate(cells):
        if c == side:
            row, col = divmod(i, WIDTH)
            stones |= 1 << (col * H1 + (HEIGHT - 1 - row))
    return has_line(stones)


#: The most positions the backward search looks at before it gives up (a drawn board
#: can be built so that no order exists and every way back branches: a request's
#: thread must not spend seconds on it). Real positions need a few hundred at most.
STATES_SEARCHED = 5_000


class _TooTangled(Exception):
    """The backward search looked at ``STATES_SEARCHED`` positions without an answer."""


def _find_order(game_name: str, cells: list[int | None], width: int) -> list[int] | None:
    """Moves (0-based) reaching ``cells``, found backwards: take back the last stone.
    ``_TooTangled`` past ``STATES_SEARCHED`` positions."""
    failed: set[tuple[int | None, ...]] = set()
    searched = 0

    def removable(side: int) -> list[tuple[int, int]]:
        """(cell, move) pairs the last mover ``side`` could have played last."""
        if game_name == "tictactoe":
            return [(i, i) for i, c in enumerate(cells) if c == side]
        tops = []
        for col in range(width):
            for row in range(HEIGHT):
                if cells[row * WIDTH + col] is not None:
                    if cells[row * WIDTH + col] == side:
                        tops.append((row * WIDTH + col, col))
                    break
        return tops

    def back(stones: int) -> list[int] | None:
        if stones == 0:
            return []
        key = tuple(cells)
        if key in failed:
            return None
        nonlocal searched
        searched += 1
        if searched > STATES_SEARCHED:
            raise _TooTangled
        last = (stones - 1) % 2
        for cell, move in removable(last):
            cells[cell] = None
            # before the last move nobody had a line, else the game was already over
            if not (_lines(game_name, cells, 0) or _lines(game_name, cells, 1)):
                earlier = back(stones - 1)
                if earlier is not None:
                    cells[cell] = last
                    return [*earlier, move]
            cells[cell] = last
        failed.add(key)
        return None

    return back(sum(1 for c in cells if c is not None))
