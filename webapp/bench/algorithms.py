"""Minimax against alpha-beta on the same positions: nodes and time."""

from __future__ import annotations

from dataclasses import dataclass

from webapp.engine.search import Limits, search
from webapp.games import new_game


@dataclass(frozen=True)
class Comparison:
    game: str
    moves: str
    depth: int | None
    minimax_nodes: int
    minimax_ms: float
    alphabeta_nodes: int
    alphabeta_ms: float
    same_score: bool


def compare(game_name: str, moves: str, depth: int | None, native: bool = True) -> Comparison:
    """Search one position with both algorithms to the same depth (None: to the end)."""
    limits = Limits(depth=depth)
    results = {
        algorithm: search(
            new_game(game_name, moves), algorithm, limits, move_scores=True, native=native
        )
        for algorithm in ("minimax", "alphabeta")
    }
    mm, ab = results["minimax"], results["alphabeta"]
    return Comparison(
        game_name,
        moves,
        depth,
        mm.nodes,
        mm.time_ms,
        ab.nodes,
        ab.time_ms,
        mm.score == ab.score,
    )
