"""Learn from your mistakes (issue 19 part 3; static/js/learn.js): after a game, its
player's mistake from the exact review, the position before it, a try judged, the best
moves ringed and the line; reached from the review and from the analysis board. Both sizes."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage
from tests.browser.sizes import in_viewport
from tests.browser.test_browser_any_position import sized  # noqa: F401 (fixture)
from webapp.engine.search import search
from webapp.games import new_game


def exact_scores(moves: str) -> dict[str, int]:
    """Every move's exact score in the tic-tac-toe position after ``moves`` (side to move)."""
    result = search(new_game("tictactoe", moves), "alphabeta", move_scores=True, native=False)
    return {move: value["score"] for move, value in result.to_dict()["move_scores"].items()}


def play_a_lost_game_as_o(ui: GamePage) -> tuple[str, str, list[str]]:
    """O's first move throws the draw away; the perfect engine (X) then wins. Returns the
    engine's first move, O's mistake, and the moves that would have kept the draw."""
    ui.wait_for_moves(1)
    first = ui.moves.nth(0).inner_text().strip()
    scores = exact_scores(first)
    mistake = min(move for move, score in scores.items() if score < 0)
    keeping = sorted(move for move, score in scores.items() if score == 0)
    ui.click(mistake)
    while True:
        either = "body:not([data-status='playing']), .board.is-interactive"
        expect(ui.page.locator(either).first).to_be_attached(timeout=ENGINE_TIMEOUT_MS)
        if ui.page.evaluate("document.body.dataset.status") != "playing":
            return first, mistake, keeping
        free = ui.board.locator("button.is-legal").first.get_attribute("data-move")
        assert free
        ui.click(free)


def test_the_review_leads_to_a_drill_of_the_players_mistake(
    sized: Page,  # noqa: F811
    screenshots: Path,
) -> None:
    ui = GamePage(sized)
    ui.open_new("game=tictactoe&level=perfect&engine_plays=first")
    game_url = sized.url
    first, mistake, keeping = play_a_lost_game_as_o(ui)

    learn = sized.get_by_role("link", name="Learn from your mistakes (1)")
    expect(learn).to_be_visible(timeout=ENGINE_TIMEOUT_MS)
    # the review and the drill number the mistake alike (O's reply to X's first is move 1)
    moment = sized.locator(".review-moment-mistake")
    expect(moment).to_contain_text(f"Move 1, O (you): cell {mistake}")
    learn.click()
    expect(sized).to_have_url(re.compile(r"/learn/[\w-]+$"))
    expect(sized.locator("#learn-progress")).to_have_text("Mistake 1 of 1")
    expect(sized.locator("#learn-task")).to_have_text(
        f"At move 1 you played cell {mistake}: a draw became a loss. Find a better move for O."
    )
    expect(sized.locator(".board.is-interactive")).to_have_count(1, timeout=ENGINE_TIMEOUT_MS)
    # the position before the mistake: the engine's first move only
    expect(sized.locator(f'.board button[data-move="{first}"]')).to_have_attribute(
        "aria-label", re.compile(r", X")
    )
    verdict = sized.locator("#learn-verdict")

    # The game page's keys: a number tries that cell (a taken one does nothing).
    sized.keyboard.press(first)
    expect(verdict).to_be_hidden()
    sized.keyboard.press(mistake)
    expect(verdict).to_have_text(re.compile(rf"^Cell {mistake} is the move you played"))
    assert in_viewport(sized, verdict)
    expect(sized.locator(".best-ring")).to_have_count(0)  # not before the answer

    sized.locator(f'.board button[data-move="{keeping[0]}"]').click()
    kept = rf"^Cell {keeping[0]} keeps the draw: one of the best moves\."
    expect(verdict).to_have_text(re.compile(kept))
    assert in_viewport(sized, verdict)
    expect(sized.locator(".best-ring")).to_have_count(len(keeping))
    expect(sized.locator("#learn-line")).to_contain_text("Best: cell")
    expect(sized.locator(".board .ghost").first).to_be_visible()
    expect(sized.locator(".board.is-interactive")).to_have_count(0)
    sized.screenshot(path=screenshots / f"learn-{sized.size_name}.png")  # type: ignore[attr-defined]

    # The same drill from the analysis board, given the game's link.
    sized.goto("/analysis?game=tictactoe")
    sized.locator("#ab-learn").fill(game_url)
    sized.get_by_role("button", name="Learn", exact=True).click()
    expect(sized.locator("#learn-progress")).to_have_text("Mistake 1 of 1")
    sized.get_by_role("button", name="Show the answer").click()
    expect(sized.locator(".best-ring")).to_have_count(len(keeping))


def test_a_link_that_is_no_game_is_said_beside_the_field(sized: Page) -> None:  # noqa: F811
    sized.goto("/analysis?game=connect4")
    expect(sized.locator("#ab-scores li")).to_have_count(7)  # drawn: the page is still now
    sized.locator("#ab-learn").fill("not a link at all")
    sized.get_by_role("button", name="Learn", exact=True).click()
    error = sized.locator("#ab-learn-error")
    expect(error).to_have_text(re.compile(r"^That is not a game link"))
    assert in_viewport(sized, error)
    # A word that looks like an id but is no game: said beside the field, the board kept.
    sized.locator("#ab-learn").fill("hello")
    sized.get_by_role("button", name="Learn", exact=True).click()
    expect(error).to_have_text(re.compile(r"^No game has that link"))
    assert "/analysis" in sized.url
    response = sized.goto("/learn/nosuchgame")
    assert response is not None and response.status == 404
