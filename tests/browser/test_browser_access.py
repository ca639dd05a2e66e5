"""Reading and touching the pages (issue 8): limits said in words, speeds, a phone's
depth table and touch targets, cell names that hold their visible text, yellow discs
apart from holes, and "your recent games" on the home page."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.browser.game_page import GamePage

PHONE = {"width": 390, "height": 844}
#: WCAG 2.5.5: the smallest touch target, in CSS pixels.
TOUCH = 44


def words(text: str) -> list[str]:
    """Lower-case words without punctuation, as label-in-name checks compare names."""
    return re.findall(r"[a-z0-9]+", text.lower())


def in_order(needles: list[str], haystack: list[str]) -> bool:
    """True when every word of ``needles`` appears in ``haystack``, in the same order."""
    rest = iter(haystack)
    return all(word in rest for word in needles)


def test_invalid_custom_limits_say_the_allowed_range(page: Page) -> None:
    page.goto("/")
    page.get_by_role("radio", name="Custom").check()
    depth = page.get_by_label("Depth (plies)")
    depth_range = page.locator('[data-range-of="depth"]')
    expect(depth_range).to_be_visible()
    expect(depth_range).to_have_text(re.compile(r"^A whole number from 1 to \d+\.$"))
    expect(depth).to_have_accessible_description(re.compile("from 1 to"))
    depth.fill("999")
    expect(depth).to_have_attribute("aria-invalid", "true")
    expect(depth_range).to_have_class(re.compile("is-error"))
    depth.fill("8")
    expect(depth).to_have_attribute("aria-invalid", "false")
    expect(depth_range).not_to_have_class(re.compile("is-error"))
    time = page.get_by_label("Time (seconds)")
    time.fill("0")
    expect(page.locator('[data-range-of="time"]')).to_have_text(
        re.compile(r"^From [\d.]+ to [\d.]+ seconds\.$")
    )
    expect(page.locator('[data-range-of="time"]')).to_have_class(re.compile("is-error"))
    # Play does not start a game the form says is wrong: it says why, and stays.
    page.locator("#start").click()  # the engine game's button (not "Play a friend")
    expect(page.locator("#form-status")).to_have_text(re.compile(r"^Time: from [\d.]+ to"))
    expect(page).to_have_url(re.compile(r"/$"))
    time.fill("")  # no time limit: the depth alone is a custom level
    expect(page.locator('[data-range-of="time"]')).not_to_have_class(re.compile("is-error"))
    page.locator("#start").click()  # the engine game's button (not "Play a friend")
    page.wait_for_url(re.compile(r"/g/[^/]+$"))
    # In the game, the form shows the limits the server holds, and refuses a wrong one.
    expect(page.get_by_label("Depth (plies)")).to_have_value("8")
    expect(page.get_by_label("Time (seconds)")).to_have_value("")
    page.get_by_label("Depth (plies)").fill("0")
    page.get_by_label("Depth (plies)").press("Tab")
    expect(page.locator("#notice")).to_contain_text("Not saved. Depth: a whole number from 1 to")


def test_phone_depth_table_fits_and_touch_targets_are_44px(
    browser: Browser, base_url: str, screenshots: Path
) -> None:
    context = browser.new_context(base_url=base_url, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        ui = GamePage(page)
        ui.open_new("game=connect4&moves=4453&level=medium&engine_plays=second")
        ui.wait_for_my_turn()
        ui.cell("3").tap()
        ui.wait_for_moves(6)
        ui.wait_for_my_turn()
        expect(page.locator("#depth-table tbody tr").first).to_be_visible()
        # Every column's score for the player follows the engine's move (the scores event),
        # and the engine's options before its move come into the panel.
        expect(ui.board.locator(".c4-badges .score-badge[title]")).to_have_count(7)
        expect(ui.candidates).to_have_count(7)
        table = page.evaluate(
            """(() => {
              // A row as deep as a long search makes (depth 23, 23 million nodes).
              const body = document.querySelector("#depth-table tbody");
              const rows = body.querySelectorAll("tr:not(.is-total):not(.is-played)");
              const deep = rows[rows.length - 1].cloneNode(true);
              const texts = ["23", "+0.02", "4 4 4 5 2 1 3 3 2 4 3 3 1 2 2 3 7 7 7 2 2 6 5",
                             "23,026,178", "4.6 M/s", "4.96 s"];
              [...deep.children].forEach((td, i) => { td.textContent = texts[i]; });
              body.append(deep);
              const wrap = document.querySelector("#depths .table-wrap");
              return {wrap: wrap.clientWidth, scroll: wrap.scrollWidth,
                      page: document.documentElement.scrollWidth};
            })()"""
        )
        assert table["scroll"] <= table["wrap"], f"the depth table overflows its box: {table}"
        assert table["page"] <= PHONE["width"], table
        # Measured in one go: the panel's options are drawn again when their exact pass
        # lands (at every level), and an element measured after it was replaced has no box.
        boxes = page.evaluate(
            """(() => [...document.querySelectorAll(
                  "#moves .move, #candidates li, .board .c4-badges .score-badge")]
                .map((e) => { const r = e.getBoundingClientRect();
                              return {text: e.textContent, width: r.width,
                                      height: r.height}; }))()"""
        )
        assert len(boxes) == 6 + 7 + 7, boxes
        for box in boxes:
            assert box["width"] >= TOUCH and box["height"] >= TOUCH, box
        # The settings: the Strength and Algorithm segments (their radios cover them), the
        # panel's summary and the analysis switch are at least 44 px tall.
        settings = page.locator(".settings-panel")
        tall = {
            "segments": settings.locator(".segment input").all(),
            "summary": [settings.locator("summary")],
            "switch": [settings.locator('input[name="show_analysis"]')],
        }
        assert len(tall["segments"]) >= 5 + 2
        for what, controls in tall.items():
            for control in controls:
                box = control.bounding_box()
                assert box is not None and box["height"] >= TOUCH, (what, box)
                assert box["width"] >= TOUCH, (what, box)
        page.locator("#analysis").screenshot(
            path=screenshots / "phone-analysis.png", animations="disabled"
        )
        page.locator("#moves").screenshot(
            path=screenshots / "phone-moves.png", animations="disabled"
        )
    finally:
        context.close()


def test_tictactoe_cell_names_hold_their_visible_text(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&moves=1&level=perfect&engine_plays=second")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    page.locator("#pv-toggle").click()  # the line's numbers are visible text too
    expect(ui.board.locator(".ghost").first).to_be_visible()
    expect(ui.board.locator(".score-badge:not(:empty)").first).to_be_visible()
    checked = 0
    for move in "123456789":
        cell = ui.cell(move)
        visible = words(cell.inner_text())
        name = cell.get_attribute("aria-label") or ""
        assert visible and in_order(visible, words(name)), (move, visible, name)
        checked += 1
        expect(cell).to_have_accessible_name(name)
    assert checked == 9
    scored = ui.board.locator(".score-badge:not(:empty)").first.locator("xpath=..")
    assert re.match(
        r"^Cell \d (win in \d|loss in \d|draw)", scored.get_attribute("aria-label") or ""
    )


def luminance(rgb: str) -> float:
    """WCAG relative luminance of a computed ``rgb(r, g, b)`` colour."""
    channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_yellow_discs_differ_from_holes_in_greyscale(page: Page, screenshots: Path) -> None:
    ui = GamePage(page)
    ui.open_new("game=connect4&moves=4453&level=easy&engine_plays=second")
    ui.wait_for_my_turn()
    colours = page.evaluate(
        """(() => {
          const yellow = document.querySelector(".disc-p1");
          const hole = document.querySelector(".c4-slot:not(:has(.disc))");
          const probe = document.createElement("span");
          probe.style.color = "var(--p1)";
          document.body.append(probe);
          const p1 = getComputedStyle(probe).color;
          probe.remove();
          return {p1, ring: getComputedStyle(yellow, "::before").borderTopColor,
                  hole: getComputedStyle(hole).backgroundColor};
        })()"""
    )
    assert contrast(colours["p1"], colours["hole"]) >= 2.0, colours
    assert contrast(colours["ring"], colours["hole"]) >= 4.5, colours  # the ring: a shape apart
    ui.board.screenshot(path=screenshots / "connect4-yellow.png", animations="disabled")


def test_home_lists_this_browsers_recent_games(page: Page, screenshots: Path) -> None:
    page.goto("/")
    expect(page.locator("#recent-games")).to_be_hidden()  # a new browser has none
    ui = GamePage(page)
    ui.start_from_home("tictactoe", "easy")
    game_url = page.url
    ui.click("5")
    ui.wait_for_moves(2)
    page.goto("/")
    recent = page.locator("#recent-games")
    expect(recent).to_be_visible()
    expect(recent.get_by_role("heading")).to_have_text("Your recent games")
    items = recent.locator("li")
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("Tic-tac-toe · Easy")  # two games of a kind differ
    # (a no-break space before each dot keeps it with its word when the card wraps)
    expect(items.first).to_contain_text(re.compile(r"you play X\s· in progress\s· 2 moves"))
    link = items.first.get_by_role("link")
    assert game_url.endswith(link.get_attribute("href") or "-")
    box = link.bounding_box()
    assert box is not None and box["height"] >= TOUCH
    page.screenshot(path=screenshots / "home-recent-games.png", animations="disabled")
    link.click()
    page.wait_for_url(game_url)


def test_tictactoe_score_badges_fit_inside_their_cells(browser: Browser, base_url: str) -> None:
    """The longest words ("slightly worse · depth 4") wrap inside the cell, clear of the
    grid lines, on a desktop and on a phone."""
    for viewport, mobile in (({"width": 1280, "height": 900}, False), (PHONE, True)):
        context = browser.new_context(
            base_url=base_url, viewport=viewport, is_mobile=mobile, has_touch=mobile
        )
        try:
            page = context.new_page()
            ui = GamePage(page)
            ui.open_new("game=tictactoe&moves=5&level=medium&engine_plays=first")
            ui.wait_for_my_turn()
            expect(ui.board.locator(".score-badge[title]")).to_have_count(8)
            for move in "12346789":
                cell = ui.cell(move).bounding_box()
                badge = ui.cell(move).locator(".score-badge").bounding_box()
                assert cell is not None and badge is not None
                inside = (
                    badge["x"] >= cell["x"]
                    and badge["x"] + badge["width"] <= cell["x"] + cell["width"]
                    and badge["y"] + badge["height"] <= cell["y"] + cell["height"]
                )
                assert inside, (viewport, move, cell, badge)
        finally:
            context.close()
