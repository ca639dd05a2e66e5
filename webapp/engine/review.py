"""Post-game review: each move's class from exact values, and the walk over a game.

A move is judged by two exact scores of the convention (``scores.py``), both
from the mover's side: the value of the position before it (what best play
would have kept) and the value after it (the negated score of the next
position, for the opponent to move). The classes are the issue's:

* ``best``:       keeps the best value;
* ``inaccuracy``: keeps the result (win, draw or loss) but wins slower or loses faster;
* ``mistake``:    a win thrown to a draw, or a draw to a loss;
* ``blunder``:    a win thrown to a loss.

Heuristic values judge nothing: a move without both exact values has no class.
Moves that were on the board when the game was made (a link with ``moves=``)
were played by neither side of this game: they are marked ``preset`` and judged
as no one's (no class). Nothing here searches; the caller hands over the values
it found (``Values``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BEST, INACCURACY, MISTAKE, BLUNDER = "best", "inaccuracy", "mistake", "blunder"
CLASSES = (BEST, INACCURACY, MISTAKE, BLUNDER)


def outcome(score: int) -> int:
    """+1 a win, 0 a draw, -1 a loss (an exact score's sign)."""
    return (score > 0) - (score < 0)


def classify(value_before: int | None, value_after: int | None) -> str | None:
    """The class of a move from the mover's exact values before and after it (None: unknown).

    >>> classify(3, 3), classify(3, 1), classify(3, 0), classify(3, -2), classify(0, -1)
    ('best', 'inaccuracy', 'mistake', 'blunder', 'mistake')
    """
    if value_before is None or value_after is None:
        return None
    if value_after >= value_before:  # never above with exact values: best play is the best
        return BEST
    drop = outcome(value_before) - outcome(value_after)
    return {0: INACCURACY, 1: MISTAKE, 2: BLUNDER}[drop]


@dataclass(frozen=True)
class PositionValue:
    """What an analysis found for one position, from the side to move there."""

    score: int | float
    exact: bool
    best_moves: tuple[str, ...] = ()

    @property
    def exact_score(self) -> int | None:
        return int(self.score) if self.exact else None


#: A position's value by its move string, or None when no analysis answered in time.
Values = Callable[[str], PositionValue | None]


def review_moves(moves: str, value_of: Values, preset: int = 0) -> list[dict[str, Any]]:
    """``[{ply, player, move, preset, value_before, value_after, best_moves, class}]``.

    ``ply`` counts from 1 (the first move); ``player`` 0 moves first (the side whose
    stone it is). Values are the mover's exact scores, None where unknown. The
    first ``preset`` moves were the game's start: ``preset`` true, class None.

    >>> values = {"": PositionValue(0, True, ("5",)), "1": PositionValue(1, True)}
    >>> review_moves("1", values.get)[0]["class"]
    'mistake'
    >>> review_moves("1", values.get, preset=1)[0]["class"] is None
    True
    """
    entries = []
    for index, move in enumerate(moves):
        before, after = value_of(moves[:index]), value_of(moves[: index + 1])
        value_before = None if before is None else before.exact_score
        after_score = None if after is None else after.exact_score
        value_after = None if after_score is None else -after_score
        entries.append(
            {
                "ply": index + 1,
                "player": index % 2,
                "move": move,
                "preset": index < preset,
                "value_before": value_before,
                "value_after": value_after,
                "best_moves": [] if before is None else list(before.best_moves),
                "class": None if index < preset else classify(value_before, value_after),
            }
        )
    return entries
