"""An earlier position's scores on the board for a page that never saw them live: the
player after a reload, a spectator who joined later. Stepping back asks the server's
analysis for them (static/js/scores-fill.js)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, Route, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage


def scored_cells(page: Page) -> int:
    """How many of the board's cells carry a score badge with words in it."""
    return page.locator(".board .score-badge[title]").count()


def on_top(locator: Locator) -> bool:
    """Whether the element painted at the middle of ``locator``'s box is it or inside it.
    (The board's overlays let clicks through, which hit tests skip: they are made to
    count here for the test, then let be.)"""
    return bool(
        locator.evaluate(
            """(el) => {
                const overlays = [...document.querySelectorAll(".board .best-ring, .board .ghost")];
                for (const o of overlays) o.style.pointerEvents = "auto";
                const box = el.getBoundingClientRect();
                const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
                const hit = document.elementFromPoint(x, y);
                for (const o of overlays) o.style.pointerEvents = "";
                return el.contains(hit);
            }"""
        )
    )


def test_a_reloaded_page_and_a_spectator_see_the_scores_of_earlier_positions(
    page: Page, browser: Browser, base_url: str, screenshots: Path
) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=easy&engine_plays=second")
    ui.click("1")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    page.reload()  # the page's memory of the earlier positions' scores is gone
    ui.wait_for_my_turn()
    held: list[Route] = []  # the analysis asked for is held until the page has said so
    page.route("**/api/analysis?*", lambda route: held.append(route))
    # Asked once the page has stayed on the position a moment.
    with page.expect_request("**/api/analysis?*", timeout=ENGINE_TIMEOUT_MS):
        page.locator("body").press("ArrowLeft")
        page.locator("body").press("ArrowLeft")  # the empty board: X's nine options
        expect(page.locator("#turn")).to_contain_text("Reviewing the start")
        expect(page.locator("#review-text")).to_contain_text("Scoring it…")
    expect(page.locator("#review-text")).to_contain_text("Scoring it…")  # still asking
    assert len(held) == 1 and scored_cells(page) == 0
    held[0].continue_()
    badges = page.locator(".board .score-badge[title]")
    expect(badges).to_have_count(9, timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#review-text")).not_to_contain_text("Scoring")
    # Tic-tac-toe is a draw with best play, and the analysis solves it: every corner,
    # the centre and every edge draws.
    for title in badges.evaluate_all("(els) => els.map((e) => e.getAttribute('title'))"):
        assert re.search(r"draw", str(title), re.IGNORECASE), title
    page.screenshot(path=screenshots / "earlier-scores-reloaded.png")

    visitor = browser.new_context(base_url=base_url)  # no seat cookie: a spectator
    try:
        other = visitor.new_page()
        other.goto(page.url)
        expect(other.locator("#spectator-bar")).to_be_visible()
        other.locator("body").press("ArrowLeft")  # after X's 1: O's eight options
        expect(other.locator("#turn")).to_contain_text("Reviewing move 1")
        # The engine's move from here is not on the board shown: the panel says so.
        expect(other.locator("#result-headline")).to_contain_text("From here, O played cell")
        expect(other.locator(".board .score-badge[title]")).to_have_count(
            8, timeout=ENGINE_TIMEOUT_MS
        )
        # Against a corner only the centre draws: O's other seven moves lose.
        centre = other.locator('.board button[data-move="5"] .score-badge')
        expect(centre).to_have_attribute("title", re.compile("draw", re.IGNORECASE))
        edge = other.locator('.board button[data-move="2"] .score-badge')
        expect(edge).to_have_attribute("title", re.compile("los", re.IGNORECASE))
        assert scored_cells(other) == 8
        # The best move's ring does not cross out its badge's words: the badge is on top.
        expect(other.locator('.board button[data-move="5"] .best-ring')).to_have_count(1)
        assert on_top(centre)
    finally:
        visitor.close()
