"""The search-tree explorer's words (/tree): the position named by its moves, the depth
the search can reach, why alpha-beta stopped deepening, and the page with no game named."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

#: X to move with a win at cell 3, 5 moves left: alpha-beta proves it at depth 1.
WIN_NOW = "/tree?game=tictactoe&moves=1529&algorithm=alphabeta&depth=9"


def load(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body.tree-loaded")


def test_the_lead_names_the_moves_and_the_status_why_the_deepening_stopped(
    sized: Page, screenshots: Path
) -> None:
    """It said "The position after 1529." and "to depth 9" with 5 moves left."""
    load(sized, WIN_NOW)
    lead = sized.locator("#tree-lead")
    expect(lead).to_have_text(
        "The position after 4 moves (cells 1 5 2 9), X to move. Alpha-beta to depth 5, every "
        "node in the order the engine visited it (depth 9 was asked, but only 5 moves are "
        "left).",
        use_inner_text=True,
    )
    status = sized.locator("#tree-status")
    expect(status).to_contain_text("visited 6 nodes")
    # The value in the game page's words too, not a bare "+7" (QA).
    expect(status).to_contain_text(re.compile(r"chose cell 3 \(value \+\d+: win in 1 for X\)"))
    expect(status).to_contain_text(
        "It stopped deepening at depth 1, short of 5: that depth already proved the result"
    )
    viewport = sized.viewport_size
    assert viewport is not None
    width = sized.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], (viewport, width)  # the longer lead still fits
    sized.screenshot(path=screenshots / f"tree-words-{viewport['width']}.png")


def test_the_page_with_no_game_opens_connect_four_as_the_analysis_board_does(
    sized: Page,
) -> None:
    load(sized, "/tree")
    expect(sized.locator(".tree-title")).to_have_text("Search tree: Connect Four")
    expect(sized.locator("#tree-lead")).to_contain_text("The empty board, Red to move.")
    expect(sized.locator("#tree-status")).to_contain_text("visited")
