"""Any position on the analysis board (static/js/position-input.js): a typed move
sequence and the position editor, at desktop and phone sizes; the page opens at its top."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.sizes import SIZES, in_viewport, sized_context, watched_page

#: What a refused sequence adds: the board did not move.
KEPT = " The board still shows the previous position."


@pytest.fixture(params=sorted(SIZES))
def sized(request: pytest.FixtureRequest, browser: Browser, base_url: str) -> Iterator[Page]:
    """A page at one of the two sizes, failing the test on any script error."""
    context = sized_context(browser, base_url, request.param)
    errors: list[str] = []
    page = watched_page(context, errors)
    page.size_name = request.param  # type: ignore[attr-defined]
    yield page
    context.close()
    assert not errors, errors


def test_the_analysis_board_opens_at_its_top(sized: Page) -> None:
    sized.goto("/analysis?game=connect4&moves=4453")
    expect(sized.locator("#ab-tree [aria-current]")).to_be_visible()
    expect(sized.locator("#ab-headline")).not_to_have_text("")
    assert sized.evaluate("window.scrollY") == 0
    assert in_viewport(sized, sized.locator("#ab-title"))


def test_a_typed_sequence_goes_to_its_position_or_says_which_move_is_wrong(
    sized: Page, screenshots: Path
) -> None:
    sized.goto("/analysis?game=connect4")
    expect(sized.locator("#ab-scores li")).to_have_count(7)  # drawn: the page is still now
    field = sized.locator("#ab-sequence")
    field.fill("d d e c")
    field.press("Enter")
    expect(sized).to_have_url(re.compile(r"moves=4453$"))
    expect(sized.locator("#ab-turn")).to_have_text("Red to move, after 4 moves.")
    expect(field).to_have_value("")
    expect(sized.locator("#ab-scores li")).to_have_count(7)

    field.fill("1 1 1 1 1 1 1")
    sized.get_by_role("button", name="Show", exact=True).click()
    error = sized.locator("#ab-sequence-error")
    # the refusal says the board kept its position (it used to keep it silently)
    expect(error).to_have_text(f"Move 7 (1): column 1 is full.{KEPT}")
    assert in_viewport(sized, error)  # beside the field, where the person looks
    expect(sized).to_have_url(re.compile(r"moves=4453$"))  # the board did not move
    sized.screenshot(path=screenshots / f"any-position-error-{sized.size_name}.png")  # type: ignore[attr-defined]
    field.fill("12x")
    field.press("Enter")
    expect(error).to_have_text(f"Move 3 (x): 'x' is not a column (1-7 or a-g).{KEPT}")
    field.fill("d4")  # a chess square was read as columns 4 and 4
    field.press("Enter")
    expect(error).to_have_text(
        "Move 1 (d4): letters and digits in one word: write the columns as 1-7 or as a-g." + KEPT
    )
    expect(sized).to_have_url(re.compile(r"moves=4453$"))
    field.fill("")
    sized.get_by_role("button", name="Show", exact=True).click()
    expect(error).to_have_text("Type a move sequence, like 4453.")
    field.fill("1")
    expect(error).to_be_hidden()  # typing again clears the old complaint


def test_the_editor_refuses_an_impossible_position_and_analyses_a_possible_one(
    sized: Page, screenshots: Path
) -> None:
    sized.goto("/analysis?game=connect4&moves=44")
    sized.get_by_role("button", name="Set up a position by hand").click()
    grid = sized.locator("#ab-editor-grid")
    expect(grid.get_by_role("button", name="Row 6, column 4: Red")).to_be_visible()
    expect(grid.get_by_role("button", name="Row 5, column 4: Yellow")).to_be_visible()
    grid.get_by_role("button", name="Row 4, column 1: empty").click()  # a floating disc
    go = sized.get_by_role("button", name="Analyse this position")
    go.click()
    error = sized.locator("#ab-editor-error")
    expect(error).to_have_text("A disc floats in column 1: the cell under it is empty.")
    assert in_viewport(sized, error)
    sized.screenshot(path=screenshots / f"position-editor-{sized.size_name}.png")  # type: ignore[attr-defined]

    grid.get_by_role("button", name="Row 4, column 1: Red").click()  # now Yellow
    grid.get_by_role("button", name="Row 4, column 1: Yellow").click()  # now empty again
    grid.get_by_role("button", name="Row 6, column 1: empty").click()  # Red, on the bottom
    # the counts decide who moves: 2 Red and 1 Yellow, Yellow; said in words, with no
    # greyed radios (they looked broken)
    expect(sized.locator("#ab-editor-side-text")).to_have_text("Yellow to move")
    expect(sized.get_by_role("radio")).to_have_count(0)
    go.click()
    expect(sized).to_have_url(re.compile(r"moves=\d{3}$"))
    expect(sized.locator("#ab-turn")).to_have_text("Yellow to move, after 3 moves.")
    expect(sized.locator("#ab-editor")).to_be_hidden()


def test_the_tictactoe_editor_reaches_a_drawn_position(sized: Page) -> None:
    sized.goto("/analysis?game=tictactoe")
    sized.get_by_role("button", name="Set up a position by hand").click()
    grid = sized.locator("#ab-editor-grid")
    expect(sized.get_by_role("radio", name="X")).to_be_checked()  # the empty board: X
    grid.get_by_role("button", name="Row 2, column 2: empty").click()
    expect(sized.get_by_role("radio", name="O")).to_be_checked()  # one X: O, by itself
    grid.get_by_role("button", name="Row 1, column 1: empty").click()
    grid.get_by_role("button", name="Row 1, column 1: X").click()
    expect(sized.get_by_role("radio", name="X")).to_be_checked()  # one of each: X moves
    sized.get_by_role("button", name="Analyse this position").click()
    expect(sized).to_have_url(re.compile(r"moves=51$"))


def test_the_board_stays_in_view_beside_the_open_editor(sized: Page, screenshots: Path) -> None:
    """Issue 19: the open editor makes the side column tall; on a desktop the board card keeps
    to the top of the window (sticky) while the editor is used, its refusal included."""
    sized.goto("/analysis?game=connect4")
    board_card = sized.locator(".board-area")
    top = board_card.bounding_box()
    sized.get_by_role("button", name="Set up a position by hand").click()
    grid = sized.locator("#ab-editor-grid")
    grid.get_by_role("button", name="Row 3, column 2: empty").click()  # a floating disc
    sized.get_by_role("button", name="Analyse this position").click()
    error = sized.locator("#ab-editor-error")
    expect(error).to_have_text("A disc floats in column 2: the cell under it is empty.")
    assert in_viewport(sized, error)
    if sized.size_name == "desktop":  # type: ignore[attr-defined]
        assert sized.evaluate("window.scrollY") > 0  # the column scrolled: the board did not
        assert in_viewport(sized, sized.locator("#board"))
        box = board_card.bounding_box()
        assert top and box and box["y"] <= top["y"], (top, box)  # never lower than it opened
    sized.screenshot(path=screenshots / f"editor-board-in-view-{sized.size_name}.png")  # type: ignore[attr-defined]
