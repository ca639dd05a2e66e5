"""Sharing: the link is the game. A second browser watches live, is refused
when it tries to move, and may continue from the position in a game of its own."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.game_page import GamePage


def test_a_spectator_watches_live_and_cannot_move(
    page: Page, browser: Browser, base_url: str
) -> None:
    player = GamePage(page)
    player.open_new("game=tictactoe&level=easy&engine_plays=second")
    player.wait_for_my_turn()
    link = page.url

    watcher_context = browser.new_context(base_url=base_url)
    try:
        watcher = GamePage(watcher_context.new_page())
        watcher.page.goto(link)
        expect(watcher.page.locator("#spectator-bar")).to_be_visible()
        expect(watcher.page.get_by_role("button", name="Undo")).to_be_disabled()
        expect(watcher.moves).to_have_count(0)

        # The player's move and the engine's reply arrive in the other browser.
        player.press("5")
        watcher.wait_for_moves(2)
        expect(watcher.cell("5")).to_have_attribute("aria-label", re.compile(r"^Cell 5, X"))
        expect(watcher.page.locator("#turn")).to_contain_text("(player) to move")

        # A spectator's click is refused (by the page at once, by the server too):
        # the reason is shown, the board does not change.
        empty = next(
            m for m in "12346789" if "empty" in (watcher.cell(m).get_attribute("aria-label") or "")
        )
        # The cell is marked aria-disabled for a spectator, but a click still
        # reaches the page (force: Playwright would wait for it to be enabled).
        watcher.cell(empty).click(force=True)
        expect(watcher.notice).to_be_visible()
        expect(watcher.notice).not_to_be_empty()
        expect(watcher.notice).to_have_attribute("data-kind", "error")
        expect(watcher.cell(empty)).to_have_attribute("aria-label", re.compile(r"empty"))
        expect(watcher.moves).to_have_count(2)
        expect(player.moves).to_have_count(2)

        # "Continue from here" starts the watcher's own game at this position.
        moves = "".join(watcher.moves.all_inner_texts())
        continue_link = watcher.page.get_by_role("link", name="Continue from here").last
        expect(continue_link).to_have_attribute(
            "href", re.compile(rf"game=tictactoe.*moves={moves}")
        )
        continue_link.click()  # the position's page: nothing is created until its button
        watcher.page.wait_for_url(re.compile(r"/new\?"))
        watcher.play_from_here()
        expect(watcher.page.locator("#spectator-bar")).to_be_hidden()
        expect(watcher.moves).to_have_count(2)
        assert watcher.page.url != link
    finally:
        watcher_context.close()


def test_copy_link_rematch_and_new_game(page: Page, context: BrowserContext) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    ui = GamePage(page)
    ui.open_new("game=connect4&level=easy&engine_plays=second")
    first_game = page.url

    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#copy-link")).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == first_game

    # A rematch swaps the colours: the engine opens with Red.
    page.get_by_role("button", name=re.compile("^Rematch")).click()
    page.wait_for_url(lambda url: url != first_game and "/g/" in url)
    ui.wait_for_moves(1)
    expect(page.locator(".player-p0 .player-name")).to_have_text("Engine")
    expect(page.locator(".player-p1 .player-name")).to_have_text("You")
    rematch = page.url

    page.get_by_role("button", name="New game").click()
    page.wait_for_url(lambda url: url not in (first_game, rematch) and "/g/" in url)
    expect(page.locator("#spectator-bar")).to_be_hidden()
