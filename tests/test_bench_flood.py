"""The flood benchmark runs the real server and accounts for every request (no timing is
asserted)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from webapp.bench.flood import Positions
from webapp.games import new_game


@pytest.mark.slow
def test_a_short_flood_prints_every_figure_and_accounts_for_every_request() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", "flood", "--minutes", "0.1", "--rate", "120",
         "--players", "2", "--fresh-every", "2", "--drain-timeout", "60", "--burst", "4"],
        capture_output=True, text=True, timeout=170, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    flood = re.search(r"flood: (\d+) analyses sent; answers (.*)", out)
    assert flood is not None, out
    answers = dict(part.split("=") for part in flood.group(2).split(", "))
    assert int(flood.group(1)) == 12 == sum(int(n) for n in answers.values()), out
    assert set(answers) <= {"200", "202", "429"}, out  # refused by share, never a 5xx
    players = re.search(r"players: 2 Easy, (\d+) moves, (\d+) replies, busy (\d+)", out)
    assert players is not None and players.group(3) == "0", out  # analyses never make a move busy
    assert "fresh user during the flood:" in out and "gave up  [" in out, out
    assert re.search(r"largest queues seen \(/healthz\): analysis (\d+)", out), out
    assert "analysis queue empty" in out, out
    burst = re.search(r"burst: 4 analyses at once from 4 addresses: answers (.*);", out)
    assert burst is not None, out
    assert sum(int(part.split("=")[1]) for part in burst.group(1).split(", ")) == 4, out


def test_flood_positions_are_legal_unfinished_and_new() -> None:
    positions = Positions(seed=3)
    made = [positions.new(8, 14) for _ in range(200)]
    assert len(set(made)) == len(made)
    for moves in made:
        assert 1 <= len(moves) <= 14 and not new_game("connect4", moves).is_terminal()
