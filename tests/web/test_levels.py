"""A game at the default level (Medium) plays in its style, and says so truthfully."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.web.helpers import Listener
from webapp import protocol
from webapp.games import new_game
from webapp.games.connect4_kernel.native import FALLBACK_DEPTH

#: A whole game against the engine: over ~2 s (``scripts/test.sh --fast`` leaves it out).
pytestmark = pytest.mark.slow

Start = Callable[..., tuple[dict[str, Any], Listener]]


def at(moves: str) -> Callable[[dict[str, Any]], bool]:
    """A payload of the position ``moves``."""
    return lambda payload: bool(payload["moves"] == moves)


def options_of(player: Listener, moves: str) -> dict[str, Any]:
    """The engine's options at ``moves``, from the first state that carries them."""

    def carries(state: dict[str, Any]) -> bool:
        last = state.get("last_engine_move") or {}
        return bool(last.get("moves") == moves and last.get("move_scores"))

    options: dict[str, Any] = player.wait_for(protocol.STATE, carries)["last_engine_move"][
        "move_scores"
    ]
    return options


def test_a_game_at_the_default_level_plays_and_every_number_is_the_move_played(
    start: Start,
) -> None:
    state, player = start("connect4")
    assert state["settings"]["level"] == "medium"
    moves = ""
    for _ in range(3):
        game = new_game("connect4", moves)
        mine = next(c for c in "4352617" if game.parse_move(c) in game.legal_moves())
        moves += mine
        player.emit(protocol.MOVE, {"game_id": state["id"], "move": mine})
        engine = player.wait_for(protocol.ENGINE_MOVE, at(moves))
        assert engine["depth"] == protocol.LEVELS["medium"]["depth"]
        assert engine["pv"].startswith(engine["move"])
        new_game("connect4", moves + engine["pv"])  # the line of the move played is legal
        # The engine's options before its move (with the move, or joining it in a later
        # state) are the board's analysis, not Medium's own depth-4 search: exact, or an
        # estimate at least as deep as the solver's heuristic pass.
        options = engine["move_scores"] or options_of(player, moves)
        assert engine["move"] in options
        assert all(s["exact"] or s["depth"] >= FALLBACK_DEPTH for s in options.values())
        if "style" in engine["extra"]:  # a move chosen on purpose below its search's best
            assert engine["extra"]["strongest"]["score"] > engine["score"]
        moves += engine["move"]
        player.wait_for(protocol.STATE, at(moves))
