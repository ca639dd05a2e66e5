"""New game and Rematch change game in place: the page keeps its connection (one
WebSocket for all three games), its address follows the game, and Back goes to the game
before as its own page."""

from __future__ import annotations

import re

from playwright.sync_api import Page, WebSocket, expect

from tests.browser.game_page import GamePage


def test_new_game_and_rematch_change_game_in_place_and_back_returns(page: Page) -> None:
    sockets: list[WebSocket] = []
    page.on("websocket", lambda socket: sockets.append(socket))
    ui = GamePage(page)
    # X (the player) to complete the top row: the game ends, and its review is shown.
    ui.open_new("game=tictactoe&moves=1425&level=easy&engine_plays=second")
    ui.wait_joined()
    first = page.url
    ui.click("3")
    ui.wait_for_moves(5)
    expect(page.locator("#review-summary")).to_be_visible(timeout=60_000)

    page.get_by_role("button", name="New game").click()
    page.wait_for_url(lambda url: url != first and "/g/" in url)
    second = page.url
    expect(ui.moves).to_have_count(0)  # a fresh board, the last game's moves gone
    expect(page.locator("#review-summary")).to_be_hidden()  # the last game's review gone
    ui.click("1")  # played in the new game, answered there
    ui.wait_for_moves(2)
    assert ui.moves.first.inner_text() == "1"
    expect(page.locator(".player-p0 .player-name")).to_have_text("You")

    page.get_by_role("button", name=re.compile("^Rematch")).click()
    page.wait_for_url(lambda url: url not in (first, second) and "/g/" in url)
    expect(page.locator(".player-p0 .player-name")).to_have_text("Engine")
    expect(page.locator(".player-p1 .player-name")).to_have_text("You")
    ui.wait_for_moves(1)  # the engine opens the rematch
    ui.wait_for_my_turn()
    assert len(sockets) == 1 and not sockets[0].is_closed()  # one connection throughout

    page.go_back()  # the new game, as its own page: its two moves
    page.wait_for_url(second)
    ui.wait_joined()
    ui.wait_for_moves(2)
    assert ui.moves.first.inner_text() == "1"
