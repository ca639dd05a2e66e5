"""Levels against each other and against a random player: can people beat them?

Each match is ``games`` games of one game between two players, the first
player alternating, every game seeded (``seed``, the match and the game's
number), so a run repeats exactly. A level plays as the server plays its
moves (``search_limits(..., play=True)``: its depth, its time, its style);
``alphabeta-4`` is a plain depth-4 alpha-beta search (best moves, seeded
ties) and ``random`` a uniformly random legal move. The figures are the first
player's wins, the draws and the second player's wins, as counts and rates.

What the levels are tuned for (``protocol.LEVELS``): a random player wins some
games against Easy, a depth-4 search beats Easy most of the time, Medium beats
Easy, Hard beats Medium.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from webapp.engine.game import Game
from webapp.engine.search import Limits, search
from webapp.game_settings import search_limits
from webapp.games import new_game
from webapp.protocol import LEVELS

#: A player: the position and a generator (the game's own), to the move it plays.
Player = Callable[[str, Game, random.Random], str]

GAMES = ("tictactoe", "connect4")
#: The matches run by default: (player one, player two), the first player alternating.
MATCHES = (
    ("random", "easy"),
    ("alphabeta-4", "easy"),
    ("easy", "medium"),
    ("random", "medium"),
    ("alphabeta-4", "medium"),
    ("medium", "hard"),
)


def random_player(name: str, game: Game, rng: random.Random) -> str:
    return game.format_move(rng.choice(game.legal_moves()))


def alphabeta_player(name: str, game: Game, rng: random.Random) -> str:
    result = search(game, "alphabeta", Limits(depth=4), seed=rng.randrange(1 << 30))
    return result.best_move or random_player(name, game, rng)


def level_player(level: str) -> Player:
    """The engine at ``level``, searching as the server does for its moves."""
    settings = {"level": level, "algorithm": "alphabeta", "depth": None, "time": None}

    def play(name: str, game: Game, rng: random.Random) -> str:
        limits = search_limits(settings, name, play=True)
        result = search(game, "alphabeta", limits, seed=rng.randrange(1 << 30))
        return result.best_move or random_player(name, game, rng)

    return play


PLAYERS: dict[str, Player] = {
    "random": random_player,
    "alphabeta-4": alphabeta_player,
    **{level: level_player(level) for level in LEVELS if level != "custom"},
}


@dataclass
class Match:
    """One pairing in one game: ``one``'s wins, the draws, ``two``'s wins."""

    game: str
    one: str
    two: str
    one_wins: int = 0
    draws: int = 0
    two_wins: int = 0

    @property
    def games(self) -> int:
        return self.one_wins + self.draws + self.two_wins

    def rate(self, count: int) -> str:
        return f"{100 * count / max(1, self.games):.0f}%"


def play_game(name: str, first: Player, second: Player, seed: int) -> int:
    """One game from the empty board: 1 if ``first`` wins, -1 if ``second`` does, 0 a draw."""
    rng = random.Random(seed)
    game = new_game(name)
    players = (first, second)
    while not game.is_terminal():
        mover = players[game.moves_played % 2]
        game.play(game.parse_move(mover(name, game, rng)))
    if not game.last_move_won():
        return 0
    return 1 if game.moves_played % 2 == 1 else -1


def play_match(name: str, one: str, two: str, games: int, seed: int) -> Match:
    """``games`` games of ``one`` against ``two``, ``one`` moving first in the even ones."""
    match = Match(name, one, two)
    for index in range(games):
        one_first = index % 2 == 0
        first, second = (one, two) if one_first else (two, one)
        outcome = play_game(name, PLAYERS[first], PLAYERS[second], seed * 100_003 + index)
        outcome = outcome if one_first else -outcome
        match.one_wins += outcome == 1
        match.draws += outcome == 0
        match.two_wins += outcome == -1
    return match


def print_levels(
    games: int,
    seed: int,
    names: Sequence[str] = GAMES,
    matches: Sequence[tuple[str, str]] = MATCHES,
) -> list[Match]:
    """Play every match in every game and print the table (first player alternating)."""
    print(f"\n# Levels: {games} games per match, first player alternating, seed {seed}")
    print(f"{'game':<10} {'match':<26} {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6} "
          f"{'win%':>5} {'draw%':>6} {'loss%':>6}")  # fmt: skip
    played: list[Match] = []
    for name in names:
        for number, (one, two) in enumerate(matches):
            m = play_match(name, one, two, games, seed + 7919 * number)
            played.append(m)
            print(f"{name:<10} {one + ' vs ' + two:<26} {m.games:>5} {m.one_wins:>5} "
                  f"{m.draws:>5} {m.two_wins:>6} {m.rate(m.one_wins):>5} {m.rate(m.draws):>6} "
                  f"{m.rate(m.two_wins):>6}", flush=True)  # fmt: skip
    return played
