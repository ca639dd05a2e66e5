"""The pages a person lands on: home, a new game of each kind, a phone, a lost link."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.game_page import GamePage

BOARD_BUTTONS = {"connect4": 7, "tictactoe": 9}


def test_home_page_offers_both_games_and_the_settings(page: Page, screenshots: Path) -> None:
    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Lookahead")
    expect(page.locator(".game-card")).to_have_count(2)
    for name in ("Strength", "Algorithm", "Who moves first"):
        expect(page.get_by_role("group", name=name)).to_be_visible()
    expect(page.get_by_label(re.compile("Show the engine.s analysis"))).to_be_checked()
    # Custom strength asks for a depth and a time.
    page.get_by_role("radio", name="Custom").check()
    expect(page.get_by_label("Depth (plies)")).to_be_visible()
    page.get_by_role("radio", name="Easy").check()
    expect(page.get_by_label("Depth (plies)")).to_be_hidden()
    page.screenshot(path=screenshots / "home.png", full_page=True, animations="disabled")


@pytest.mark.parametrize("game", ["tictactoe", "connect4"])
def test_the_home_settings_lay_out_cleanly_on_a_desktop(page: Page, game: str) -> None:
    """Each choice pill is one row ("Minimax (whole tree)" once wrapped under "Alpha-beta"),
    and the analysis switch sits at the left under the fields, not floating right."""
    page.goto("/")
    page.locator(f'.game-card[data-game="{game}"]').click()
    for name in ("Strength", "Algorithm", "Who moves first"):
        group = page.get_by_role("group", name=name)
        pill = group.locator(".segmented").bounding_box()
        segment = group.locator(".segment").first.bounding_box()
        assert pill is not None and segment is not None
        assert pill["height"] < 2 * segment["height"], (name, pill, segment)
    strength = page.get_by_role("group", name="Strength").bounding_box()
    algorithm = page.get_by_role("group", name="Algorithm").bounding_box()
    switch = page.locator(".settings-card .switch").bounding_box()
    assert strength is not None and algorithm is not None and switch is not None
    assert abs(switch["x"] - strength["x"]) < 1, (switch, strength)
    assert switch["y"] >= algorithm["y"] + algorithm["height"], (switch, algorithm)


@pytest.mark.parametrize("game", ["connect4", "tictactoe"])
def test_start_each_game_from_the_home_page(page: Page, game: str, screenshots: Path) -> None:
    ui = GamePage(page)
    ui.start_from_home(game, "easy")
    expect(ui.board.locator("button[data-move]")).to_have_count(BOARD_BUTTONS[game])
    expect(page.locator("#turn")).to_contain_text("Your move")
    expect(ui.cell("1")).to_have_attribute(
        "aria-label",
        re.compile(r"^Column 1, 0 stones" if game == "connect4" else r"^Cell 1\b.*empty$"),
    )
    # One move and the engine's reply, so the screenshot shows a game in play.
    ui.click("4" if game == "connect4" else "5")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    expect(ui.candidates.first).to_be_visible()
    page.screenshot(path=screenshots / f"game-{game}.png", full_page=True, animations="disabled")


def test_game_page_fits_a_phone(browser: Browser, base_url: str, screenshots: Path) -> None:
    context = browser.new_context(
        base_url=base_url, viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True
    )
    try:
        page = context.new_page()
        ui = GamePage(page)
        ui.open_new("game=connect4&moves=4453&level=easy&engine_plays=second")
        ui.wait_for_my_turn()
        ui.cell("3").tap()
        ui.wait_for_moves(6)
        ui.wait_for_my_turn()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the page is {width}px wide on a 375px screen"
        board = ui.board.bounding_box()
        assert board is not None and board["x"] >= 0 and board["x"] + board["width"] <= 375
        page.screenshot(
            path=screenshots / "game-connect4-phone.png", full_page=True, animations="disabled"
        )
    finally:
        context.close()


def test_a_lost_link_gets_a_friendly_page(page: Page) -> None:
    response = page.goto("/g/no-such-game")
    assert response is not None and response.status == 404
    expect(page).to_have_title("Not found · Lookahead")
    expect(page.get_by_role("heading", level=1)).to_have_text("Nothing to play here")
    link = page.get_by_role("link", name="Go to the home page")
    expect(link).to_be_visible()
    link.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Lookahead")


def test_connect4_analysis_screenshot(page: Page, screenshots: Path) -> None:
    """A game in progress with the engine's analysis and its line on the board."""
    ui = GamePage(page)
    # One winning move (column 6, a win in 14), every other one a draw.
    ui.open_new("game=connect4&moves=43443345&level=perfect&engine_plays=first")
    ui.wait_for_moves(9)
    ui.wait_for_my_turn()
    expect(page.locator("#result-headline")).to_contain_text("win in 14")
    page.locator("#pv-toggle").click()
    expect(ui.board.locator(".ghost").first).to_be_visible()
    page.mouse.move(0, 0)
    page.screenshot(path=screenshots / "game-connect4-analysis.png", animations="disabled")
