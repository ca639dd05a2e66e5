"""Solve a file of benchmark positions (``MOVES SCORE`` per line) and measure it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from webapp.engine.search import search
from webapp.games import new_game


@dataclass(frozen=True)
class FileFigures:
    """What solving one position file took."""

    name: str
    positions: int
    correct: int
    mean_us: float
    mean_nodes: float
    nodes_per_second: float
    wrong: tuple[str, ...]  # the first few positions whose score was wrong


def read_positions(path: Path, lines: int | None = None) -> list[tuple[str, int]]:
    """The first ``lines`` positions of a file (all when None)."""
    positions = []
    with path.open() as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 2:
                positions.append((fields[0], int(fields[1])))
                if lines is not None and len(positions) >= lines:
                    break
    return positions


def solve_file(
    path: Path, lines: int | None = None, game_name: str = "connect4", native: bool = True
) -> FileFigures:
    """Solve each position exactly (clean table per position) and compare with the file."""
    positions = read_positions(path, lines)
    correct, nodes, seconds = 0, 0, 0.0
    wrong: list[str] = []
    for moves, expected in positions:
        game = new_game(game_name, moves)
        start = time.perf_counter()
        result = search(game, "alphabeta", native=native)
        seconds += time.perf_counter() - start
        nodes += result.nodes
        if result.exact and result.score == expected:
            correct += 1
        elif len(wrong) < 5:
            wrong.append(f"{moves}: got {result.score}, expected {expected}")
    count = max(1, len(positions))
    return FileFigures(
        path.name,
        len(positions),
        correct,
        seconds / count * 1e6,
        nodes / count,
        nodes / seconds if seconds else 0.0,
        tuple(wrong),
    )
