"""Shared fixtures and helpers for the whole suite."""

from __future__ import annotations

import atexit
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest

# The 12-stone database's converted cache: one per test run (every search process and
# server the tests start inherits it), never the user's ~/.cache, so that no run leans
# on what an earlier one left.
if "LOOKAHEAD_CACHE_DIR" not in os.environ:
    os.environ["LOOKAHEAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="lookahead-cache-")
    atexit.register(shutil.rmtree, os.environ["LOOKAHEAD_CACHE_DIR"], ignore_errors=True)

from tests.ci import pytest_sessionfinish  # noqa: F401 (a skip fails CI)
from tests.servers import (  # noqa: F401 (fixtures for every test)
    postgres_server,
    postgres_url,
    redis_server,
    redis_url,
)
from webapp.engine.game import Game
from webapp.games import new_game

DATA = Path(__file__).parent / "data"
CONNECT4_DATA = DATA / "connect4"


def read_positions(name: str, count: int | None = None, step: int = 1) -> list[tuple[str, int]]:
    """``(moves, exact score)`` pairs from a copied benchmark file, every ``step``-th line."""
    rows = []
    for line in (CONNECT4_DATA / name).read_text().splitlines()[::step]:
        moves, score = line.split()
        rows.append((moves, int(score)))
    return rows[:count]


@pytest.fixture
def connect4_data() -> Path:
    return CONNECT4_DATA


def random_position(game_name: str, plies: int, rng: random.Random) -> Game:
    """A position after up to ``plies`` random moves that is not over."""
    while True:
        game = new_game(game_name)
        for _ in range(plies):
            if game.is_terminal():
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_terminal():
            return game


#: Folders whose every test carries a marker (``scripts/test.sh --fast`` leaves them out).
FOLDER_MARKERS = {"browser": pytest.mark.browser, "scale": pytest.mark.scale}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under ``tests/browser`` ``browser`` and under ``tests/scale``
    ``scale``, new files included."""
    here = Path(__file__).resolve().parent
    for item in items:
        for folder, marker in FOLDER_MARKERS.items():
            if item.path.is_relative_to(here / folder):
                item.add_marker(marker)
