"""Playing: by mouse and keyboard, the engine's analysis, review mode, undo,
and minimax against alpha-beta on the same position."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage

SCORE_WORDS = re.compile(
    r"^(win in \d+|loss in \d+|draw|(about even|(slightly |much )?(better|worse))"
    r"( · (depth \d+(, solving…)?|solving…))?)$"
)


def test_connect4_by_click_and_keyboard_shows_the_line_and_every_score(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=connect4&level=easy&engine_plays=second")

    ui.click("4")
    expect(ui.cell("4")).to_have_attribute("aria-label", re.compile(r"^Column 4, [12] stones?"))
    ui.wait_for_moves(2)
    ui.press("3")
    ui.wait_for_moves(4)
    ui.wait_for_my_turn()
    expect(ui.moves.nth(2)).to_have_text("3")

    # The engine's move: its line as text, its statistics, a score per column.
    expect(page.locator("#result-headline")).to_contain_text("played column")
    expect(ui.pv.first).to_be_visible()
    expect(ui.stat("algorithm")).to_have_text("Alpha-beta")
    assert ui.engine_nodes() > 0
    expect(ui.candidates).to_have_count(7)
    for text in ui.page.locator("#candidates .score-badge").all_inner_texts():
        assert SCORE_WORDS.match(text.replace("\n", " ").strip()), text
    # The board: the player's options now, the best ones outlined.
    expect(ui.board.locator(".c4-badges .score-badge[title]")).to_have_count(7)
    for title in [
        b.get_attribute("title") for b in ui.board.locator(".c4-badges .score-badge").all()
    ]:
        assert title and SCORE_WORDS.match(title.removesuffix(" (best)")), title
    assert ui.board.locator(".c4-badges .score-badge.is-best").count() >= 1
    expect(page.locator("#depth-table tbody tr").first).to_be_visible()

    # The line drawn on the board, numbered, on request.
    page.locator("#pv-toggle").click()
    expect(page.locator("#pv-toggle")).to_have_attribute("aria-pressed", "true")
    expect(ui.board.locator(".ghost")).to_have_count(ui.pv.count())
    expect(ui.board.locator(".ghost", has_text=re.compile("^1$"))).to_have_count(1)


def test_tictactoe_keyboard_review_and_undo(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=perfect&engine_plays=second")
    ui.press("5")
    expect(ui.cell("5")).to_have_attribute("aria-label", re.compile(r"^Cell 5, X"))
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    # Perfect play from the centre is a draw: every score is exact.
    expect(page.locator("#result-headline")).to_contain_text("draw")
    expect(page.locator("#announcer")).to_contain_text("Engine played cell")

    # Review: the arrow keys step back through the moves and End returns.
    page.locator("body").press("ArrowLeft")
    expect(page.locator("#review-banner")).to_be_visible()
    expect(page.locator("#turn")).to_have_text("Reviewing move 1, X (live: after move 1, O)")
    expect(ui.board.locator(".mark:not(.ghost-mark)")).to_have_count(1)
    page.locator("body").press("1")  # no moves while reviewing
    expect(ui.notice).to_contain_text("earlier move")
    page.locator("body").press("End")
    expect(page.locator("#review-banner")).to_be_hidden()
    expect(ui.board.locator(".mark:not(.ghost-mark)")).to_have_count(2)

    # Undo takes back my move and the engine's reply.
    page.get_by_role("button", name="Undo").click()
    ui.wait_for_moves(0)
    expect(ui.cell("5")).to_have_attribute("aria-label", re.compile(r"^Cell 5\b[^,]*, empty"))


def test_minimax_searches_more_nodes_than_alphabeta_on_the_same_position(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=medium&algorithm=alphabeta&engine_plays=second")
    ui.press("1")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    expect(ui.stat("algorithm")).to_have_text("Alpha-beta")
    alphabeta_nodes = ui.engine_nodes()

    # Both algorithms on the position on the board, side by side.
    page.get_by_role("button", name="Analyse with Minimax").click()
    expect(page.locator("#compare-table tbody tr")).to_have_count(2, timeout=ENGINE_TIMEOUT_MS)
    assert ui.compare_nodes("minimax") > ui.compare_nodes("alphabeta")
    expect(page.locator("#compare-summary")).to_contain_text("Minimax searched")

    # Switch the engine to minimax, take the move back, play it again: the
    # engine searches the same position to the same depth with more nodes.
    ui.choose_setting("algorithm", "minimax")
    expect(page.locator("#notice")).to_contain_text("next move")
    page.get_by_role("button", name="Undo").click()
    ui.wait_for_moves(0)
    ui.press("1")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    expect(ui.stat("algorithm")).to_have_text("Minimax", timeout=ENGINE_TIMEOUT_MS)
    assert ui.engine_nodes() > alphabeta_nodes


def test_exact_scores_read_as_words_from_the_movers_side(page: Page) -> None:
    # Red (the engine) to move with 4 stones played: columns 2 and 6 win at
    # once, 4 wins with its next move but one, the rest let Yellow win.
    ui = GamePage(page)
    ui.open_new("game=connect4&moves=44345534&level=perfect&engine_plays=first")
    expect(page.locator("#turn")).to_have_text("The engine won", timeout=ENGINE_TIMEOUT_MS)
    expect(ui.candidates).to_have_count(7)
    words = {
        item.get_attribute("data-move"): item.locator(".score-badge").inner_text()
        for item in ui.candidates.all()
    }
    assert words == {
        "1": "loss in 1",
        "2": "win in 1",
        "3": "loss in 1",
        "4": "win in 2",
        "5": "loss in 1",
        "6": "win in 1",
        "7": "loss in 1",
    }
    expect(ui.board.locator(".c4-slot.is-win")).to_have_count(4)


def test_a_game_the_player_wins_keeps_the_engines_last_search_in_the_panel(page: Page) -> None:
    """X forks (1, 2 then 5 against O's 4 and forced 3); O blocks one line, X wins on the
    other. The panel still shows O's last search, as it does after an engine's win."""
    ui = GamePage(page)
    ui.open_new("game=tictactoe&moves=14&level=perfect&engine_plays=second")
    for count, cell in ((4, "2"), (6, "5")):
        ui.wait_for_my_turn()
        ui.press(cell)
        ui.wait_for_moves(count)
    ui.wait_for_my_turn()
    played = "".join(ui.moves.all_inner_texts())
    ui.press("9" if "8" in played else "8")
    expect(page.locator("#turn")).to_contain_text("You won")
    blocked = played[-1]
    expect(page.locator("#result-headline")).to_contain_text(f"O played cell {blocked}")
    expect(page.locator("#depth-table tbody tr")).not_to_have_count(0)


def test_a_finished_game_opened_by_someone_else_says_it_is_over(
    page: Page, browser: Browser, base_url: str
) -> None:
    """X (the engine) wins at once from 1425; a visitor with the link is told the game is
    over, not that they watch it live, and reviewing names the final move, not a live one."""
    ui = GamePage(page)
    ui.open_new("game=tictactoe&moves=1425&level=perfect&engine_plays=first")
    expect(page.locator("#turn")).to_have_text("The engine won", timeout=ENGINE_TIMEOUT_MS)
    visitor = browser.new_context(base_url=base_url)  # no seat cookie
    try:
        other = visitor.new_page()
        other.goto(page.url)
        expect(other.locator("#spectator-note")).to_have_text(
            "This game is over: you are looking at it as it ended."
        )
        expect(other.get_by_role("link", name="Continue from here")).to_have_count(1)
        other.locator("body").press("ArrowLeft")
        expect(other.locator("#turn")).to_have_text("Reviewing move 2, O (final: after move 3, X)")
        # One "Continue from here" still: the review banner's, from the position shown.
        link = other.get_by_role("link", name="Continue from here")
        expect(link).to_have_count(1)
        expect(link).to_have_attribute("href", re.compile(r"moves=1425&"))
    finally:
        visitor.close()
