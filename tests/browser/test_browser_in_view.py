"""A page that keeps the board in view (issue 19 part 6), at 1280x800 and 390x844: the
home page's Start and its links, the game page's messages about a click within the
window, the board beside the side column on a desktop, the review's board in view."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage
from tests.browser.sizes import SIZES, in_viewport, sized_context, watched_page
from tests.browser.test_browser_learn import play_a_lost_game_as_o

Opener = Callable[[], Page]


@pytest.fixture(params=sorted(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def open_page(browser: Browser, base_url: str, size: str) -> Iterator[Opener]:
    """Pages in fresh contexts (each its own identity) at ``size``; no script error."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def opened() -> Page:
        contexts.append(sized_context(browser, base_url, size))
        return watched_page(contexts[-1], errors)

    yield opened
    for context in contexts:
        context.close()
    assert not errors, errors


def assert_in_view(page: Page, locator: Locator) -> None:
    expect(locator).to_be_visible()
    assert in_viewport(page, locator), (locator, locator.bounding_box(), page.viewport_size)


def test_the_home_page_shows_start_and_links_the_study_pages(
    open_page: Opener, size: str, screenshots: Path
) -> None:
    page = open_page()
    page.goto("/")
    # two parallel choices, side by side in the sticky bar, both in view without scrolling
    engine = page.get_by_role("button", name="Play the engine")
    friend = page.get_by_role("button", name="Play a friend")
    assert_in_view(page, engine)
    assert_in_view(page, friend)
    assert engine.get_attribute("id") == "start"
    engine_box, friend_box = engine.bounding_box(), friend.bounding_box()
    assert engine_box is not None and friend_box is not None
    assert abs(engine_box["y"] - friend_box["y"]) <= 1  # one row
    assert engine_box["x"] + engine_box["width"] <= friend_box["x"]
    page.screenshot(path=screenshots / f"home-{size}.png")
    analysis = page.get_by_role("link", name="Analysis board")
    tree = page.get_by_role("link", name="Search-tree explorer")
    assert_in_view(page, analysis)
    assert_in_view(page, tree)
    analysis.click()
    expect(page).to_have_url(re.compile(r"/analysis\?game=connect4"))
    assert page.evaluate("window.scrollY") == 0
    page.go_back()
    tree.click()
    expect(page).to_have_url(re.compile(r"/tree\?game=tictactoe"))
    expect(page.get_by_role("heading", level=1)).to_be_visible()


def test_a_spectators_click_is_answered_in_view(
    open_page: Opener, size: str, screenshots: Path
) -> None:
    player = GamePage(open_page())
    player.open_new("game=connect4&moves=4453&level=easy&engine_plays=second")
    watcher = GamePage(open_page())
    watcher.page.goto(player.page.url)
    assert_in_view(watcher.page, watcher.page.locator("#spectator-bar"))
    watcher.cell("2").click(force=True)  # aria-disabled for a spectator; the click still lands
    expect(watcher.notice).to_contain_text("only its player can move")
    assert_in_view(watcher.page, watcher.notice)
    watcher.page.screenshot(path=screenshots / f"spectator-click-{size}.png")
    # Looking at an earlier move, a key is still a watcher's: never "press End to play".
    watcher.page.locator("body").press("ArrowLeft")
    expect(watcher.page.locator("#turn")).to_contain_text("Reviewing")
    watcher.page.locator("body").press("3")
    expect(watcher.notice).to_contain_text("only its player can move")
    expect(watcher.notice).not_to_contain_text("Press End")


def test_settings_saved_is_said_in_view_and_the_board_stays_beside_on_a_desktop(
    open_page: Opener, size: str, screenshots: Path
) -> None:
    page = open_page()
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=easy&algorithm=alphabeta&engine_plays=second")
    ui.click("5")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    page.locator("#settings-form label.segment", has_text="Minimax").click()
    expect(ui.notice).to_contain_text("Settings saved")
    assert_in_view(page, ui.notice)
    page.screenshot(path=screenshots / f"settings-saved-{size}.png")
    if size == "desktop":
        # The side column scrolled to its foot: the whole board is still in the window.
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        assert page.evaluate("window.scrollY") > 200
        assert_in_view(page, ui.board)
        assert_in_view(page, page.locator("#turn"))


def test_the_reviews_show_brings_the_board_in_view(open_page: Opener, size: str) -> None:
    ui = GamePage(open_page())
    ui.open_new("game=tictactoe&level=perfect&engine_plays=first")
    play_a_lost_game_as_o(ui)
    show = ui.page.locator("#review-summary").get_by_role("button", name=re.compile(r"^Show "))
    expect(show.first).to_be_visible(timeout=ENGINE_TIMEOUT_MS)
    show.first.click()
    expect(ui.page.locator("#turn")).to_contain_text("Reviewing")
    assert_in_view(ui.page, ui.board)
