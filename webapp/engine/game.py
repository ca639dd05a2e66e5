"""The one protocol every game implements, and the one error bad moves raise.

The search (``webapp.engine.search``) knows nothing but this protocol. A game
is a mutable position with a move history: ``play`` and ``undo`` are cheap,
``copy`` gives an independent position, ``key`` identifies the position for the
transposition table.

Moves are small integers inside the engine (0-based cells or columns) and
one-character strings outside it (1-based, ``"1"``..``"9"``). A sequence of
moves is written as the concatenation of the move strings: ``"4453"``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol, TypeVar

Move = int

G = TypeVar("G", bound="Game")


class IllegalMoveError(ValueError):
    """A move that cannot be played: bad text, out of range, occupied, or too late.

    The message names the move and the reason, e.g.
    ``move '8' is not a column (1-7)``.
    """


class Game(Protocol):
    """A two-player, zero-sum, perfect-information game position.

    Scores follow the convention in ``webapp.engine.scores``: always from the
    side to move.
    """

    #: Short name used in URLs, the CLI and the database: ``"connect4"``.
    name: str
    #: Number of cells on the board (the ``C`` of the score convention).
    cells: int
    #: The deepest plain minimax (no pruning) searches here, at a few seconds of
    #: pure Python or less: the server's cap and the CLI's default.
    minimax_max_depth: int

    @property
    def moves_played(self) -> int:
        """How many moves have been played from the empty board."""
        ...

    @property
    def history(self) -> list[Move]:
        """The moves played so far, oldest first."""
        ...

    def legal_moves(self) -> list[Move]:
        """Every legal move, in the game's natural order (empty if terminal)."""
        ...

    def ordered_moves(self) -> list[Move]:
        """Legal moves, most promising first (immediate wins, forced blocks, centre)."""
        ...

    def play(self, move: Move) -> None:
        """Play a legal move. Raise IllegalMoveError for anything else."""
        ...

    def undo(self) -> Move:
        """Take back the last move and return it."""
        ...

    def is_terminal(self) -> bool:
        """True when the game is over (a line is made or the board is full)."""
        ...

    def last_move_won(self) -> bool:
        """True when the player who made the last move has made a line."""
        ...

    def terminal_score(self) -> int:
        """The exact score of a finished game, from the side to move (<= 0)."""
        ...

    def evaluate(self) -> int:
        """Heuristic value from the side to move, within +-HEURISTIC_LIMIT."""
        ...

    def threats(self) -> tuple[list[Move], list[Move]]:
        """The moves that win at once for the side to move, and for the opponent.

        Depth-limited searches may extend such forcing positions at the horizon.
        """
        ...

    def key(self) -> Hashable:
        """A value that identifies the position (not its history)."""
        ...

    def copy(self: G) -> G:
        """An independent copy of the position and its history."""
        ...

    def parse_move(self, text: str) -> Move:
        """Parse one move written in the game's notation (legality not checked)."""
        ...

    def format_move(self, move: Move) -> str:
        """Write one move in the game's notation."""
        ...


def format_moves(game: Game, moves: Sequence[Move]) -> str:
    """Write a move sequence: the concatenation of its moves' notation."""
    return "".join(game.format_move(m) for m in moves)


def play_moves(game: G, text: str, start: int = 0) -> G:
    """Play every move of ``text`` on ``game`` (from the ``start``-th: the game is already
    after the ones before) and return it.

    On a bad move the game is left exactly as it was and IllegalMoveError
    names the move's position in the sequence.
    """
    played = 0
    try:
        for index, char in enumerate(text[start:], start):
            try:
                game.play(game.parse_move(char))
            except IllegalMoveError as err:
                raise IllegalMoveError(f"move {index + 1} of '{text}': {err}") from None
            played += 1
    except IllegalMoveError:
        for _ in range(played):
            game.undo()
        raise
    return game
