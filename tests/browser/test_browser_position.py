"""Starting games: the home form POSTs (with or without scripts), and a position link
shows the position with a button that starts the game there (a GET creates nothing)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from tests.browser.game_page import GamePage

POSITION = "game=connect4&moves=4453&level=easy&engine_plays=second"
#: Stones per column after 4453 (columns 3, 4 and 5).
STONES = {"3": 1, "4": 2, "5": 1, "1": 0}


def test_the_home_form_starts_a_game_by_post_and_plays(page: Page) -> None:
    requests: list[Request] = []
    page.on("request", lambda request: requests.append(request))
    ui = GamePage(page)
    ui.start_from_home("tictactoe", "easy")
    starts = [r for r in requests if r.url.endswith(("/api/games", "/new")) or "/new?" in r.url]
    assert starts and all(r.method == "POST" for r in starts), [(r.method, r.url) for r in starts]
    ui.click("5")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    expect(page.locator("#spectator-bar")).to_be_hidden()


def test_the_home_form_works_without_scripts(browser: Browser, base_url: str) -> None:
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto("/")
        page.locator('.game-card[data-game="connect4"]').click()
        page.locator('input[name="level"][value="easy"]').check()
        with page.expect_request(lambda r: r.url.endswith("/new")) as posted:
            page.locator("#start").click()
        assert posted.value.method == "POST"
        page.wait_for_url(re.compile(r"/g/[^/]+$"))
        state = page.locator("#initial-state").text_content() or ""
        assert '"seat": "player"' in state and '"game": "connect4"' in state
    finally:
        context.close()


def check_position_page(page: Page) -> None:
    expect(page.get_by_role("heading", level=1)).to_have_text("Connect Four")
    expect(page.locator("#position-summary")).to_contain_text("after 4 moves")
    expect(page.locator("#position-summary")).to_contain_text("Red to move")
    board = page.locator(".board")
    for column, stones in STONES.items():
        expect(board.locator(f'button[data-move="{column}"]')).to_have_attribute(
            "aria-label", re.compile(rf"^Column {column}, {stones} stones?")
        )
    expect(board).not_to_have_class(re.compile(r"is-interactive"))  # read-only


@pytest.mark.parametrize(("name", "viewport"), [("desktop", (1280, 900)), ("phone", (375, 812))])
def test_a_position_link_shows_the_position_and_its_button_starts_the_game(
    browser: Browser, base_url: str, screenshots: Path, name: str, viewport: tuple[int, int]
) -> None:
    width, height = viewport
    phone = name == "phone"
    context = browser.new_context(
        base_url=base_url,
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
    )
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        response = page.goto(f"/new?{POSITION}")
        assert response is not None and response.status == 200
        assert re.search(r"/new\?", page.url)  # still here: the GET created nothing
        check_position_page(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(
            path=screenshots / f"position-link-{name}.png", full_page=True, animations="disabled"
        )

        ui = GamePage(page)
        ui.play_from_here()
        ui.wait_for_moves(4)
        expect(page.locator("#spectator-bar")).to_be_hidden()
        ui.wait_for_my_turn()
        if phone:
            ui.cell("3").tap()
        else:
            ui.click("3")
        ui.wait_for_moves(6)
        assert not errors, errors
    finally:
        context.close()


def test_a_bad_position_link_explains_itself(page: Page) -> None:
    response = page.goto("/new?game=connect4&moves=48")
    assert response is not None and response.status == 400
    expect(page.locator(".lost-message")).to_contain_text("cannot start a game")
    expect(page.locator(".lost-message")).to_contain_text("at move 2, 8 is not a column")
    expect(page).to_have_title("Link not valid · Lookahead")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "This link does not describe a position"
    )
