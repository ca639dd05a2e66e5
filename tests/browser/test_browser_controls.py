"""What a new user hit on the game page (issue 8): keys after a settings click, the line
toggle under the pointer, the depth table beside another search's headline, Undo with
nothing to undo, a move while disconnected, depth rows replayed on joining."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, WebSocketRoute, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, KEEP_SOCKET, GamePage
from tests.browser.test_browser_modules import call


def checked(page: Page, name: str) -> str | None:
    return page.locator(f'#settings-form input[name="{name}"]:checked').get_attribute("value")


def test_keys_play_after_a_settings_option_is_clicked(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=easy&algorithm=alphabeta&engine_plays=second")
    ui.click("5")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()

    page.locator("#settings-form label.segment", has_text="Minimax").click()
    expect(ui.notice).to_contain_text("Settings saved")
    assert checked(page, "algorithm") == "minimax"

    # The arrows step through the moves; they no longer change the setting.
    page.keyboard.press("ArrowLeft")
    reviewing = re.compile(r"^Reviewing move 1, \w+ \(live: after move 1, \w+\)$")
    expect(page.locator("#turn")).to_have_text(reviewing)
    assert checked(page, "algorithm") == "minimax"
    page.keyboard.press("End")
    expect(page.locator("#review-banner")).to_be_hidden()

    # A number key plays (it used to be dropped without a word).
    empty = next(m for m in "12346789" if "empty" in (ui.cell(m).get_attribute("aria-label") or ""))
    page.keyboard.press(empty)
    expect(ui.moves.nth(2)).to_have_text(empty)  # played (the engine may have replied already)
    assert checked(page, "algorithm") == "minimax" and checked(page, "level") == "easy"


def test_a_state_sent_before_a_settings_change_arrived_does_not_undo_the_click(
    page: Page,
) -> None:
    """The server's messages held back from the moment of the click; a state it sent
    before the change came (as the engine's options, saved a moment after its move, are)
    reaches the page: the form keeps the player's choice. (It flipped back until the
    change's own state came: a test that read the form then saw the old value.)"""
    pages: list[WebSocketRoute] = []
    holding: list[str | bytes] = []
    hold = [False]

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda m: holding.append(m) if hold[0] else ws.send(m))
        ws.on_message(server.send)
        pages.append(ws)

    page.route_web_socket(re.compile(r"/socket\.io/"), route)
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=easy&algorithm=alphabeta&engine_plays=second")
    ui.wait_joined()
    game_id = page.url.rsplit("/", 1)[1]
    state = page.request.get(f"/api/games/{game_id}").json()
    hold[0] = True
    page.locator("#settings-form label.segment", has_text="Minimax").click()
    expect(ui.notice).to_contain_text("Settings saved")
    stale = state | {"version": state["version"] + 1}
    stale["settings"] = state["settings"] | {"algorithm": "alphabeta", "show_analysis": False}
    pages[-1].send("42" + json.dumps(["state", stale]))
    # The stale state is shown (the analysis switch it carries), but not over the click.
    expect(page.locator('#settings-form input[name="show_analysis"]')).not_to_be_checked()
    assert checked(page, "algorithm") == "minimax"
    hold[0] = False
    for message in holding:  # the server's own answer: minimax, the analysis on
        pages[-1].send(message)
    expect(page.locator('#settings-form input[name="show_analysis"]')).to_be_checked()
    assert checked(page, "algorithm") == "minimax"


def test_hide_line_on_board_hides_it_under_the_pointer(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=connect4&moves=4453&level=easy&engine_plays=second")
    ui.click("3")
    ui.wait_for_moves(6)
    ui.wait_for_my_turn()
    toggle = page.locator("#pv-toggle")
    toggle.click()
    expect(toggle).to_have_text("Hide line on board")
    expect(ui.board.locator(".ghost").first).to_be_visible()
    toggle.click()  # the pointer stays on the button
    expect(toggle).to_have_text("Show line on board")
    expect(ui.board.locator(".ghost")).to_have_count(0)
    # Hovering still previews the line once the pointer comes back.
    page.mouse.move(0, 0)
    toggle.hover()
    expect(ui.board.locator(".ghost").first).to_be_visible()
    page.mouse.move(0, 0)
    expect(ui.board.locator(".ghost")).to_have_count(0)


def depth_table_matches_headline(page: Page) -> None:
    """When the depth table shows, its deepest row is the search in the headline.

    (After a move its level played on purpose, a "played instead" row follows.)
    """
    depths = page.locator("#depths")
    if depths.is_hidden():
        return
    deepest = page.locator("#depth-table tbody tr:not(.is-played):not(.is-total)").last
    last = deepest.locator("td").first.inner_text()
    expect(page.locator("#stats .stat-depth dd")).to_have_text(last)
    expect(page.locator("#stats .stat-algorithm dd")).to_have_text("Alpha-beta")


def test_the_depth_table_belongs_to_the_search_in_the_headline(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=medium&algorithm=alphabeta&engine_plays=second")
    ui.press("1")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    expect(page.locator("#depths")).to_be_visible()
    depth_table_matches_headline(page)

    page.get_by_role("button", name="Analyse with Minimax").click()
    expect(page.locator("#compare-table tbody tr")).to_have_count(2, timeout=ENGINE_TIMEOUT_MS)
    # The headline is now the analysis of the live position: no engine depths beside it.
    expect(page.locator("#result-headline")).to_contain_text("Best for X")
    expect(page.locator("#depths")).to_be_hidden()

    for step in ("ArrowLeft", "ArrowLeft", "ArrowRight", "End"):
        page.keyboard.press(step)
        depth_table_matches_headline(page)
    page.keyboard.press("ArrowLeft")  # the position the engine searched: its table again
    expect(page.locator("#result-headline")).to_contain_text("O played")
    expect(page.locator("#depths")).to_be_visible()
    depth_table_matches_headline(page)


def test_the_depth_tables_count_adds_up_to_the_figures_above_it(page: Page) -> None:
    """Medium looks at its moves once more before playing: the move's node count (the
    figures) is more than its deepest row's, and an "in all" row says why, with the same
    count (QA: 1,011 above, 1,003 in the table, and nothing said)."""
    ui = GamePage(page)
    ui.open_new("game=connect4&level=medium&engine_plays=second")
    ui.wait_for_my_turn()
    ui.click("4")
    ui.wait_for_moves(2)
    expect(page.locator("#depths")).to_be_visible()
    total = page.locator("#depth-table tbody tr.is-total")
    expect(total).to_contain_text("in all")
    expect(total).to_contain_text("and one more look at its moves before choosing")
    figures = page.locator("#stats .stat-nodes").get_attribute("data-nodes")
    assert figures is not None
    expect(total.locator("td[data-nodes]")).to_have_attribute("data-nodes", figures)
    deepest = page.locator("#depth-table tbody tr:not(.is-played):not(.is-total)").last
    row_nodes = deepest.locator("td[data-nodes]").get_attribute("data-nodes")
    assert row_nodes is not None and int(row_nodes) < int(figures)
    expect(total).to_contain_text(f"({int(figures) - int(row_nodes):,} more nodes)")
    expect(page.locator("#depth-table thead")).to_contain_text("Nodes so far")


def test_undo_waits_for_a_move_of_mine(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=easy&engine_plays=first")
    ui.wait_for_moves(1)
    ui.wait_for_my_turn()
    undo = page.get_by_role("button", name="Undo")
    expect(undo).to_be_disabled()  # only the engine's opening move: nothing of mine
    empty = next(
        m for m in "123456789" if "empty" in (ui.cell(m).get_attribute("aria-label") or "")
    )
    ui.click(empty)
    ui.wait_for_moves(3)
    ui.wait_for_my_turn()
    expect(undo).to_be_enabled()


def test_the_last_undo_by_keyboard_leaves_the_focus_on_the_board(page: Page) -> None:
    """Undo, disabled under the keyboard's focus once nothing is left to take back, hands
    the focus to the board (it fell to the page's top: the next Tab started over)."""
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=easy&engine_plays=second")
    ui.wait_for_my_turn()
    ui.click("5")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    undo = page.get_by_role("button", name="Undo")
    undo.focus()
    page.keyboard.press("Enter")
    ui.wait_for_moves(0)
    expect(undo).to_be_disabled()
    expect(page.get_by_role("group", name=re.compile(r"^Tic-tac-toe board"))).to_be_focused()
    page.keyboard.press("Enter")  # held down a moment too long: it plays nothing (QA)
    page.keyboard.press("Tab")  # the board's first cell, where play goes on
    expect(ui.cell("1")).to_be_focused()
    page.keyboard.press("5")
    ui.wait_for_moves(2)


def test_a_move_while_disconnected_is_refused_in_words(page: Page) -> None:
    page.add_init_script(KEEP_SOCKET)
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=easy&engine_plays=second")
    ui.wait_for_my_turn()
    page.evaluate("window.__socket.disconnect()")
    expect(page.locator(".board.is-interactive")).to_have_count(0)
    ui.cell("5").click(force=True)  # aria-disabled, yet a person can still click it
    expect(ui.notice).to_contain_text("Not connected")
    ui.page.locator("#notice").evaluate("(n) => (n.textContent = '')")
    page.keyboard.press("5")
    expect(ui.notice).to_contain_text("Not connected")
    expect(ui.cell("5")).to_have_attribute("aria-label", re.compile(r"^Cell 5\b.*, empty$"))
    expect(ui.moves).to_have_count(0)
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()

    page.evaluate("window.__socket.connect()")
    ui.click("5")  # back online: the move is played
    ui.wait_for_moves(2)


def test_depth_rows_merge_whatever_order_they_arrive_in(page: Page) -> None:
    page.goto("/")
    # A page that joined mid-search gets depths 1-2 replayed after the room already sent 3.
    depths = call(
        page,
        "game-model.js",
        """(() => {
          const model = m.createModel({moves: "4", engine_thinking: true});
          const row = (depth, extra = {}) =>
            ({moves: "4", algorithm: "alphabeta", depth, ...extra});
          for (const r of [row(3), row(1), row(2), row(3, {nodes: 9})]) m.addDepthRow(model, r);
          const merged = model.depthRows.map((r) => r.depth);
          m.addDepthRow(model, row(1, {moves: "44"}));  // another position: a new table
          const moved = model.depthRows.map((r) => r.depth);
          m.addDepthRow(model, row(2, {moves: "44", algorithm: "minimax"}));  // another search
          return {merged, moved, other: model.depthRows.map((r) => r.algorithm)};
        })()""",
    )
    assert depths == {"merged": [1, 2, 3], "moved": [1], "other": ["minimax"]}


def test_a_finished_game_offers_no_keys_to_play(page: Page) -> None:
    """Once the game is over, the key help offers stepping through the moves, not moves
    nobody can make: the moment it ends, and on the page loaded afterwards."""
    ui = GamePage(page)
    ui.open_new("game=tictactoe&moves=1425&level=easy&engine_plays=second")
    hint = page.locator(".keys-hint")  # as read: a hidden part says nothing
    expect(hint).to_contain_text("play ·", use_inner_text=True)
    ui.click("3")  # X completes 1-2-3
    expect(page.locator("#turn")).to_contain_text("won", ignore_case=True)
    for reload in (False, True):
        if reload:
            page.reload()
        expect(hint).to_contain_text("step through the moves", use_inner_text=True)
        expect(hint).not_to_contain_text("play ·", use_inner_text=True)
