"""``python -m webapp.bench DIR``: the engine's figures, kernel and pure Python side by side.

(``python -m webapp.bench load ...`` is the load benchmark of the real server:
see ``webapp/bench/load.py`` or ``python -m webapp.bench load --help``;
``python -m webapp.bench flood ...`` floods it with analyses: ``webapp/bench/flood.py``;
``python -m webapp.bench idle`` holds idle spectators open while it fetches pages:
``webapp/bench/idle.py``; ``python -m webapp.bench soak --minutes N`` runs a mixed
crowd for N minutes and prints memory, threads and files each minute:
``webapp/bench/soak.py``.)

Sections (``--sections``, all by default):

* ``files``      exact solving of each position file in DIR (``MOVES SCORE`` lines,
                 Connect Four), a clean table per position and no opening book:
                 correct scores, mean time, nodes, nodes per second; the kernel on
                 every line (``--lines``), the pure-Python engine on the first
                 ``--python-lines``; the C++ reference solver's mean time beside.
* ``algorithms`` minimax against alpha-beta on the same positions, both engines.
* ``startup``    the kernel's compile time with an empty numba cache, and the
                 start-up time with the cache.
* ``bands``      exact search time by number of stones (0-40), book on: p50, p95
                 and max per band, for the optimal move and for every column's score.
* ``games``      the "perfect" level from the first move as either colour: time per
                 move, and whether every move kept the result.
* ``variable``   forced-line extensions against a fixed horizon at equal node budgets
                 (``--openings`` openings, both colours): the extending side's results.
* ``hard``       the kernel against BitBully (the C++ reference, if installed), in turns of ten
                 positions: the hard early sample (``bench/hard.py``, ``--hard-lines``)
                 and the folder's files (``--versus-lines`` each).
* ``parallel``   root splitting: every column's exact score of ``--parallel-lines``
                 positions (Test_L2_R2, or ``--parallel-file``) in one process, then two.
* ``database``   the 12-stone database: its load (time, memory), then every column's
                 exact score of ``--database-lines`` random positions of 0-12 stones (and
                 apart: 0-11, 12) and of 13-20 stones as ``/api/analysis`` asks, opening
                 book on and off.
* ``levels``     the levels against each other and a random player, both games
                 (``--level-games`` per match, first player alternating): win/draw/loss.

No figure is asserted anywhere: this command prints what it measured.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from webapp.bench import bands, database, games, hard, levels, parallel, startup
from webapp.bench.algorithms import compare
from webapp.bench.positions import solve_file
from webapp.bench.stats import percentile, seconds, set_book
from webapp.bench.variable_depth import print_variable_depth

FILE_ORDER = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1")
#: Pascal Pons' C++ solver (no book, clean table per position), mean microseconds per
#: position, measured on a machine like this one.
CPP_REFERENCE_US = {"Test_L3_R1": 11.0, "Test_L2_R1": 80.0, "Test_L2_R2": 6600.0,
                    "Test_L1_R1": 450.0}  # fmt: skip
#: Pure-Python lines per file: its mean time ranges from ~10 ms (end games) to ~1 min.
PYTHON_LINES = {"Test_L3_R1": 100, "Test_L2_R1": 30, "Test_L2_R2": 2, "Test_L1_R1": 10}
SECTIONS = ("files", "algorithms", "startup", "bands", "games", "variable", "hard", "parallel",
            "database", "levels")  # fmt: skip


def position_files(folder: Path) -> list[Path]:
    """The benchmark files of ``folder``, easiest first; any other files after them."""
    files = [p for p in sorted(folder.iterdir()) if p.is_file() and p.name.startswith("Test_")]
    rank = {name: i for i, name in enumerate(FILE_ORDER)}
    return sorted(files, key=lambda p: (rank.get(p.name, len(rank)), p.name))


def print_files(folder: Path, lines: int | None, python_lines: int | None, kernel: bool) -> None:
    print("# Exact solving, alpha-beta, clean table per position, no opening book")
    print(f"{'file':<12} {'engine':<7} {'positions':>9} {'correct':>8} {'mean us':>12} "
          f"{'mean nodes':>12} {'nodes/s':>12} {'C++ us':>8} {'x C++':>7}")  # fmt: skip
    if kernel:
        set_book(False)
    for path in position_files(folder):
        runs = [("kernel", lines)] if kernel else []
        runs.append(("python", PYTHON_LINES.get(path.name, 10) if python_lines is None
                     else python_lines))  # fmt: skip
        for engine, count in runs:
            if count == 0:
                continue
            f = solve_file(path, count, native=engine == "kernel")
            ref = CPP_REFERENCE_US.get(f.name)
            ratio = f"{f.mean_us / ref:7.2f}" if ref else f"{'-':>7}"
            print(f"{f.name:<12} {engine:<7} {f.positions:>9} {f.correct:>8} {f.mean_us:>12.1f} "
                  f"{f.mean_nodes:>12.1f} {f.nodes_per_second:>12.0f} {ref or '-':>8} {ratio}",
                  flush=True)  # fmt: skip
            for wrong in f.wrong:
                print(f"  WRONG {wrong}")
    if kernel:
        set_book(True)


def print_algorithms(max_depth: int, kernel: bool) -> None:
    print("\n# Minimax against alpha-beta (same depth, same scores expected)")
    print(f"{'game':<10} {'engine':<7} {'position':<9} {'depth':>5} {'minimax nodes':>14} "
          f"{'ms':>10} {'alphabeta nodes':>16} {'ms':>10} {'same score':>10}")  # fmt: skip
    runs: list[tuple[str, str, int | None]] = [("tictactoe", "", None)]
    runs += [("connect4", "", depth) for depth in range(4, max_depth + 1)]
    for game, moves, depth in runs:
        engines = ["python"] if game != "connect4" or not kernel else ["kernel", "python"]
        for engine in engines:
            c = compare(game, moves, depth, native=engine == "kernel")
            print(f"{c.game:<10} {engine:<7} {c.moves or 'empty':<9} {c.depth or 'end':>5} "
                  f"{c.minimax_nodes:>14} {c.minimax_ms:>10.1f} {c.alphabeta_nodes:>16} "
                  f"{c.alphabeta_ms:>10.1f} {'yes' if c.same_score else 'NO':>10}",
                  flush=True)  # fmt: skip


def print_startup() -> None:
    s = startup.measure()
    print("\n# Kernel start-up (a new process runs warm_up(); numba cache in a new folder)")
    print(f"cold (compiles):     warm_up {s.cold_warm_up:6.2f} s, whole process "
          f"{s.cold_process:6.2f} s")  # fmt: skip
    print(f"cached (loads):      warm_up {s.cached_warm_up:6.2f} s, whole process "
          f"{s.cached_process:6.2f} s")  # fmt: skip


def _band_cells(timings: bands.Timings, which: str, low: int, high: int, cap: float) -> str:
    t = timings.band(which, low, high)
    return " ".join(f"{seconds(percentile(t, q), cap):>9}" for q in (50, 95)) + (
        f" {seconds(max(t), cap) if t else '-':>9}"
    )


def print_bands(per_count: int, python_per_count: int, cap: float, seed: int, min_stones: int,
                kernel: bool) -> None:  # fmt: skip
    print(
        f"\n# Exact search by stones, book on; positions: {per_count} (kernel) and "
        f"{python_per_count} (python) per stone count; each search capped at {cap:g} s"
    )
    print("# 'best' = the optimal move, 'all' = the exact score of every column")
    header = f"{'stones':<7} {'n':>4} " + " ".join(
        f"{label + ' ' + q:>9}" for label in ("best", "all") for q in ("p50", "p95", "max")
    )  # fmt: skip
    engines: list[tuple[str, bands.Timings]] = []
    if kernel and per_count:
        positions = bands.sample_positions(per_count, seed, min_stones)
        engines.append(("kernel", bands.measure(positions, True, cap)))
    if python_per_count:
        positions = bands.sample_positions(python_per_count, seed + 1, min_stones)
        engines.append(("python", bands.measure(positions, False, cap)))
    for engine, timings in engines:
        print(f"\n{engine} ({timings.capped} searches stopped at the cap)")
        print(header)
        for low, high in (*bands.BANDS, (10, bands.MAX_STONES)):
            if high < min_stones:
                continue
            label = f"{low}-{high}" if (low, high) != (10, bands.MAX_STONES) else ">=10"
            n = len(timings.band("best", low, high))
            print(f"{label:<7} {n:>4} {_band_cells(timings, 'best', low, high, cap)} "
                  f"{_band_cells(timings, 'all', low, high, cap)}")  # fmt: skip


def print_games(games_per_colour: int, seed: int, opponents: list[str]) -> None:
    print(
        f"\n# The perfect level from the first move ({games_per_colour} games per colour "
        "against each opponent, one each against itself); time per engine move"
    )
    print(f"{'opponent':<12} {'games':>5} {'W-D-L':>7} {'moves':>6} {'p50':>9} {'p95':>9} "
          f"{'max':>9} {'kept result':>12} {'all exact':>10}")  # fmt: skip
    everything: list[float] = []
    for name, f in games.play_all(games_per_colour, seed, opponents).items():
        everything += f.move_seconds
        t = f.move_seconds
        print(f"{name:<12} {f.games:>5} {f'{f.wins}-{f.draws}-{f.losses}':>7} {len(t):>6} "
              f"{seconds(percentile(t, 50)):>9} {seconds(percentile(t, 95)):>9} "
              f"{seconds(max(t)):>9} {'yes' if not f.failures else 'NO':>12} "
              f"{f.all_exact:>10}", flush=True)  # fmt: skip
        for failure in f.failures[:5]:
            print(f"  FAILED {failure}")
    print(f"{'all':<12} {'':>5} {'':>7} {len(everything):>6} "
          f"{seconds(percentile(everything, 50)):>9} {seconds(percentile(everything, 95)):>9} "
          f"{seconds(max(everything)):>9}")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["load"]:
        from webapp.bench import load

        return load.main(arguments[1:])
    if arguments[:1] == ["friends"]:
        from webapp.bench import friends

        return friends.main(arguments[1:])
    if arguments[:1] == ["flood"]:
        from webapp.bench import flood

        return flood.main(arguments[1:])
    if arguments[:1] == ["idle"]:
        from webapp.bench import idle

        return idle.main(arguments[1:])
    if arguments[:1] == ["soak"]:
        from webapp.bench import soak

        return soak.main(arguments[1:])
    parser = argparse.ArgumentParser(
        prog="python -m webapp.bench", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("folder", type=Path, help="folder of Test_* position files")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, of: {', '.join(SECTIONS)}")  # fmt: skip
    parser.add_argument("--lines", type=int, help="kernel positions per file (default: all)")
    parser.add_argument("--python-lines", type=int,
                        help="pure-Python positions per file (default: 100/30/2/10)")  # fmt: skip
    parser.add_argument("--max-depth", type=int, default=8, help="deepest Connect Four depth")
    parser.add_argument("--samples", type=int, default=4, help="kernel positions per stone count")
    parser.add_argument("--python-samples", type=int, default=1,
                        help="pure-Python positions per stone count")  # fmt: skip
    parser.add_argument("--min-stones", type=int, default=0, help="fewest stones in 'bands'")
    parser.add_argument("--cap", type=float, default=5.0, help="seconds per search in 'bands'")
    parser.add_argument("--games", type=int, default=2, help="games per colour per opponent")
    parser.add_argument("--opponents", default=",".join(games.OPPONENTS),
                        help=f"comma-separated, of: {', '.join(games.OPPONENTS)}")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1, help="positions and games")
    parser.add_argument("--openings", type=int, default=12, help="openings in 'variable'")
    parser.add_argument("--level-games", type=int, default=20, help="games per match in 'levels'")
    parser.add_argument("--python", action="store_true", help="pure-Python engine only")
    parser.add_argument("--hard-lines", type=int, help="hard sample positions (default: all)")
    parser.add_argument("--versus-lines", type=int, default=100,
                        help="positions per file in 'hard' (default: 100)")  # fmt: skip
    parser.add_argument("--parallel-lines", type=int, default=30,
                        help="positions in 'parallel' (default: 30)")  # fmt: skip
    parser.add_argument("--database-lines", type=int, default=100,
                        help="random positions per band in 'database'")  # fmt: skip
    parser.add_argument("--parallel-file", type=Path,
                        help="positions for 'parallel' (default: DIR/Test_L2_R2)")  # fmt: skip
    args = parser.parse_args(arguments)
    if not args.folder.is_dir():
        print(f"error: {args.folder} is not a folder", file=sys.stderr)
        return 2
    sections = {s.strip() for s in args.sections.split(",") if s.strip()}
    if sections - set(SECTIONS):
        print(f"error: unknown sections {sorted(sections - set(SECTIONS))}", file=sys.stderr)
        return 2
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if set(opponents) - set(games.OPPONENTS):
        print(f"error: unknown opponents {sorted(set(opponents) - set(games.OPPONENTS))}",
              file=sys.stderr)  # fmt: skip
        return 2
    kernel = not args.python
    python_lines = args.lines if args.python and args.python_lines is None else args.python_lines
    started = time.perf_counter()
    if kernel:
        from webapp.games.connect4_kernel.warmup import warm_up

        warm_up()  # compile or load now, outside every measurement
    if "files" in sections:
        print_files(args.folder, args.lines, python_lines, kernel)
    if "algorithms" in sections:
        print_algorithms(args.max_depth, kernel)
    if kernel and "startup" in sections:
        print_startup()
    if "bands" in sections:
        print_bands(args.samples if kernel else 0, args.python_samples, args.cap, args.seed,
                    args.min_stones, kernel)  # fmt: skip
    if kernel and "games" in sections:
        print_games(args.games, args.seed, opponents)
    if kernel and "variable" in sections:
        print_variable_depth(args.openings, args.seed)
    if kernel and "hard" in sections:
        hard.print_hard(position_files(args.folder), args.versus_lines, args.hard_lines)
    middle = args.parallel_file or args.folder / "Test_L2_R2"
    if kernel and "parallel" in sections and middle.is_file():
        parallel.print_parallel(middle, args.parallel_lines)
    if kernel and "database" in sections:
        database.print_database(args.database_lines, args.seed)
    if "levels" in sections:
        levels.print_levels(args.level_games, args.seed)
    print(f"\n# benchmark took {time.perf_counter() - started:.0f} s")
    return 0


def exit_on_sigterm() -> None:
    """SIGTERM (``kill``, ``timeout``) exits like Ctrl+C does: the benches' ``with`` blocks
    then stop the servers they started (which sit in sessions of their own), instead of
    leaving them running without a parent."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


if __name__ == "__main__":
    exit_on_sigterm()
    sys.exit(main())
