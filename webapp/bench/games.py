"""The "perfect" level in whole games from the first move, as either colour.

The engine searches every move exactly as the server does (the "perfect"
level's limits under the server's caps, every column's score, progress and a
cancel flag). Opponents: random columns, a depth-6 alpha-beta player, and the
perfect engine itself. Checked on every engine move: the search finished with
an exact score, the chosen column's exact score is that score and no column
scores more, and the engine's value never drops (a win stays a win, a draw a
draw; an opponent's mistake may only improve it); at the end, the game's result
is at least what the first value promised. Counted too: the moves that came
with every column's exact score (in the book's range the columns that lose the
result may keep only a heuristic score: the book holds no value for them).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from webapp.engine.search import Limits, SearchResult, search
from webapp.game_settings import search_limits
from webapp.games.connect4 import Connect4

Opponent = Callable[[Connect4, random.Random], str]


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def random_player(game: Connect4, rng: random.Random) -> str:
    return game.format_move(rng.choice(game.legal_moves()))


def alphabeta_player(game: Connect4, rng: random.Random) -> str:
    result = search(game, "alphabeta", Limits(depth=6), seed=rng.randrange(1 << 30))
    return result.best_move or random_player(game, rng)


def perfect_player(game: Connect4, rng: random.Random) -> str:
    return engine_move(game, rng.randrange(1 << 30)).best_move or random_player(game, rng)


OPPONENTS: dict[str, Opponent] = {
    "random": random_player,
    "alphabeta-6": alphabeta_player,
    "perfect": perfect_player,
}


def engine_move(game: Connect4, seed: int) -> SearchResult:
    """The "perfect" level's search, as a search worker runs it."""
    settings = {"level": "perfect", "algorithm": "alphabeta", "depth": None, "time": None}
    limits = search_limits(settings, "connect4")
    return search(game, "alphabeta", limits, move_scores=True, progress=lambda p: None,
                  cancel=threading.Event(), seed=seed)  # fmt: skip


@dataclass
class GameFigures:
    move_seconds: list[float] = field(default_factory=list)
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    all_exact: int = 0  # engine moves that came with every column's exact score
    failures: list[str] = field(default_factory=list)  # what went wrong, with the position


def play(opponent: Opponent, engine_first: bool, seed: int, figures: GameFigures) -> None:
    """One game; the engine's moves are timed and checked into ``figures``."""
    rng = random.Random(seed)
    game = Connect4()
    moves = ""
    promised: int | None = None  # the sign of the engine's first exact value
    last = -2
    engine_side = 0 if engine_first else 1
    while not game.is_terminal():
        if game.to_move == engine_side:
            start = time.perf_counter()
            result = engine_move(game, rng.randrange(1 << 30))
            elapsed = time.perf_counter() - start
            figures.move_seconds.append(elapsed)
            scores = result.move_scores or {}
            chosen = scores.get(result.best_move or "")
            figures.all_exact += all(s.exact for s in scores.values())
            if not (result.exact and chosen is not None and chosen.exact):
                figures.failures.append(f"{moves or '(empty)'}: not exact ({result.stopped})")
            elif chosen.score != result.score or any(
                s.exact and s.score > result.score for s in scores.values()
            ):
                figures.failures.append(f"{moves or '(empty)'}: {result.best_move} is not best")
            value = _sign(result.score)
            if value < last:
                figures.failures.append(f"{moves or '(empty)'}: value fell to {result.score}")
            last = value
            promised = value if promised is None else promised
            choice = result.best_move or "1"
        else:
            choice = opponent(game, rng)
        game.play(game.parse_move(choice))
        moves += choice
    winner = game.winner()
    outcome = 0 if winner is None else (1 if winner == engine_side else -1)
    figures.games += 1
    figures.wins += outcome == 1
    figures.draws += outcome == 0
    figures.losses += outcome == -1
    if promised is not None and outcome < promised:
        figures.failures.append(f"{moves}: result {outcome} below the promised {promised}")


def play_all(games_per_colour: int, seed: int, opponents: list[str]) -> dict[str, GameFigures]:
    found: dict[str, GameFigures] = {}
    for name in opponents:
        figures = found.setdefault(name, GameFigures())
        count = 1 if name == "perfect" else games_per_colour
        for index in range(count):
            for engine_first in (True, False):
                play(OPPONENTS[name], engine_first, seed + 1000 * index + engine_first, figures)
    return found
