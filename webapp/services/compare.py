"""Minimax against alpha-beta on one position and depth, for the game page's engine panel.

``GET /api/compare`` answers what each algorithm costs on the same position
at the same depth: nodes, time, move and value. Both searches run in the
search pool as analyses (``Priority.ANALYSIS``, counted against the asker
like the tree's traces), one after the other, never on the request's thread.

# The depth
The deepest depth asked for (default: to the end of the game) whose minimax
tree fits ``NODE_BUDGET`` by the count of its lines (``minimax_lines``), so
that plain minimax finishes: both algorithms then search exactly that depth,
and the comparison is never one finished search against one cut short.
Alpha-beta may end sooner: its iterative deepening stops at the first depth
whose score is exact (a forced result found above the horizon), where minimax
would go on to the depth asked. So alpha-beta runs first, and if it ended
sooner both search to the depth where it ended (where minimax finds the same
exact value): the same depth, as the page says, never depth 4 against 7.

# Time, measured the same way
Each algorithm's time is the engine's own clock in a worker (its
``time_ms``), and the best of ``RUNS`` runs, the two algorithms taking turns,
so neither is timed alone on a cold worker or a busy moment. Once the runs
have taken ``REPEAT_MS`` in all, no further round starts (slow searches are
well above the clock's noise; a first round that compiled the kernel is not).
Alpha-beta's nodes and time include every pass of its iterative deepening
and its table: what it really pays to reach the depth. Every node visited is
counted, each algorithm's the same way (a test checks minimax's against a plain
count over the rules), and no search reports its depths as it goes (a message
per depth would be timed with alpha-beta's passes). The compiled kernel's
minimax is a tight loop (about 20 ns a node): beside it, alpha-beta's
fixed cost per pass (the driver, its table, its line) shows in its time per node.

# The pool's callbacks
A comparison's jobs carry a tag of kind ``compare``; the pool's dispatcher
sends their results here, and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import prod
from typing import Any

from webapp import protocol
from webapp.engine.game import Game
from webapp.engine.results import Limits
from webapp.search_pool import Pool, Priority, SearchJob
from webapp.search_pool.dispatch import dispatcher_of
from webapp.services.errors import GameError
from webapp.services.tree import searchable_position
from webapp.services.waited_search import Outcome, report, waited_search

#: The dispatcher's kind for a comparison's jobs.
KIND = "compare"
#: Minimax lines a comparison may ask for: under a second of pure-Python tic-tac-toe on
#: an idle core (depth 6 from the empty board, the whole game from one stone), about
#: 0.1 s for the compiled Connect Four kernel (depth 7).
NODE_BUDGET = {"tictactoe": 110_000, "connect4": 6_000_000}
#: Runs per algorithm for its best time; no round starts once all runs took REPEAT_MS.
RUNS = 3
REPEAT_MS = 1500.0
#: Seconds a request waits for one search before it is refused as busy.
WAIT_SECONDS = 15.0
#: The same seed as the tree's: a position's comparison is always the same one.
SEED = 0
ALGORITHMS = ("minimax", "alphabeta")


def minimax_lines(game: str, position: Game, depth: int) -> int:
    """An upper bound on the nodes of a minimax tree ``depth`` deep from ``position``.

    Tic-tac-toe's moves fill the board (9, 8, 7... cells: falling products);
    a Connect Four column stays open for six discs (7 moves a ply at most).

    >>> from webapp.games import new_game
    >>> minimax_lines("tictactoe", new_game("tictactoe", "15"), 7)  # 7,332 in fact
    13700
    """
    moves = len(position.legal_moves())
    if game == "tictactoe":
        return sum(prod(range(moves - k + 1, moves + 1)) for k in range(depth + 1))
    return sum(moves**k for k in range(depth + 1))


def compare_request(args: Mapping[str, str]) -> tuple[str, str, int, Game]:
    """The checked ``game, moves, depth`` of a comparison, and the position; or the
    GameError (400, 409 for a finished game) saying why not."""
    game, moves, position = searchable_position(args, {"game", "moves", "depth"})
    text = args.get("depth") or str(protocol.MAX_DEPTH)
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= protocol.MAX_DEPTH:
        raise GameError(
            protocol.BAD_REQUEST, f"depth must be a whole number from 1 to {protocol.MAX_DEPTH}."
        )
    depth = int(text)
    if game == "tictactoe":  # each move fills a cell: no line is longer than the empty cells
        depth = min(depth, len(position.legal_moves()))
    while depth > 1 and minimax_lines(game, position, depth) > NODE_BUDGET[game]:
        depth -= 1
    return game, moves, depth, position


class Comparisons:
    """Minimax and alpha-beta searches in ``pool``; see the module docstring."""

    def __init__(self, pool: Pool, *, wait: float = WAIT_SECONDS) -> None:
        self.pool, self.wait = pool, wait
        dispatcher_of(pool).register(KIND, report)

    def compare(self, args: Mapping[str, str], owner: str = "") -> dict[str, Any]:
        """``{game, moves, depth, asked_depth, results: [{algorithm, nodes, time_ms, runs,
        best_move, score, exact, depth}]}``, minimax first.

        Raises GameError: the request's (``compare_request``), BUSY when the pool refuses
        a search or it has not run within ``wait`` seconds, ENGINE_FAILED when one failed.
        """
        game, moves, depth, _ = compare_request(args)
        best: dict[str, dict[str, Any]] = {}
        runs = dict.fromkeys(ALGORITHMS, 0)
        spent = 0.0
        for _ in range(RUNS):
            if spent >= REPEAT_MS:
                break
            for algorithm in reversed(ALGORITHMS):  # alpha-beta first: it may end sooner
                result = self._search(game, moves, algorithm, depth, owner)
                if algorithm == "alphabeta" and result["depth"] < depth:
                    depth = result["depth"]  # exact there: both search to that depth
                runs[algorithm] += 1
                spent += result["time_ms"]
                if algorithm not in best or result["time_ms"] < best[algorithm]["time_ms"]:
                    best[algorithm] = result
        return {
            "game": game,
            "moves": moves,
            "depth": depth,
            "asked_depth": args.get("depth") or None,
            "results": [
                {
                    "algorithm": algorithm,
                    "runs": runs[algorithm],
                    **{
                        key: best[algorithm][key]
                        for key in ("nodes", "time_ms", "best_move", "score", "exact", "depth")
                    },
                }
                for algorithm in ALGORITHMS
            ],
        }

    def _search(
        self, game: str, moves: str, algorithm: str, depth: int, owner: str
    ) -> dict[str, Any]:
        def search(outcome: Outcome) -> SearchJob:
            return SearchJob(
                game,
                moves,
                algorithm,
                Limits(depth=depth),
                seed=SEED,
                tag=outcome,
                move_scores=False,
                priority=Priority.ANALYSIS,
                owner=owner,
                # Nobody follows its depths: a message per depth through the worker's pipe,
                # inside the search's clock, would time alpha-beta's iterations (one each)
                # and not minimax's single pass.
                progress=False,
            )

        return waited_search(
            self.pool,
            search,
            self.wait,
            busy="The search workers are busy (waited {waited:.0f} s). Try again soon.",
            failed="The search failed",
            kind=KIND,
        )
