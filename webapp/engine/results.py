"""What a search is asked (``Limits``) and what it answers (``SearchResult``, ``Progress``).

These types are the engine's public vocabulary: the worker processes send
``SearchResult.to_dict()`` to the web service as the ``engine_move`` payload,
and a ``Progress`` per completed depth as ``thinking``. Every engine returns
them through the one driver (``webapp.engine.driver``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from webapp.engine.style import Style

ALGORITHMS = ("minimax", "alphabeta")
#: Why a search ended before its scores were exact or its depth reached:
#: its time budget, its node budget, the cancel flag, or (minimax only) the
#: server's depth cap for the game (``Limits.capped``).
STOP_REASONS = ("time", "nodes", "cancelled", "depth")


class Stop(Exception):
    """Raised by a primitive when the budget stops it (the reason is on the budget)."""


class CancelFlag(Protocol):
    """Anything with ``is_set()``: threading.Event, multiprocessing.Event."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class MoveScore:
    """The value of one root move, from the side to move at the root.

    ``depth``: for an estimate the exact solver left behind (it gave up on that move
    within the limits) in an otherwise solved result, the depth of the heuristic search
    that gave it; None elsewhere (a result's estimates are at its own ``depth``)."""

    score: int | float
    exact: bool
    depth: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"score": self.score, "exact": self.exact}
        if self.depth is not None:
            data["depth"] = self.depth
        return data


@dataclass(frozen=True)
class Progress:
    """One completed depth of an iterative search (sent to the progress callback)."""

    depth: int
    best_move: str
    score: int | float
    exact: bool
    pv: str
    nodes: int
    elapsed_ms: float


ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class Pulse:
    """A search under way between its depths, sent every ``driver.PULSE_SECONDS`` (to the
    pulse callback) so a long depth or an exact solve is not silent: the depth it is
    searching (None: solving to the end of the game), the nodes it has searched so far
    (never more than its result will count) and its time so far."""

    depth: int | None
    nodes: int
    elapsed_ms: float


PulseCallback = Callable[[Pulse], None]


@dataclass(frozen=True)
class SearchResult:
    """What a search found. Moves are in the game's notation (``"4"``, ``"4453"``).

    ``depth`` is the last depth completed; ``nodes`` counts every position the
    search visited (every pass over the tree, and the principal-variation walk
    of alpha-beta); ``move_scores`` maps each legal root move to its value when
    asked for. ``iterations_counted`` is True when ``nodes`` sums more than one
    pass over the tree (iterative deepening, or the depth-1 answer after a
    stopped pass): then it is not the size of one minimax tree. A minimax
    search that ends in one pass to the end of the game counts exactly the
    minimax tree (549,946 nodes for tic-tac-toe from the empty board).
    """

    best_move: str | None
    score: int | float
    exact: bool
    pv: str
    nodes: int
    depth: int
    time_ms: float
    algorithm: str
    move_scores: dict[str, MoveScore] | None = None
    stopped: str | None = None  # one of STOP_REASONS if cut short
    extra: dict[str, Any] = field(default_factory=dict)
    iterations_counted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the protocol's ``engine_move`` payload)."""
        data = asdict(self)
        data["time_ms"] = round(self.time_ms, 3)
        if self.move_scores is not None:
            data["move_scores"] = {m: s.to_dict() for m, s in self.move_scores.items()}
        return data


@dataclass(frozen=True)
class Limits:
    """How far a search may go. ``None`` means no limit of that kind.

    ``capped``: the depth is the server's cap for plain minimax, not a choice
    of the level, so a search that ends there says ``stopped="depth"``.
    ``extend``: extend forcing lines by a ply at the horizon of a
    depth-limited search (see ``webapp.engine.driver``).
    ``style``: how a level chooses among its root moves' scores instead of
    always playing a best one (``webapp.engine.style``; depth-limited searches).
    ``root_moves``: search only these root moves (the game's notation): the
    best move, score and move scores are over them. A part of a root search
    split between processes (``webapp.services.split``); it travels with the
    limits so that the worker's task stays the same.
    ``line``: whether the principal variation is wanted. A pass that only
    shows scores sets it False: an exact solve then walks no line past its
    first move, and with move scores solves each move on its own, without the
    position's own solve (``webapp.engine.driver``, "Exact solving").
    ``whole_line``: an exact answer's line is walked on to the end of the game within
    the limits: what a position's analysis shows as its best line. With ``line``, the
    solver's own line is not cut short to answer at once (an opening book's answer);
    without, the chosen move's line is walked on afterwards (``webapp.engine.line``).
    ``deepen``: plain minimax deepens 1, 2, ... even where it would search its depth in
    one pass (a depth that reaches the end of the game): a time the user chose may stop
    that pass, and the deepest depth completed is then kept rather than none.
    """

    depth: int | None = None
    time: float | None = None  # seconds
    nodes: int | None = None
    capped: bool = False
    extend: bool = False
    style: Style | None = None
    root_moves: tuple[str, ...] | None = None
    line: bool = True
    whole_line: bool = False
    deepen: bool = False
