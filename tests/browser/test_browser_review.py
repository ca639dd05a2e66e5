"""The game review (static/js/review.js) and the analysis board (/analysis): a tic-tac-toe
game with a known blunder read from the move list and the summary; both sides moved by
hand on the board, a variation, going back, the link. Screenshots of both views."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage

PHONE = {"width": 390, "height": 844}


def blundered_game(page: Page) -> str:
    """X (the player) had a win at 3 and played 9; the engine (O, perfect) wins at 6.
    The game was made with 1425 (preset: no one's moves in this game)."""
    response = page.request.post("/api/games", data={"game": "tictactoe", "moves": "1425"})
    game_id: str = response.json()["id"]
    page.goto(f"/g/{game_id}")
    GamePage(page).click("9")
    return game_id


def test_the_review_marks_the_blunder_and_offers_a_retry(page: Page, screenshots: Path) -> None:
    blundered_game(page)
    ui = GamePage(page)
    ui.wait_for_moves(6)
    summary = page.locator("#review-summary")
    expect(summary).to_be_visible(timeout=ENGINE_TIMEOUT_MS)
    expect(summary.locator(".review-result")).to_have_text("O (engine) won.")
    blunder = page.locator('#moves button[data-ply="5"]')
    expect(blunder).to_contain_text("?? blunder")  # a symbol and a word, not colour alone
    expect(blunder).to_have_attribute("aria-label", re.compile(r"blunder$"))
    # O's 4 lost faster (an inaccuracy, were it O's), but the game was made with it.
    expect(page.locator('#moves button[data-ply="4"]')).to_contain_text("· preset")
    expect(summary.locator(".review-preset-note")).to_contain_text("The first 4 moves were")
    expect(page.locator('#moves button[data-ply="6"]')).to_contain_text("! best")
    counts = summary.locator(".review-counts tbody tr")
    expect(counts.nth(3)).to_contain_text(re.compile(r"blunder\s*1\s*0"))
    moment = summary.locator(".review-moment-blunder")
    expect(moment).to_contain_text("Move 3, X (you): cell 9 ?? blunder, a win became a loss.")
    expect(moment).to_contain_text("Best: cell 3.")
    page.screenshot(path=str(screenshots / "review-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(screenshots / "review-phone.png"), full_page=True)

    moment.get_by_role("button", name=re.compile("Retry from the position before move 5")).click()
    page.wait_for_url(re.compile(r"/g/[^/]+$"))
    expect(page.locator("#moves .move")).to_have_count(4)  # the position before the blunder
    ui.click("3")  # and this time X wins
    expect(page.locator("#turn")).to_have_text(re.compile("You won"), timeout=ENGINE_TIMEOUT_MS)


def test_a_game_in_progress_is_reviewed_on_request(page: Page, screenshots: Path) -> None:
    settings = {"engine_plays": "first"}
    data = {"game": "tictactoe", "moves": "1", "settings": settings}
    response = page.request.post("/api/games", data=data)
    page.goto(f"/g/{response.json()['id']}")
    GamePage(page).click("4")  # O's mistake: only the centre holds the draw
    GamePage(page).wait_for_moves(3)
    page.get_by_role("button", name="Review the moves so far").click()
    expect(page.locator('#moves button[data-ply="2"]')).to_contain_text("? mistake")
    expect(page.locator('#moves button[data-ply="1"]')).to_contain_text("· preset")
    page.locator('#moves button[data-ply="1"]').click()
    expect(page.locator("#eval-text")).to_have_text("Draw with best play")
    expect(page.locator("#eval-figure")).to_be_hidden()  # a "Draw" chip beside it says it twice
    # The bar agrees with the words, also after the board resized (a full-page screenshot
    # resizes the window for a moment). A change of value animates the fill (0.35 s), so
    # the drawn share is awaited, then must stay at one half.
    expect(page.locator("#eval-bar")).to_have_attribute("data-share", "0.50")
    page.set_viewport_size({"width": 1280, "height": 800})  # the window's height sizes the board
    page.screenshot(path=str(screenshots / "review-draw-1280.png"), full_page=True)
    filled = "e => e.firstElementChild.getBoundingClientRect().height / e.clientHeight"
    half = "() => Math.abs(document.querySelector('#eval-bar').firstElementChild"
    half += ".getBoundingClientRect().height / document.querySelector('#eval-bar')"
    half += ".clientHeight - 0.5) <= 0.02"
    page.wait_for_function(half, timeout=5000)
    page.wait_for_timeout(500)  # longer than the transition: nothing moves it any more
    assert page.locator("#eval-bar").evaluate(filled) == pytest.approx(0.5, abs=0.02)
    page.locator('#moves button[data-ply="2"]').click()
    link = page.get_by_role("link", name="Analyse this position")
    expect(link).to_have_attribute("href", "/analysis?game=tictactoe&moves=14")


def board_moves(page: Page) -> str:
    return parse_qs(urlparse(page.url).query).get("moves", [""])[0]


def test_the_analysis_board_moves_both_sides_and_keeps_variations(
    page: Page, context: BrowserContext, screenshots: Path
) -> None:
    page.goto("/analysis?game=tictactoe&moves=5")
    headline = page.locator("#ab-headline")
    expect(headline).to_have_text("O to move: a draw with best play (exact).")
    scores = page.locator("#ab-scores")
    expect(scores.get_by_role("button", name=re.compile(r"^Cell 1 draw"))).to_contain_text("best")
    expect(scores.get_by_role("button", name=re.compile(r"^Cell 2 loss in"))).to_have_count(1)

    page.locator(".board").locator('button[data-move="2"]').click()  # O, by hand
    page.locator("body").press("9")  # X, from the keyboard
    expect(page).to_have_url(re.compile(r"moves=529$"))
    expect(headline).to_contain_text("O to move: loss in")

    page.locator("body").press("ArrowLeft")
    page.locator("body").press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"moves=5$"))
    page.locator("body").press("1")  # a variation: O at 1 instead of 2
    tree = page.locator("#ab-tree")
    expect(tree.locator(".ab-variation")).to_have_count(1)
    expect(tree.get_by_role("button", name="Move 1: O, cell 1")).to_have_attribute(
        "aria-current", "step"
    )
    expect(page.locator("#ab-promote")).to_be_enabled()
    page.locator("#ab-promote").click()  # now 1 is the main line, 2 9 the variation
    expect(page.locator("#ab-promote")).to_be_disabled()
    expect(tree.locator(".ab-variation")).to_contain_text("2")
    expect(headline).to_contain_text("X to move: a draw")

    link = page.locator("#ab-link").input_value()
    assert board_moves(page) == "51" and link.endswith("/analysis?game=tictactoe&moves=51")
    page.screenshot(path=str(screenshots / "analysis-board-desktop.png"), full_page=True)
    shared = context.new_page()
    shared.set_viewport_size(PHONE)
    shared.goto(link)
    expect(shared.locator("#ab-turn")).to_have_text("X to move, after 2 moves.")
    expect(shared.locator("#ab-headline")).to_contain_text("X to move: a draw")
    shared.screenshot(path=str(screenshots / "analysis-board-phone.png"), full_page=True)
    shared.close()

    page.get_by_role("button", name="Play the engine from here").click()
    page.wait_for_url(re.compile(r"/g/[^/]+$"))
    expect(page.locator("#moves .move")).to_have_count(2)
    expect(page.locator("#turn")).to_have_text("Your move (X)")


def test_the_analysis_board_of_connect4_scores_from_the_book(page: Page) -> None:
    page.goto("/analysis?game=connect4")
    expect(page.locator("#ab-headline")).to_contain_text(
        "Red to move: win in", timeout=ENGINE_TIMEOUT_MS
    )
    expect(page.locator("#ab-headline")).to_contain_text("opening book")
    expect(page.locator(".c4-badges .score-badge.score-win")).to_have_count(1)


@pytest.mark.parametrize("query", ["game=chess", "game=tictactoe&moves=11"])
def test_a_bad_analysis_link_says_why(page: Page, query: str) -> None:
    response = page.goto(f"/analysis?{query}")
    assert response is not None and response.status == 400
    expect(page.locator("main")).to_contain_text("This position cannot be analysed")


def test_the_analysis_board_fits_a_phone_with_44px_targets(page: Page) -> None:
    page.set_viewport_size(PHONE)
    page.goto("/analysis?game=connect4&moves=4453")
    expect(page.locator("#ab-scores button")).to_have_count(7, timeout=ENGINE_TIMEOUT_MS)
    page.locator("body").press("ArrowLeft")
    page.locator("body").press("6")  # a variation, so the tree has one to draw
    expect(page.locator("#ab-tree .ab-variation")).to_have_count(1)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    small = page.evaluate(
        """[...document.querySelectorAll('main button, main select, main input')]
            .filter((el) => el.offsetParent !== null)
            .map((el) => [el.id || el.textContent.trim(), el.getBoundingClientRect().height])
            .filter(([, height]) => height < 44)"""
    )
    assert small == []
