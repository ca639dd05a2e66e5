"""The best move on the board (issue 19 part 5): the analysis board rings where each
best move lands and draws the best line on request; the game's review rings the best
moves of the position it shows. Both sizes."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.game_page import GamePage
from tests.browser.sizes import in_viewport
from tests.browser.test_browser_any_position import sized  # noqa: F401 (fixture)


def ringed_cells(page: Page) -> list[str]:
    """The accessible names of the board's buttons holding a best-move ring."""
    names = page.locator(".board button:has(.best-ring)").evaluate_all(
        "(buttons) => buttons.map((b) => b.getAttribute('aria-label'))"
    )
    return [str(name) for name in names]


def test_the_analysis_board_rings_the_best_moves_and_shows_the_line(
    sized: Page,  # noqa: F811
    screenshots: Path,
) -> None:
    # X took a corner: O's only move that keeps the draw is the centre.
    sized.goto("/analysis?game=tictactoe&moves=1")
    expect(sized.locator("#ab-headline")).to_contain_text("draw")
    expect(sized.locator(".best-ring")).to_have_count(1)
    assert ringed_cells(sized)[0].startswith("Cell 5 ")
    assert in_viewport(sized, sized.locator(".best-ring"))

    toggle = sized.get_by_role("button", name="Show the best line")
    toggle.click()
    expect(sized.get_by_role("button", name="Hide the best line")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(sized.locator("#ab-line-text")).to_have_text(re.compile(r"^Best line: 5( \d)+$"))
    line = sized.locator("#ab-line-text").inner_text().removeprefix("Best line: ").split()
    expect(sized.locator(".board .ghost")).to_have_count(len(line))
    expect(sized.locator('.board button[data-move="5"] .ghost')).to_have_text("1")
    sized.screenshot(path=screenshots / f"analysis-best-line-{sized.size_name}.png")  # type: ignore[attr-defined]
    sized.get_by_role("button", name="Hide the best line").click()
    expect(sized.locator(".board .ghost")).to_have_count(0)
    expect(sized.locator(".best-ring")).to_have_count(1)  # the ring stays


def test_the_review_rings_the_best_moves_of_the_position_shown(
    sized: Page,  # noqa: F811
) -> None:
    ui = GamePage(sized)
    ui.open_new("game=tictactoe&level=easy&engine_plays=second")
    ui.click("1")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    expect(sized.locator(".best-ring")).to_have_count(0)  # live play shows no ring
    sized.keyboard.press("ArrowLeft")
    sized.keyboard.press("ArrowLeft")  # the empty board
    expect(sized.locator("#turn")).to_contain_text("Reviewing the start")
    # a ring on each cell its score names best (all nine once solved: every move draws)
    expect(sized.locator(".best-ring").first).to_be_visible()
    best = sized.locator('.board button[aria-label*="(best)"]')
    expect(sized.locator(".board button:has(.best-ring)")).to_have_count(best.count())
    sized.keyboard.press("End")
    expect(sized.locator(".best-ring")).to_have_count(0)
