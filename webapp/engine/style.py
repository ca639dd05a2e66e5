"""A level's way of playing: which of the scored root moves it plays.

Hard and Perfect play a best move (ties broken by the seeded generator). A
level with a ``Style`` plays like a person of some strength instead: it sees
every root move's score at its depth and

* plays any move *near* the best (within ``margin`` on the public heuristic
  scale of ``webapp.engine.scores``), so its games vary;
* with probability ``blunder`` plays a clearly weaker move on purpose;
* but never misses a win, nor plays into a loss while another move holds,
  that shows within ``sight`` plies: what a person of that strength sees. A
  sight of 2 takes a win in one and blocks a threat (Medium), yet may walk
  into a fork its search saw coming; a sight of 0 may miss anything (Easy).
  The moves are looked at again at that depth (a few nodes) when it is
  shallower than the search.

Proven wins and losses are near each other only when equal: a slower win is
a weaker move, not a variation. The result stays true (``styled``): it names
the move played with that move's own score and a line that starts with it,
and when that is not a best move, ``extra["style"]`` says why and
``extra["strongest"]`` what the search found best. ``choose`` is pure: the
same scores, style and generator state give the same move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from webapp.engine.game import Move
from webapp.engine.results import MoveScore, SearchResult, Stop
from webapp.engine.scores import WIN_BASE, is_decisive, to_internal, to_public

#: ``extra["style"]`` when the move played is near the best but scores less.
NEAR_EQUAL = "near-equal move"
#: ``extra["style"]`` when the move played is a weaker one, chosen on purpose.
WEAKER = "weaker move"


@dataclass(frozen=True)
class Style:
    """How a level chooses among its scored root moves (see the module docstring).

    ``margin`` is on the public heuristic scale (-1..1); ``blunder`` a probability.
    """

    margin: float = 0.0
    blunder: float = 0.0
    sight: int = 0

    def __post_init__(self) -> None:
        if not (0.0 <= self.margin < 1.0 and 0.0 <= self.blunder <= 1.0 and self.sight >= 0):
            raise ValueError(
                f"a style needs 0 <= margin < 1, 0 <= blunder <= 1, sight >= 0: {self}"
            )


@dataclass(frozen=True)
class Choice:
    """The move a style plays and why (None: it is a best move)."""

    move: str
    reason: str | None


def value(score: MoveScore) -> int:
    """A public score back on the search's internal scale (an order over every score)."""
    if score.exact:
        return to_internal(int(score.score))
    return round(float(score.score) * WIN_BASE)


def choose(
    scores: Mapping[str, MoveScore],
    style: Style,
    rng: random.Random,
    seen: Mapping[str, MoveScore] | None = None,
) -> Choice:
    """The move ``style`` plays among ``scores`` (every root move's score, none missing).

    ``seen``: the same moves' scores at ``style.sight`` plies (None: nothing is
    in sight). Draws from ``rng`` in a fixed order, so a seeded generator
    repeats the choice.
    """
    values = {move: value(score) for move, score in sorted(scores.items())}
    best = max(values.values())
    margin = round(style.margin * WIN_BASE)

    def near(v: int) -> bool:
        return v == best or (not is_decisive(v) and not is_decisive(best) and best - v <= margin)

    nearby = [m for m, v in values.items() if near(v)]
    weaker = [m for m, v in values.items() if not near(v)]
    sight = {move: value(score) for move, score in (seen or {}).items()}
    if any(v < -WIN_BASE for v in sight.values()) and any(v >= -WIN_BASE for v in sight.values()):
        weaker = [m for m in weaker if sight[m] >= -WIN_BASE]  # a loss in sight, and a way out
    win_in_sight = any(v > WIN_BASE for v in sight.values())
    if weaker and not win_in_sight and rng.random() < style.blunder:
        return Choice(rng.choice(weaker), WEAKER)
    move = rng.choice(nearby)
    return Choice(move, None if values[move] == best else NEAR_EQUAL)


class Lines(Protocol):
    """What ``styled`` needs of an engine (``driver.Primitives`` has it all)."""

    empties: int

    @property
    def nodes(self) -> int: ...

    def root_values(
        self, depth: int, algorithm: str, all_scores: bool, first: Move | None
    ) -> dict[Move, int]: ...

    def legal_moves(self) -> list[Move]: ...

    def format_moves(self, moves: Sequence[Move]) -> str: ...

    def principal_variation(self, first: Move, value: int, depth: int) -> list[Move]: ...


def styled(
    engine: Lines,
    result: SearchResult,
    style: Style,
    rng: random.Random,
    keep_scores: bool,
) -> SearchResult:
    """``result`` (a depth-limited search with every root move's score) as ``style`` plays it.

    The answer's ``best_move``, ``score``, ``exact`` and ``pv`` are those of
    the move played; ``nodes`` add the look in sight and the played move's
    line; ``move_scores`` stay only with ``keep_scores``.
    """
    scores = result.move_scores
    assert scores, "a style chooses among every root move's score"
    choice = choose(scores, style, rng, _in_sight(engine, result, style.sight))
    extra: dict[str, Any] = dict(result.extra)
    pv = result.pv
    if choice.move != result.best_move:
        by_name = {engine.format_moves([m]): m for m in engine.legal_moves()}
        first = by_name[choice.move]
        after = engine.principal_variation(first, -value(scores[choice.move]), result.depth - 1)
        pv = engine.format_moves([first, *after])
    if choice.reason is not None:
        extra["style"] = choice.reason
        extra["strongest"] = {"move": result.best_move, "score": result.score,
                              "exact": result.exact}  # fmt: skip
    played, nodes = scores[choice.move], engine.nodes
    return replace(
        result, best_move=choice.move, score=played.score, exact=played.exact, pv=pv,
        nodes=nodes, move_scores=scores if keep_scores else None, extra=extra,
        iterations_counted=result.iterations_counted or nodes > result.nodes,
    )  # fmt: skip


def _in_sight(engine: Lines, result: SearchResult, sight: int) -> dict[str, MoveScore] | None:
    """Every root move's score at ``sight`` plies: the search's own, or a look that deep."""
    if sight <= 0:
        return None
    if sight >= result.depth:
        return result.move_scores
    depth = min(sight, engine.empties)
    try:  # alpha-beta: same values as minimax, and minimax's own lines stay for the PV
        values = engine.root_values(depth, "alphabeta", True, None)
    except Stop:
        return None  # stopped (cancelled): the search's answer still stands
    return {
        engine.format_moves([m]): MoveScore(to_public(v, sure), sure)
        for m, v in values.items()
        for sure in [depth >= engine.empties or is_decisive(v)]
    }
