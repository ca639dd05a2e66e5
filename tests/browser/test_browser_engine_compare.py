"""The engine panel's comparison on one position and depth (issue 19, part 2), at 1280x800 and
390x844: minimax and alpha-beta on the position before the engine's last move, one table and a
sentence; and the Minimax-mode legend says where the option scores come from."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage


def test_the_engine_panel_compares_both_algorithms_on_one_position(
    sized: Page, screenshots: Path
) -> None:
    ui = GamePage(sized)
    ui.open_new("game=connect4&moves=4453&level=easy&engine_plays=second")
    button = sized.locator("#same-depth-button")
    button.scroll_into_view_if_needed()
    button.click()
    rows = sized.locator("#same-depth-table tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("th")).to_have_text("Minimax")
    expect(rows.nth(1).locator("th")).to_have_text("Alpha-beta")
    moves = [rows.nth(i).locator("td").last.text_content() for i in range(2)]
    assert moves[0] == moves[1]  # the same move and value (the depth: in the sentence)
    nodes = [
        int((rows.nth(i).locator("td").first.text_content() or "").replace(",", ""))
        for i in range(2)
    ]
    assert nodes[1] < nodes[0]
    summary = sized.locator("#same-depth-summary")
    expect(summary).to_contain_text("Before the engine\u2019s last move (after 4 4 5).")
    expect(summary).to_contain_text(re.compile(r"To depth \d+, both choose column \d"))
    expect(summary).to_contain_text(re.compile(r"the best of \d runs each|one run each"))
    table = sized.locator("#same-depth-table").bounding_box()  # whole, never scrolled sideways
    width = sized.viewport_size["width"] if sized.viewport_size else 0
    assert table and table["x"] >= 0 and table["x"] + table["width"] <= width
    assert sized.evaluate("document.documentElement.scrollWidth") <= width
    fits = "(t) => t.getBoundingClientRect().width <= t.parentElement.clientWidth"
    assert sized.locator("#same-depth-table").evaluate(fits)  # its wrap never scrolls sideways
    sized.locator("#same-depth").screenshot(path=screenshots / f"engine-compare-{width}.png")
    # The game moves on: the sentence about its former last position goes (it stayed).
    ui.wait_for_my_turn()
    ui.click("1")
    ui.wait_for_moves(6)
    expect(summary).to_have_text("")
    expect(sized.locator("#same-depth-table")).to_be_hidden()


def test_the_engine_has_not_moved_yet_goes_once_it_has(sized: Page) -> None:
    ui = GamePage(sized)
    ui.open_new("game=tictactoe&level=easy&engine_plays=second")
    button = sized.locator("#same-depth-button")
    button.scroll_into_view_if_needed()
    button.click()
    summary = sized.locator("#same-depth-summary")
    expect(summary).to_have_text("The engine has not moved yet: compare after its first move.")
    ui.click("5")
    ui.wait_for_moves(2)
    expect(summary).to_have_text("")


def test_the_minimax_legend_says_the_scores_are_alpha_betas_values(sized: Page) -> None:
    ui = GamePage(sized)
    ui.open_new("game=tictactoe&moves=1&level=easy&algorithm=minimax&engine_plays=second")
    ui.wait_for_moves(2)  # the engine (O, minimax) moves first: its options are scored
    legend = sized.locator("#scores-legend")
    expect(legend).to_contain_text("the board always searches with alpha-beta until the scores")
    expect(legend).to_contain_text("The move was chosen by minimax")


def test_a_finished_games_review_compares_the_algorithms_on_the_position_shown(
    page: Page,
) -> None:
    """Once the game is over, stepping back to a position and asking for the comparison
    searches that position (the button was greyed out for good); stepping elsewhere hides
    its table, coming back shows it again."""
    ui = GamePage(page)
    ui.open_new("game=tictactoe&moves=1425&level=easy&engine_plays=second")
    ui.wait_for_my_turn()
    ui.click("3")  # X completes 1-2-3: the game is over
    expect(page.locator("#turn")).to_contain_text("won", ignore_case=True)
    page.locator("body").press("ArrowLeft")  # X to move after 1 4 2 5
    expect(page.locator("#turn")).to_contain_text("Reviewing")
    button = page.locator("#compare-button")
    expect(button).to_be_enabled()
    button.click()
    rows = page.locator("#compare-table tbody tr")
    expect(rows).to_have_count(2, timeout=ENGINE_TIMEOUT_MS)
    for row in range(2):  # each algorithm finds the win at once: cell 3
        expect(rows.nth(row)).to_contain_text("3 (")
    expect(page.locator("#compare-summary")).to_contain_text("Minimax searched")
    page.locator("body").press("ArrowLeft")  # another position: not its comparison
    expect(page.locator("#compare-table")).to_be_hidden()
    page.locator("body").press("ArrowRight")
    expect(rows).to_have_count(2)
    page.locator("body").press("End")  # the final position: nothing to search
    expect(button).to_be_disabled()
    expect(page.locator("#compare-hint")).to_contain_text("Step back to an earlier one")
    page.locator("body").press("ArrowLeft")
    expect(page.locator("#compare-hint")).to_contain_text("Search the position on the board")
