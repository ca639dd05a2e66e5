"""``python -m webapp.engine``: analyse or solve positions from the command line.

    python -m webapp.engine analyze connect4 4453 --json
    echo 4453 | python -m webapp.engine solve connect4

Errors are one line on standard error and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from webapp.engine.game import IllegalMoveError
from webapp.engine.search import ALGORITHMS, Limits, SearchResult, search
from webapp.games import GAMES, UnknownGameError, new_game

EXIT_USAGE = 2
EXIT_BAD_INPUT = 1


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.engine",
        description="Lookahead's game-tree engine: analyse or solve positions.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    analyze = commands.add_parser("analyze", help="search one position and explain the result")
    analyze.add_argument("game", choices=sorted(GAMES))
    analyze.add_argument("moves", help='moves played so far, e.g. "4453" ("" for the start)')
    analyze.add_argument("--algorithm", choices=ALGORITHMS, default="alphabeta")
    analyze.add_argument("--depth", type=_positive_int, help="plies to search")
    analyze.add_argument("--time", type=_positive_float, help="time budget in seconds")
    analyze.add_argument("--seed", type=int, help="seed for breaking ties between moves")
    analyze.add_argument("--json", action="store_true", help="print one JSON object")

    solve = commands.add_parser(
        "solve", help="exact score of each position read from standard input, one per line"
    )
    solve.add_argument("game", choices=sorted(GAMES))
    solve.add_argument("--algorithm", choices=ALGORITHMS, default="alphabeta")
    return parser


def default_limits(game: str, algorithm: str, depth: int | None, time_: float | None) -> Limits:
    """The limits the CLI applies: what was asked, or the documented default."""
    if depth is None and time_ is None and algorithm == "minimax":
        # Plain minimax has no pruning: it stops at the game's cap (the server's
        # too) instead of searching Connect Four for hours.
        cap = new_game(game).minimax_max_depth
        return Limits(depth=cap, capped=cap < new_game(game).cells)
    return Limits(depth=depth, time=time_)


def describe(result: SearchResult) -> str:
    """A human-readable report of a search result."""
    kind = "exact" if result.exact else "heuristic"
    lines = [
        f"best move   {result.best_move or '-'}",
        f"score       {result.score} ({kind})",
        f"pv          {result.pv or '-'}",
    ]
    if result.move_scores:
        cells = [
            f"{move}:{s.score}{'' if s.exact else '~'}" for move, s in result.move_scores.items()
        ]
        lines.append(f"moves       {' '.join(cells)}   (~ = heuristic)")
    lines += [
        f"nodes       {result.nodes}"
        + (" (every iteration counted)" if result.iterations_counted else ""),
        f"depth       {result.depth}",
        f"time        {result.time_ms:.1f} ms",
        f"algorithm   {result.algorithm}",
    ]
    if result.stopped == "depth":
        lines.append("stopped     depth (plain minimax's cap for this game)")
    elif result.stopped:
        lines.append(f"stopped     {result.stopped} (best completed depth shown)")
    return "\n".join(lines)


def analyze(args: argparse.Namespace, out: TextIO) -> int:
    game = new_game(args.game, args.moves)
    limits = default_limits(args.game, args.algorithm, args.depth, args.time)
    result = search(game, args.algorithm, limits, move_scores=True, seed=args.seed)
    if args.json:
        data = result.to_dict()
        json.dump(
            {
                key: data[key]
                for key in (
                    "best_move",
                    "score",
                    "exact",
                    "pv",
                    "move_scores",
                    "nodes",
                    "depth",
                    "time_ms",
                    "algorithm",
                )
            },
            out,
        )
        out.write("\n")
    else:
        out.write(describe(result) + "\n")
    return 0


def solve(args: argparse.Namespace, lines: TextIO, out: TextIO, err: TextIO) -> int:
    """Print ``MOVES SCORE NODES MICROSECONDS`` per line; bad lines are reported and skipped.

    A line may carry more fields after the moves (the benchmark files' expected
    score): only the first field is read.
    """
    failures = 0
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        moves = fields[0]
        try:
            game = new_game(args.game, moves)
        except IllegalMoveError as error:
            err.write(f"line {number}: {error}\n")
            failures += 1
            continue
        start = time.perf_counter()
        result = search(game, args.algorithm)
        micros = (time.perf_counter() - start) * 1e6
        out.write(f"{moves} {result.score} {result.nodes} {micros:.0f}\n")
        out.flush()
    return EXIT_BAD_INPUT if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "analyze":
            return analyze(args, sys.stdout)
        return solve(args, sys.stdin, sys.stdout, sys.stderr)
    except (IllegalMoveError, UnknownGameError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
