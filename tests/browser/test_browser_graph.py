"""The evaluation graph after a reload: the positions the page did not see itself
are filled from the game's review, on the graph's own side and scale.

The live page knows most points (its own scores and the engine's searches);
a reloaded page knows only the last of them until the review answers. The
points' words before and after the reload must agree: the review's values
are the mover's, the graph's the side to move's, and a wrong sign would make
move 2's won position (from the review after the reload) read as lost.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage
from webapp.engine.search import search
from webapp.games import new_game

POINTS = "#eval-graph circle.eval-point"
#: A point's words while its value is unknown (eval-bar.js).
UNKNOWN = "Evaluating…"


def played(ui: GamePage) -> str:
    return "".join(ui.moves.all_inner_texts())


def losing_reply(moves: str) -> str:
    """A move that turns a draw into a loss for the side to move (so values are not all 0)."""
    result = search(new_game("tictactoe", moves), "alphabeta", move_scores=True, native=False)
    assert result.move_scores is not None
    return next(m for m, s in result.move_scores.items() if s.exact and s.score < 0)


def titles(page: Page) -> list[str]:
    return list(page.eval_on_selector_all(f"{POINTS} title", "ts => ts.map((t) => t.textContent)"))


def test_after_a_reload_every_point_of_the_graph_is_known(page: Page, screenshots: Path) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=perfect&engine_plays=first")
    ui.wait_for_moves(1)
    ui.press(losing_reply(played(ui)))
    ui.wait_for_moves(3)
    ui.press(next(c for c in "123456789" if c not in played(ui)))
    ui.wait_for_moves(5)
    points = page.locator(POINTS)
    expect(points).to_have_count(5)
    # The engine's search of move 2's position (exact at this level): O's blunder, X wins.
    expect(points.nth(1).locator("title")).to_contain_text("X wins with best play")
    before = titles(page)  # a position the player left before its scores came stays unknown

    page.reload()
    expect(points).to_have_count(5)
    # The reloaded page saw only moves 4 (the engine's last search) and 5 itself.
    expect(page.locator(f"{POINTS}.is-unknown")).to_have_count(0, timeout=ENGINE_TIMEOUT_MS)
    after = titles(page)
    assert [a for a, b in zip(after, before, strict=True) if UNKNOWN not in b] == [
        b for b in before if UNKNOWN not in b
    ]
    page.screenshot(path=str(screenshots / "graph-after-reload.png"), full_page=True)


def test_at_perfect_every_point_of_the_live_graph_is_exact(page: Page) -> None:
    """Connect Four at Perfect, the player moving at once: the points of the player's own
    moves (the engine to move there) take the engine's exact search, not the quick pass
    over its options that its move cut short; the points of the engine's moves (the player
    moving before their options' exact pass) take that search's exact score, negated."""
    ui = GamePage(page)
    ui.open_new("game=connect4&level=perfect")
    for count, column in enumerate("1726", start=1):
        ui.wait_for_my_turn()
        ui.press(column)
        ui.wait_for_moves(2 * count)
    points = page.locator(POINTS)
    expect(points).to_have_count(8)
    expect(page.locator(f"{POINTS}.is-exact")).to_have_count(8, timeout=ENGINE_TIMEOUT_MS)
