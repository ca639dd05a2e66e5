"""A search under way pulses between its depths (``Budget.pulse``, ``search(pulse=...)``).

A depth of plain minimax, or an exact solve, can run for seconds with no depth
completed: the pulse says which depth is under way (None: solving to the end) and
the nodes searched so far, never more than the search's result counts. Pulses are
made deterministic here: ``PULSE_SECONDS`` 0 pulses at every look (the pure-Python
engine looks every ``CHECK_EVERY`` nodes; the kernel's watcher every few
milliseconds), and a stepping clock stands for time.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from webapp.engine import driver
from webapp.engine.python_engine import PythonEngine
from webapp.engine.results import Limits, Pulse
from webapp.engine.search import CHECK_EVERY, search
from webapp.games import new_game
from webapp.games.connect4_kernel.native import KernelEngine


@pytest.fixture
def every_look(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "PULSE_SECONDS", 0.0)


def test_a_budget_pulses_only_in_a_phase_and_not_before_its_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(driver, "clock", lambda: now[0])
    heard: list[Pulse] = []
    budget = driver.Budget(Limits(), None, heard.append)
    now[0] += driver.PULSE_SECONDS
    budget.pulse(10, None)  # between phases (a line's walk): never
    budget.phase = 3
    budget.pulse(20, 2)  # counted in another phase than the one now: never
    assert heard == []
    budget.pulse(30, 3)
    assert heard == [Pulse(3, 30, driver.PULSE_SECONDS * 1000.0)]
    now[0] += driver.PULSE_SECONDS / 2
    budget.pulse(40, 3)  # too soon after the last
    budget.phase = driver.SOLVING
    now[0] += driver.PULSE_SECONDS / 2
    budget.pulse(50, driver.SOLVING)
    assert heard[1:] == [Pulse(None, 50, 2 * driver.PULSE_SECONDS * 1000.0)]


def test_a_budget_without_a_listener_never_pulses() -> None:
    budget = driver.Budget(Limits(), None)
    budget.phase = 1
    budget.pulse(5, 1)  # nothing to call, nothing raised
    budget.check(CHECK_EVERY)


@pytest.mark.usefixtures("every_look")
def test_minimax_solving_tictactoe_pulses_its_one_depth_with_its_nodes_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Perfect minimax on the empty board is one pass of depth 9: no depth is complete
    before the end, so the pulses are all a player sees of it till then. A clock that
    steps at every look stands for time: no pulse is timed after the search's end."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(driver, "clock", lambda: float(next(ticks)))
    pulses: list[Pulse] = []
    result = search(new_game("tictactoe"), "minimax", Limits(), native=False, pulse=pulses.append)
    assert result.depth == 9 and result.nodes == 549_946
    assert len(pulses) == result.nodes // CHECK_EVERY  # one a look
    assert {p.depth for p in pulses} == {9}
    nodes = [p.nodes for p in pulses]
    assert nodes == sorted(set(nodes)) and nodes[-1] <= result.nodes
    # Both are counts of the stepping clock's ticks (one a look), not durations: no pulse
    # was read after the search's own last reading.
    search_ticks = round(result.time_ms / 1000)
    assert max(round(p.elapsed_ms / 1000) for p in pulses) <= search_ticks


@pytest.mark.usefixtures("every_look")
def test_alphabeta_pulses_the_depth_it_is_searching() -> None:
    pulses: list[Pulse] = []
    depths: list[int] = []
    result = search(
        new_game("tictactoe"),
        "alphabeta",
        Limits(depth=9),
        native=False,
        progress=lambda p: depths.append(p.depth),
        pulse=pulses.append,
        move_scores=True,
    )
    assert pulses and {p.depth for p in pulses} <= set(depths)
    assert [p.depth for p in pulses] == sorted(p.depth for p in pulses)  # deeper and deeper
    assert pulses[-1].nodes <= result.nodes


@pytest.mark.usefixtures("every_look")
def test_the_kernel_pulses_its_minimax_depths_with_no_line_walk_counted() -> None:
    """The kernel's minimax line is replayed after each depth and its nodes taken off the
    count again: a pulse is never read during that walk, so none counts more nodes than
    the depth that follows it reports, nor than the result."""
    pulses: list[Pulse] = []
    rows: list[tuple[int, int]] = []
    result = search(
        new_game("connect4"),
        "minimax",
        Limits(depth=8, time=60.0),  # deepened (time-limited); 7^8 positions: many looks
        progress=lambda p: rows.append((p.depth, p.nodes)),
        pulse=pulses.append,
    )
    assert pulses and result.nodes == rows[-1][1]
    reported = dict(rows)  # each depth's count once it was complete
    for pulse in pulses:
        assert pulse.depth in reported and pulse.nodes <= reported[pulse.depth]
        before = [nodes for depth, nodes in rows if depth < pulse.depth]
        assert pulse.nodes >= max(before, default=0)
    assert [p.nodes for p in pulses] == sorted(p.nodes for p in pulses)


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
def test_no_line_walk_is_in_a_phase(
    monkeypatch: pytest.MonkeyPatch, native: bool, algorithm: str
) -> None:
    """A line's walk (the kernel's minimax replay, whose nodes the count leaves out) never
    pulses: the budget is between phases all through it, in both engines."""
    engine = KernelEngine if native else PythonEngine
    walk = engine.principal_variation
    phases: list[object] = []

    def watched(self: Any, first: Any, value: int, depth: int) -> list[Any]:
        phases.append(self.budget.phase)
        return walk(self, first, value, depth)

    monkeypatch.setattr(engine, "principal_variation", watched)
    limits = Limits(depth=5, time=60.0)  # deepened: a walk after every depth
    search(new_game("connect4", "44"), algorithm, limits, native=native, pulse=lambda _: None)
    assert phases and all(phase is None for phase in phases)


@pytest.mark.usefixtures("every_look")
def test_the_kernel_pulses_an_exact_solve_as_solving() -> None:
    pulses: list[Pulse] = []
    # A middle game position the opening book does not hold: a real solve.
    result = search(new_game("connect4", "4444443"), "alphabeta", Limits(), pulse=pulses.append)
    assert result.exact
    solving = [p for p in pulses if p.depth is None]
    assert solving and all(p.nodes <= result.nodes for p in solving)


@pytest.mark.usefixtures("every_look")
def test_a_listener_that_fails_stops_the_pulses_not_the_kernels_stops() -> None:
    """The kernel's watcher thread pulses and stops the search: a pulse that raises (a
    worker whose pipe broke) must not take the stops with it."""
    cancel = threading.Event()
    heard: list[Pulse] = []

    def broken(pulse: Pulse) -> None:
        heard.append(pulse)
        cancel.set()  # the search is cancelled at once...
        raise OSError("the pipe broke")  # ...and this listener fails

    limits = Limits(depth=12, time=None)  # hours of minimax unless the cancel lands
    result = search(new_game("connect4"), "minimax", limits, cancel=cancel, pulse=broken)
    assert result.stopped == "cancelled" and len(heard) == 1
