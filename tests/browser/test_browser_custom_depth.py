"""The Custom level's depth (QA: custom_inv_d.png): a refused depth is focused in view,
clear of the home page's sticky buttons, and described; the Minimax label never names a
depth the server would refuse; each game says and enforces its own bound (tic-tac-toe 9,
Connect Four 42), on the home page and in a game's settings."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.game_page import GamePage


def minimax_label(page: Page) -> str:
    return page.locator('label:has(input[name="algorithm"][value="minimax"]) span').inner_text()


def test_a_refused_depth_is_focused_in_view_above_the_sticky_buttons(
    sized: Page, screenshots: Path
) -> None:
    page = sized
    page.goto("/")
    page.get_by_role("radio", name="Custom").check()
    depth = page.get_by_label("Depth (plies)")
    depth.fill("0")
    page.evaluate("window.scrollTo(0, 0)")  # where the QA tester stood: the field under the bar
    page.locator("#start").click()
    expect(page.locator("#form-status")).to_have_text("Depth: a whole number from 1 to 9.")
    expect(depth).to_be_focused()
    expect(depth).to_have_attribute("aria-invalid", "true")
    expect(depth).to_have_accessible_description(re.compile(r"A whole number from 1 to 9\.$"))
    field = depth.bounding_box()
    bar = page.locator(".form-actions").bounding_box()
    assert field is not None and bar is not None
    assert field["y"] >= 0, field
    assert field["y"] + field["height"] <= bar["y"], (field, bar)  # not under the sticky bar
    message = page.locator('[data-range-of="depth"]').bounding_box()
    assert message is not None and message["y"] + message["height"] <= bar["y"], (message, bar)
    assert minimax_label(page) == "Minimax"  # not "Minimax (depth 0)"
    expect(page).to_have_url(re.compile(r"/$"))
    width = page.viewport_size["width"] if page.viewport_size else 0
    page.screenshot(path=screenshots / f"custom-depth-refused-{width}.png")


def test_each_game_says_and_enforces_its_own_depth_bound(page: Page) -> None:
    page.goto("/")
    page.get_by_role("radio", name="Custom").check()
    depth = page.get_by_label("Depth (plies)")
    depth_range = page.locator('[data-range-of="depth"]')
    expect(depth_range).to_have_text("A whole number from 1 to 9.")  # tic-tac-toe, the first
    expect(depth).to_have_attribute("max", "9")
    depth.fill("30")
    expect(depth).to_have_attribute("aria-invalid", "true")
    assert minimax_label(page) == "Minimax"  # not "Minimax (depth 30)"
    page.locator("#start").click()
    expect(page.locator("#form-status")).to_have_text("Depth: a whole number from 1 to 9.")
    expect(page).to_have_url(re.compile(r"/$"))
    # Connect Four keeps its 42: 30 is fine there.
    page.locator(".game-card", has_text="Connect Four").click()
    expect(depth_range).to_have_text("A whole number from 1 to 42.")
    expect(depth).to_have_attribute("max", "42")
    expect(depth).to_have_attribute("aria-invalid", "false")
    assert re.fullmatch(r"Minimax \(depth \d+\)", minimax_label(page))
    # Back to tic-tac-toe, its deepest depth is taken and named.
    page.locator(".game-card", has_text="Tic-tac-toe").click()
    expect(depth).to_have_attribute("aria-invalid", "true")
    depth.fill("9")
    expect(depth).to_have_attribute("aria-invalid", "false")
    assert minimax_label(page) == "Minimax (depth 9)"
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[^/]+$"))


def test_a_games_settings_form_holds_its_own_bound(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=custom&depth=5&engine_plays=second")
    ui.wait_joined()  # the join's state sets the form: edits made before it are overwritten
    depth = page.get_by_label("Depth (plies)")
    expect(depth).to_have_value("5")
    expect(page.locator('[data-range-of="depth"]')).to_have_text("A whole number from 1 to 9.")
    expect(depth).to_have_attribute("max", "9")
    depth.fill("30")
    depth.press("Tab")
    expect(page.locator("#notice")).to_contain_text("Not saved. Depth: a whole number from 1 to 9.")
    expect(depth).to_have_attribute("aria-invalid", "true")
    assert minimax_label(page) == "Minimax"


def test_a_position_link_deeper_than_its_game_is_refused(page: Page) -> None:
    page.goto("/new?game=tictactoe&level=custom&depth=30")
    expect(page.locator("body")).to_contain_text("from 1 to 9 in Tic-tac-toe")


def test_a_refused_depth_in_a_games_settings_comes_into_view_clear_of_the_notice(
    sized: Page,
) -> None:
    """QA (set_m_12.png): on a phone, Enter on a refused depth left the field at the
    window's bottom edge, under the notice saying what was wrong."""
    page = sized
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=custom&depth=5&engine_plays=second")
    ui.wait_joined()  # the join's state sets the form: edits made before it are overwritten
    depth = page.get_by_label("Depth (plies)")
    depth.scroll_into_view_if_needed()
    depth.evaluate("(el) => window.scrollBy(0, el.getBoundingClientRect().bottom - innerHeight)")
    depth.fill("12")
    depth.press("Enter")
    notice = page.locator("#notice")
    expect(notice).to_contain_text("Not saved. Depth: a whole number from 1 to 9.")
    expect(depth).to_be_focused()
    field, said = depth.bounding_box(), notice.bounding_box()
    height = page.viewport_size["height"] if page.viewport_size else 0
    assert field is not None and said is not None
    assert field["y"] >= 0 and field["y"] + field["height"] <= height, field
    apart = field["y"] + field["height"] <= said["y"] or said["y"] + said["height"] <= field["y"]
    assert apart, (field, said)


def test_a_depth_stored_past_the_games_bound_shows_as_the_bound(page: Page) -> None:
    """A tic-tac-toe game an older server stored at depth 30 (before the game's own bound)
    searches the same tree as depth 9, and its next game takes 9: its form shows 9, valid,
    not a red 30 that the server would refuse if sent back."""
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=custom&depth=5&engine_plays=second")
    ui.wait_joined()  # the join's state sets the form: edits made before it are overwritten
    depth = page.get_by_label("Depth (plies)")
    expect(depth).to_have_value("5")
    page.evaluate(
        """import('/static/js/settings-form.js').then((m) => {
             const limits = {max_depth: 42, game_max_depth: {tictactoe: 9, connect4: 42}};
             const form = m.bindSettings(document.getElementById('settings-form'), {limits});
             form.show({algorithm: 'alphabeta', level: 'custom', depth: 30, time: null,
                        engine_plays: 'second', show_analysis: true});
           })"""
    )
    expect(depth).to_have_value("9")
    expect(depth).to_have_attribute("aria-invalid", "false")
    assert minimax_label(page) == "Minimax (depth 9)"
