"""``python -m webapp.bench DIR``: the engine's figures on a folder of position files.

Prints, for each position file in DIR (``MOVES SCORE`` lines, Connect Four):
positions, correct scores, mean microseconds, mean nodes and nodes per second;
then minimax against alpha-beta on the tic-tac-toe empty board and on Connect
Four from the empty board at depths 4-8.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from webapp.bench.algorithms import compare
from webapp.bench.positions import solve_file

FILE_ORDER = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1")


def position_files(folder: Path) -> list[Path]:
    """The benchmark files of ``folder``, easiest first; any other files after them."""
    files = [p for p in sorted(folder.iterdir()) if p.is_file() and p.name.startswith("Test_")]
    rank = {name: i for i, name in enumerate(FILE_ORDER)}
    return sorted(files, key=lambda p: (rank.get(p.name, len(rank)), p.name))


def print_files(folder: Path, lines: int | None, native: bool) -> None:
    engine = "native kernel where available" if native else "pure Python"
    print(f"# Exact solving, alpha-beta ({engine}); lines per file: {lines or 'all'}")
    print(f"{'file':<12} {'positions':>9} {'correct':>8} {'mean us':>12} {'mean nodes':>12} "
          f"{'nodes/s':>12}")  # fmt: skip
    for path in position_files(folder):
        f = solve_file(path, lines, native=native)
        print(f"{f.name:<12} {f.positions:>9} {f.correct:>8} {f.mean_us:>12.1f} "
              f"{f.mean_nodes:>12.1f} {f.nodes_per_second:>12.0f}", flush=True)  # fmt: skip
        for wrong in f.wrong:
            print(f"  WRONG {wrong}")


def print_algorithms(max_depth: int, native: bool) -> None:
    print("\n# Minimax against alpha-beta (same depth, same scores expected)")
    print(f"{'game':<10} {'position':<9} {'depth':>5} {'minimax nodes':>14} {'ms':>10} "
          f"{'alphabeta nodes':>16} {'ms':>10} {'same score':>10}")  # fmt: skip
    runs: list[tuple[str, str, int | None]] = [("tictactoe", "", None)]
    runs += [("connect4", "", depth) for depth in range(4, max_depth + 1)]
    for game, moves, depth in runs:
        c = compare(game, moves, depth, native=native)
        print(f"{c.game:<10} {c.moves or 'empty':<9} {c.depth or 'end':>5} {c.minimax_nodes:>14} "
              f"{c.minimax_ms:>10.1f} {c.alphabeta_nodes:>16} {c.alphabeta_ms:>10.1f} "
              f"{'yes' if c.same_score else 'NO':>10}", flush=True)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webapp.bench", description=__doc__)
    parser.add_argument("folder", type=Path, help="folder of Test_* position files")
    parser.add_argument("--lines", type=int, help="positions per file (default: all)")
    parser.add_argument("--max-depth", type=int, default=8, help="deepest Connect Four depth")
    parser.add_argument("--python", action="store_true", help="pure-Python engine only")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        print(f"error: {args.folder} is not a folder", file=sys.stderr)
        return 2
    print_files(args.folder, args.lines, native=not args.python)
    print_algorithms(args.max_depth, native=not args.python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
