"""Hard early positions: a reproducible sample, and the kernel against BitBully on it.

The hardest public set (Test_L1_R2/R3: early positions, long solves) is not
shipped, so ``generate`` draws a sample like it: random games of a few
stones (6-12), each position reachable, not over, with no immediate win for
the side to move, kept when BitBully needs many nodes to solve it (a node
count, not a time, so the sample does not depend on the machine). The
sample lives in ``tests/data/connect4/Hard_early`` (``MOVES SCORE``)::

    python -m webapp.bench.hard tests/data/connect4/Hard_early --count 12 --seed 2026

The ``hard`` section solves that sample and the folder's position files with
the kernel and with BitBully, taking turns by runs of ten positions (the
machine's load hits both alike), and prints both mean times and their ratio.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from webapp.bench.positions import read_positions
from webapp.bench.reference import MISSING, Reference, reference
from webapp.bench.stats import set_book
from webapp.engine.game import play_moves
from webapp.engine.search import search
from webapp.games.connect4 import Connect4, winning_cells
from webapp.games.connect4_kernel.native import solve_score

#: The shipped sample (relative to a checkout).
SAMPLE = Path(__file__).resolve().parents[2] / "tests" / "data" / "connect4" / "Hard_early"
#: Stones of a sampled position: early, as in the hardest public set.
STONES = (6, 12)
#: Positions each solver solves in a row before the next one takes its turn.
TURN = 10
#: BitBully nodes a sampled position needs at least (about half a second on this machine).
MIN_NODES = 10_000_000


def random_position(rng: random.Random) -> str | None:
    """A random early position (columns 1-7), or None if the game ended or is decided at once."""
    game = Connect4()
    moves = ""
    for _ in range(rng.randint(*STONES)):
        col = rng.choice(game.legal_moves())
        game.play(col)
        moves += str(col + 1)
        if game.is_terminal():
            return None
    if winning_cells(game.current, game.mask) & game.possible():
        return None  # the side to move wins at once: not a hard position
    return moves


def generate(solver: Reference, count: int, seed: int) -> list[tuple[str, int]]:
    """The first ``count`` random positions (seeded) BitBully needs MIN_NODES to solve."""
    rng = random.Random(seed)
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    while len(found) < count:
        moves = random_position(rng)
        if moves is None or moves in seen:
            continue
        seen.add(moves)
        solved = solver.solve(moves)
        if solved.nodes >= MIN_NODES:
            found.append((moves, solved.score))
            print(f"{moves} {solved.score}  ({solved.nodes} nodes, {solved.seconds:.2f} s)",
                  file=sys.stderr, flush=True)  # fmt: skip
    return found


@dataclass
class Versus:
    """The kernel and BitBully on one file's positions."""

    name: str
    positions: int = 0
    correct: int = 0
    kernel_seconds: float = 0.0
    kernel_nodes: int = 0
    score_seconds: float = 0.0
    reference_seconds: float = 0.0
    reference_nodes: int = 0

    def row(self, with_reference: bool) -> str:
        n = max(1, self.positions)
        kernel_us = self.kernel_seconds / n * 1e6
        nps = self.kernel_nodes / self.kernel_seconds if self.kernel_seconds else 0.0
        score_us = self.score_seconds / n * 1e6
        cells = (f"{self.name:<12} {self.positions:>9} {self.correct:>8} {kernel_us:>12.1f} "
                 f"{nps:>11.0f} {score_us:>12.1f}")  # fmt: skip
        if not with_reference:
            return cells + f" {'-':>12} {'-':>11} {'-':>7} {'-':>10}"
        ref_us = self.reference_seconds / n * 1e6
        ref_nps = self.reference_nodes / self.reference_seconds if self.reference_seconds else 0.0
        ratio = kernel_us / ref_us if ref_us else float("nan")
        score_ratio = score_us / ref_us if ref_us else float("nan")
        return cells + f" {ref_us:>12.1f} {ref_nps:>11.0f} {ratio:>7.2f} {score_ratio:>10.2f}"


def versus(path: Path, lines: int | None, solver: Reference | None) -> Versus:
    """Each position's exact score by the kernel and by BitBully, and the kernel's search.

    Each solve starts with a clean table; the kernel has no book. The solvers
    take turns by runs of ``TURN`` positions (kernel score, BitBully, kernel
    search), so the machine's load hits them alike while each runs warm, as
    in a file run of its own: when they alternated position by position, the
    solve after BitBully's table reset (which sweeps every CPU cache) paid for
    the cache misses, tenfold on a quick position.
    """
    figures = Versus(path.name)
    positions = read_positions(path, lines)
    for first in range(0, len(positions), TURN):
        turn = [(moves, expected, play_moves(Connect4(), moves))
                for moves, expected in positions[first : first + TURN]]  # fmt: skip
        scores = []
        for _, _, game in turn:
            start = time.perf_counter()
            scores.append(solve_score(game)[0])
            figures.score_seconds += time.perf_counter() - start
        if solver is not None:
            for moves, _, _ in turn:
                solved = solver.solve(moves)
                figures.reference_seconds += solved.seconds
                figures.reference_nodes += solved.nodes
        for (_, expected, game), score in zip(turn, scores, strict=True):
            start = time.perf_counter()
            result = search(game, "alphabeta")
            figures.kernel_seconds += time.perf_counter() - start
            figures.kernel_nodes += result.nodes
            figures.positions += 1
            figures.correct += int(result.exact and result.score == expected == score)
    return figures


def print_hard(files: Sequence[Path], lines: int | None, hard_lines: int | None) -> None:
    """The ``hard`` section: the sample, then ``files`` (``lines`` each), kernel vs BitBully."""
    solver = reference()
    print(f"\n# Kernel against BitBully (C++, MTD(f)), in turns of {TURN} positions, no book, "
          "clean table per position")  # fmt: skip
    if solver is None:
        print(f"# {MISSING}")
    print("# 'kernel us': a search (score, an optimal move drawn fairly, its line); 'score us'")
    print("# the kernel's score alone, as BitBully's MTD(f) gives; 'x BB' and 'score x BB' divide")
    print(f"{'file':<12} {'positions':>9} {'correct':>8} {'kernel us':>12} {'kernel n/s':>11} "
          f"{'score us':>12} {'BitBully us':>12} {'BB n/s':>11} {'x BB':>7} "
          f"{'score x BB':>10}")  # fmt: skip
    set_book(False)
    try:
        runs = [(SAMPLE, hard_lines), *((path, lines) for path in files)]
        for path, count in runs:
            if path.is_file() and count != 0:
                print(versus(path, count, solver).row(solver is not None), flush=True)
    finally:
        set_book(True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.bench.hard", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("output", type=Path, help="the sample file to write")
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    solver = reference()
    if solver is None:
        print(MISSING, file=sys.stderr)
        return 2
    found = generate(solver, args.count, args.seed)
    args.output.write_text("".join(f"{moves} {score}\n" for moves, score in found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
