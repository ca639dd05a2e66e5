"""Variable depth: forced-line extensions against a fixed horizon, at equal node budgets.

Two kernel engines play Connect Four from the same random openings, each
opening twice with the colours swapped: one extends forced lines at the
horizon (``Limits.extend``: a win to take, two threats to lose to, or a single
block to play), the other evaluates there. Both deepen iteratively until a
node budget per move runs out (a depth limit keeps them from solving), so the
extension pays for its nodes out of the same budget. The figure is the
extending engine's result: wins, draws, losses and its points per game
(1 a win, 1/2 a draw).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from webapp.engine.search import Limits, search
from webapp.games import new_game

#: Nodes per move: a fast, a middling and a strong engine (the kernel checks its
#: node budget every 4,096 nodes, so smaller budgets mean little).
BUDGETS = (20_000, 100_000, 500_000)
OPENING_PLIES = 4
#: Deep enough never to bind before the node budget; shallow enough not to solve.
DEPTH = 30


@dataclass
class Match:
    """The extending engine's games at one node budget."""

    budget: int
    wins: int = 0
    draws: int = 0
    losses: int = 0
    depths: dict[bool, list[int]] = field(default_factory=lambda: {True: [], False: []})

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return (self.wins + self.draws / 2) / max(1, self.games)

    def mean_depth(self, extend: bool) -> float:
        depths = self.depths[extend]
        return sum(depths) / max(1, len(depths))


def openings(count: int, seed: int) -> list[str]:
    """``count`` distinct random openings of ``OPENING_PLIES`` moves."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        moves = "".join(str(rng.randint(1, 7)) for _ in range(OPENING_PLIES))
        if moves not in found:
            found.append(moves)
    return found


def play(opening: str, extender: int, match: Match) -> None:
    """One game from ``opening``; ``extender`` (0 or 1) is the extending side."""
    game = new_game("connect4", opening)
    while not game.is_terminal():
        extend = game.moves_played % 2 == extender
        limits = Limits(depth=DEPTH, nodes=match.budget, extend=extend)
        result = search(game, "alphabeta", limits, seed=game.moves_played)
        match.depths[extend].append(result.depth)
        assert result.best_move is not None
        game.play(game.parse_move(result.best_move))
    if not game.last_move_won():
        match.draws += 1
    elif (game.moves_played - 1) % 2 == extender:
        match.wins += 1
    else:
        match.losses += 1


def measure(count: int, seed: int, budgets: tuple[int, ...] = BUDGETS) -> list[Match]:
    matches = []
    for budget in budgets:
        match = Match(budget)
        for opening in openings(count, seed):
            for extender in (0, 1):
                play(opening, extender, match)
        matches.append(match)
    return matches


def print_variable_depth(count: int, seed: int) -> None:
    print(
        f"\n# Variable depth: forced-line extensions against a fixed horizon, kernel, "
        f"{count} openings of {OPENING_PLIES} moves, each with both colours; equal nodes per move"
    )
    print(f"{'nodes/move':>10} {'games':>5} {'W-D-L':>9} {'points':>7} "
          f"{'depth ext':>9} {'depth plain':>11}")  # fmt: skip
    for m in measure(count, seed):
        print(f"{m.budget:>10} {m.games:>5} {f'{m.wins}-{m.draws}-{m.losses}':>9} "
              f"{m.points:>7.2f} {m.mean_depth(True):>9.1f} {m.mean_depth(False):>11.1f}",
              flush=True)  # fmt: skip
