"""BitBully, the C++ reference solver, measured beside the kernel (benchmark only).

BitBully (``pip install bitbully``, AGPL) is the fastest open Connect Four
solver we know of: MTD(f) over a bitboard negamax. It is an optional
benchmark dependency (the ``bench`` extra): nothing outside ``webapp.bench``
imports it, and no code of it is copied here. When it is not installed the
sections say so and print the kernel's figures alone.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: BitBully's compiled module.
MODULE = "bitbully.bitbully_core"
#: What the sections print when the reference is missing.
MISSING = "BitBully (the C++ reference) is not installed: pip install bitbully"


@dataclass(frozen=True)
class Solved:
    """One exact solve: the score, its time and the solver's node count."""

    score: int
    seconds: float
    nodes: int


class Reference:
    """BitBully without an opening book (or with ``book``: a file of its databases), a clean
    table for every position."""

    def __init__(self, core: Any, book: Path | None = None) -> None:
        self._core = core
        self._solver = core.BitBullyCore() if book is None else core.BitBullyCore(book)

    def solve(self, moves: str) -> Solved:
        """The exact score of ``moves`` (columns 1-7), timed like the kernel's solves."""
        board = self._core.BoardCore()
        if not board.play([int(m) - 1 for m in moves]):
            raise ValueError(f"not a legal position: {moves}")
        self._solver.resetTranspositionTable()
        self._solver.resetNodeCounter()
        start = time.perf_counter()
        score = int(self._solver.mtdf(board, 0))
        seconds = time.perf_counter() - start
        return Solved(score, seconds, int(self._solver.getNodeCounter()))


def reference(book: Path | None = None) -> Reference | None:
    """The reference solver, or None when BitBully is not installed."""
    try:
        core = importlib.import_module(MODULE)
    except ImportError:
        return None
    return Reference(core, book)
