"""A line walked within limits is short when stopped, never wrong (``engine/line.py``,
the kernel's ``principal_variation``). A code review found that a search stopped in the
middle of the walk answers 0, which read as "this move keeps the score" for any drawn or
lost position: the walk then took the next candidate unproved, for many plies."""

from __future__ import annotations

import pytest

from tests.web.test_engine_line import proved
from webapp.engine import line
from webapp.engine.search import Limits, search
from webapp.games import new_game


@pytest.mark.parametrize("moves", ["3111651", "173653"])
def test_a_step_stopped_by_its_budget_adds_no_unproved_move(
    monkeypatch: pytest.MonkeyPatch, moves: str
) -> None:
    monkeypatch.setattr(line, "STEP_NODES", 30_000)  # a hard position's step, scaled down
    answer = search(new_game("connect4", moves), "alphabeta",
                    Limits(line=False, whole_line=True), seed=0)  # fmt: skip
    assert answer.exact
    proved(moves, answer.pv)


def test_the_kernels_line_stopped_by_its_nodes_is_proved_as_far_as_it_goes() -> None:
    answer = search(new_game("connect4", "173653"), "alphabeta",
                    Limits(nodes=10_000, whole_line=True), seed=0)  # fmt: skip
    assert answer.exact and answer.stopped
    proved("173653", answer.pv)
