"""A search function for the scale tests' hosts: one depth sent, then held (``held_engine``)."""

from __future__ import annotations

from typing import Any

from tests.web.held_engine import held_engine
from webapp.engine.search import Limits
from webapp.search_pool.process import run_search

DEPTH_THEN_HELD = "tests.scale.depth_engine:depth_then_held"


def depth_then_held(
    game: str, moves: str, algorithm: str, limits: Limits, **options: Any
) -> dict[str, Any]:
    """Send the depth-1 row of the real search, then hold until the test releases it."""
    run_search(game, moves, algorithm, Limits(depth=1), **options)
    return held_engine(game, moves, algorithm, limits, **options)
