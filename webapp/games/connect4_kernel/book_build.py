"""Generate the opening book with the project's own solver (resumable, parallel).

    python -m webapp.games.connect4_kernel.book_build \\
        --out webapp/data/connect4-book.bin --plies 8 --workers 2

# What the book holds
The positions the engine can reach, as either colour, playing only its own
optimal moves against any opponent, with at most ``--plies`` stones:

* where the engine is to move: the exact score and every optimal column
  (solved here: one exact solve plus one null-window test per column);
* where the opponent is to move, after an optimal engine move: the exact score
  (the negation of its parent's, for free), with no columns.

Positions are stored once per mirror pair. Work is scheduled shallowest
first; a position becomes available when its parent is solved.

# Resuming
Every solved position is appended to ``WORK/solved.txt`` (``moves score
columns nodes seconds``) as soon as a worker returns it; a restart reads that
file and the solved entries of the existing book file, and continues. The book
file is rewritten (atomically) every ``--save-every`` seconds and at the end,
so a partial book is always usable.
Each worker keeps its transposition table between positions: exact bounds
stay true, and neighbouring positions share most of their trees.
"""

from __future__ import annotations

import argparse
import heapq
import multiprocessing as mp
import multiprocessing.pool
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from webapp.games.connect4 import Connect4, has_line
from webapp.games.connect4_kernel.book import (
    DEFAULT_PATH,
    BookError,
    mirror_columns,
    pack,
    read_book,
    unpack,
    write_book,
)
from webapp.games.connect4_kernel.position import mirror_key
from webapp.games.connect4_layout import CELLS, WIDTH

#: Table slots per worker: 2**24 (256 MiB), far more than a web worker needs.
WORKER_TABLE_BITS = 24


def _position(moves: str) -> Connect4:
    game = Connect4()
    for char in moves:
        game.play(int(char) - 1)
    return game


def canonical(game: Connect4) -> tuple[int, bool]:
    """The smaller of the key and its mirror, and whether it is the mirror."""
    key = game.key()
    mirrored = int(mirror_key(np.uint64(key)))
    return (mirrored, True) if mirrored < key else (key, False)


# -- worker ----------------------------------------------------------------------

_worker_state = None


def _solve(moves: str) -> tuple[str, int, int, int, float]:
    """``(moves, score, optimal columns, nodes, seconds)`` of one engine-to-move position."""
    global _worker_state
    from webapp.games.connect4_kernel import control as c
    from webapp.games.connect4_kernel import solver
    from webapp.games.connect4_kernel.native import KernelState
    from webapp.games.connect4_kernel.table import new_table, next_generation

    if _worker_state is None:
        _worker_state = KernelState(new_table(WORKER_TABLE_BITS))
        next_generation(_worker_state.table, _worker_state.ctl)
    s = _worker_state
    s.ctl[c.NODES] = 0
    game = _position(moves)
    start = time.perf_counter()
    args = (np.uint64(game.current), np.uint64(game.mask), game.moves_played)
    score = solver.solve(*args, s.table, s.ctl, s.book, s.scratch)
    columns = solver.best_columns(*args, score, s.table, s.ctl, s.book, s.scratch)
    return moves, score, columns, int(s.ctl[c.NODES]), time.perf_counter() - start


# -- scheduler -------------------------------------------------------------------


class Builder:
    """The book's tree: which positions are known, which wait for a solve."""

    def __init__(self, plies: int) -> None:
        self.plies = plies
        self.solved: dict[int, tuple[int, int]] = {}  # canonical key -> (score, columns)
        self.valued: dict[int, tuple[int, int]] = {}  # opponent to move: key -> (score, ply)
        self.seen: set[int] = set()
        self.queue: list[tuple[int, str]] = []  # (ply, moves) of engine-to-move positions

    def schedule(self, game: Connect4, moves: str) -> None:
        key, _ = canonical(game)
        if key not in self.seen and not game.is_terminal() and game.moves_played <= self.plies:
            self.seen.add(key)
            heapq.heappush(self.queue, (game.moves_played, moves))

    def opponent_replies(self, game: Connect4, moves: str) -> None:
        """Schedule every reply of the opponent to move in ``game``."""
        if game.is_terminal():
            return
        for col in game.legal_moves():
            game.play(col)
            self.schedule(game, moves + str(col + 1))
            game.undo()

    def start(self, root: str = "") -> None:
        game = _position(root)
        self.schedule(game, root)  # the engine is to move at the root
        self.opponent_replies(game, root)  # the opponent is

    def record(self, moves: str, score: int, columns: int) -> None:
        """Store a solved position and make its successors available."""
        game = _position(moves)
        key, flipped = canonical(game)
        self.solved[key] = (score, mirror_columns(columns) if flipped else columns)
        for col in range(WIDTH):
            if columns >> col & 1:
                game.play(col)
                if not has_line(game.current ^ game.mask) and game.moves_played < CELLS:
                    child, _ = canonical(game)
                    if game.moves_played <= self.plies:
                        self.valued[child] = (-score, game.moves_played)
                    self.opponent_replies(game, moves + str(col + 1))
                game.undo()

    def entries(self) -> np.ndarray:
        rows = [pack(k, 0, s) for k, (s, _) in self.valued.items() if k not in self.solved]
        rows += [pack(k, cols, s) for k, (s, cols) in self.solved.items()]
        return np.array(rows, dtype=np.uint64)

    def complete_plies(self, pending: dict[str, int]) -> int:
        """Every engine-to-move position up to this many stones is solved."""
        waiting = [ply for ply, _ in self.queue] + list(pending.values())
        return min(waiting) - 1 if waiting else self.plies

    def deepest(self) -> int:
        """The most stones of any entry (the book is looked up up to there)."""
        return max([ply for _, ply in self.valued.values()] + [0])


def _read_solved(path: Path) -> dict[int, tuple[str, int, int]]:
    """Solved positions of earlier runs by canonical key: ``(moves, score, columns)``."""
    found: dict[int, tuple[str, int, int]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 3:
                moves = "" if fields[0] == "-" else fields[0]
                key, flipped = canonical(_position(moves))
                columns = int(fields[2])
                columns = mirror_columns(columns) if flipped else columns
                found[key] = (moves, int(fields[1]), columns)
    return found


def _read_book_solved(path: Path) -> dict[int, tuple[str, int, int]]:
    """Solved positions of an earlier book file (entries with best columns), by key.

    The work log may be gone (another machine): the book itself then says what
    is solved already. Keys and columns are canonical in both.
    """
    try:
        book = read_book(path)
    except BookError:
        return {}
    found: dict[int, tuple[str, int, int]] = {}
    for entry in book.entries.tolist():
        key, columns, score = unpack(int(entry))
        if columns:
            found[key] = ("", score, columns)
    return found


def _adopt(moves: str, known: tuple[str, int, int]) -> tuple[int, int]:
    """A logged result for another path to the same position, as seen from ``moves``."""
    _, score, columns = known
    _, flipped = canonical(_position(moves))
    return score, mirror_columns(columns) if flipped else columns


def build(
    out: Path, plies: int, workers: int, work: Path, save_every: float, root: str = ""
) -> int:
    """Solve the book's positions (resuming from ``work``) and write ``out``."""
    work.mkdir(parents=True, exist_ok=True)
    log_path = work / "solved.txt"
    builder = Builder(plies)
    builder.start(root)
    done = _read_book_solved(out) | _read_solved(log_path)
    print(f"resuming with {len(done)} solved positions" if done else "starting", flush=True)
    started = last_save = time.perf_counter()
    solved_now, solve_seconds, solve_nodes = 0, 0.0, 0
    pending: dict[str, int] = {}

    def save() -> None:
        write_book(out, builder.entries(), builder.deepest(), builder.complete_plies(pending))

    with mp.get_context("fork").Pool(workers) as pool, log_path.open("a") as log:
        results: list[mp.pool.AsyncResult[tuple[str, int, int, int, float]]] = []
        while builder.queue or pending:
            while builder.queue and len(pending) < 4 * workers:
                ply, moves = heapq.heappop(builder.queue)
                known = done.get(canonical(_position(moves))[0])
                if known is not None:
                    builder.record(moves, *_adopt(moves, known))
                    continue
                pending[moves] = ply
                results.append(pool.apply_async(_solve, (moves,)))
            time.sleep(0.02)
            still = []
            for res in results:
                if not res.ready():
                    still.append(res)
                    continue
                moves, score, columns, nodes, seconds = res.get()
                del pending[moves]
                log.write(f"{moves or '-'} {score} {columns} {nodes} {seconds:.3f}\n")
                log.flush()
                builder.record(moves, score, columns)
                solved_now += 1
                solve_seconds += seconds
                solve_nodes += nodes
                print(f"ply {len(moves):2d} {moves or '(empty)':<12} score {score:+3d} columns "
                      f"{columns:07b} {nodes:>13} nodes {seconds:9.2f} s", flush=True)  # fmt: skip
            results = still
            if time.perf_counter() - last_save >= save_every:
                save()
                last_save = time.perf_counter()
    save()
    print(f"done: {len(builder.solved)} solved, {len(builder.entries())} entries, complete to "
          f"{builder.complete_plies(pending)} stones, {out.stat().st_size} bytes; this run: "
          f"{solved_now} solved in {time.perf_counter() - started:.0f} s, {solve_seconds:.0f} "
          f"s of solving, {solve_nodes} nodes", flush=True)  # fmt: skip
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.games.connect4_kernel.book_build", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=DEFAULT_PATH, help="book file to write")
    parser.add_argument("--plies", type=int, default=8, help="most stones of a solved position")
    parser.add_argument("--workers", type=int, default=2, help="solver processes")
    parser.add_argument("--work", type=Path, default=Path("book-work"), help="resume folder")
    parser.add_argument("--save-every", type=float, default=300.0, help="seconds between saves")
    parser.add_argument("--root", default="", help="build the book below this position (tests)")
    args = parser.parse_args(argv)
    return build(args.out, args.plies, args.workers, args.work, args.save_every, args.root)


if __name__ == "__main__":
    sys.exit(main())
