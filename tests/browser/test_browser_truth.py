"""The board tells the truth at every level (issue 16): the scores are the strongest
analysis, not the opponent's own short search; a column still being solved says so.

The Easy game of the issue: X to move after ``9763`` wins with cell 5 (it blocks O's
3-5-7 and forks: "win in 2"), and Easy's depth-2 search used to label it "slightly
worse · depth 2" with O "slightly better". The "solving…" test runs its own server whose
exact passes wait for the test (``held_engine.held_exact``), so the estimates are seen
before the exact scores land, whatever the machine's speed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import TIMEOUT_MS
from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage
from tests.browser.server import serve
from tests.browser.test_browser_scores import expected_badges, words
from tests.web.fake_searches import HOLD_ENV, Holds
from tests.web.held_engine import HELD_EXACT
from webapp.engine.search import search
from webapp.games import new_game

#: Connect Four, 14 stones, Red (the player) to move: no column is exact after the quick
#: pass; the solver needs its exact pass (held here until the test releases it).
UNSOLVED = "66562517511122"
#: A score the page calls exact.
EXACT_WORDS = re.compile(r"^(win in \d+|loss in \d+|draw)$")


def test_at_easy_the_winning_cell_reads_as_a_win(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&moves=9763&level=easy&engine_plays=second")
    ui.wait_for_my_turn()
    badge = ui.cell("5").locator(".score-badge")
    expect(badge).to_have_attribute("title", "win in 2 (best)", timeout=ENGINE_TIMEOUT_MS)
    expected = expected_badges("tictactoe", "9763")
    assert expected["5"] == "win in 2"  # blocks 3-5-7 with a fork: the independent engine agrees
    for move, text in expected.items():
        expect(ui.cell(move).locator(".score-badge")).to_have_attribute(
            "title", re.compile(rf"^{text}( \(best\))?$")
        )
    expect(page.locator("#eval-text")).to_have_text("X wins with best play, in 2 of X\u2019s moves")
    expect(page.locator("#eval-figure")).to_have_text("X wins in 2")
    # The opponent's own search stays in the panel, labelled as Easy's. Its move's badge
    # is the board's exact score of that move, as among O's options below, never Easy's
    # estimate beside them (that goes with the search's label).
    ui.click("5")
    ui.wait_for_moves(6)
    played = "".join(ui.moves.all_inner_texts())[5]
    exact = expected_badges("tictactoe", "97635")[played]
    headline = page.locator("#result-headline")
    expect(headline).to_contain_text(f"O played cell {played}")
    expect(headline.locator(".score-badge")).to_have_text(exact, timeout=ENGINE_TIMEOUT_MS)
    expect(headline.locator(".headline-own")).to_have_text("Easy\u2019s own search, depth 2")
    expect(page.locator("#eval-figure")).to_have_text(re.compile(r"^X wins in 1$|^X won$"))


def test_a_medium_move_reads_as_the_board_solved_it(page: Page) -> None:
    """Medium's reply in an opening: its own depth-4 search only estimates it ("slightly
    worse"), the board's analysis (the book) knows it exactly. The move's badge is the
    exact one, as among the options below it; the estimate follows the search's label."""
    ui = GamePage(page)
    ui.open_new("game=connect4&level=medium&engine_plays=second")
    ui.wait_for_my_turn()
    ui.click("4")
    ui.wait_for_moves(2)
    played = "".join(ui.moves.all_inner_texts())[1]
    option = page.locator(f'#candidates li[data-move="{played}"] .score-badge')
    expect(option).to_have_text(EXACT_WORDS, timeout=ENGINE_TIMEOUT_MS)
    headline = page.locator("#result-headline")
    expect(headline).to_contain_text(f"Yellow played column {played}")
    expect(headline.locator(".score-badge")).to_have_text(option.inner_text())
    label = "Medium\u2019s own search, depth 4"
    own = headline.locator(".headline-own")
    expect(own).to_have_text(re.compile(rf"^{label}: (?!win in|loss in|draw).+$"))
    note = page.locator(".own-search")
    expect(note).to_contain_text("The move\u2019s badge above is the board\u2019s analysis")


@pytest.fixture
def held_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Holds]]:
    folder = tmp_path / "hold"
    folder.mkdir()
    monkeypatch.setenv(HOLD_ENV, str(folder))  # the server and its workers inherit it
    holds = Holds(folder)
    try:
        with serve(tmp_path, "--set", f'SEARCH_FUNCTION="{HELD_EXACT}"') as url:
            yield url, holds
    finally:
        holds.release()


def test_an_unsolved_column_says_solving_then_its_exact_score(
    browser: Browser, held_server: tuple[str, Holds]
) -> None:
    url, holds = held_server
    context = browser.new_context(base_url=url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        ui = GamePage(page)
        ui.open_new(f"game=connect4&moves={UNSOLVED}&level=easy&engine_plays=second")
        badges = ui.board.locator(".c4-badges .score-badge[title]")
        expect(badges).to_have_count(7, timeout=ENGINE_TIMEOUT_MS)
        solving = ui.board.locator(".c4-badges .score-badge.is-solving")
        expect(solving).to_have_count(7)
        for title in [badges.nth(i).get_attribute("title") or "" for i in range(7)]:
            estimate = r"(about even|(slightly |much )?(better|worse))"
            assert re.match(rf"^{estimate} · depth \d+, solving…( \(best\))?$", title), title
        expect(page.locator("#eval-text")).to_have_text(
            re.compile(
                r"^(About even|(Red|Yellow) is (slightly |much )?better)"
                r" \(search depth \d+, solving…\)$"
            )
        )
        holds.release()
        expect(solving).to_have_count(0, timeout=ENGINE_TIMEOUT_MS)
        exact = search(new_game("connect4", UNSOLVED), "alphabeta", move_scores=True)
        assert exact.move_scores is not None
        for column, score in exact.move_scores.items():
            text = words(int(score.score), len(UNSOLVED), 42)
            expect(badges.nth(int(column) - 1)).to_have_attribute(
                "title", re.compile(rf"^{text}( \(best\))?$")
            )
        expect(ui.board.locator(".c4-badges .score-heuristic")).to_have_count(0)
    finally:
        context.close()
    assert not errors, f"script errors on the page: {errors}"
