"""Scores for the side to move, the evaluation bar and graph, the opening book's row.

The badges are read after an engine move and checked against an independent
computation: the pure-Python engine (``native=False``) on the same late
position, its exact scores put in words here (the convention of
``webapp.engine.scores``: a win with the winner's k-th stone scores
``max_exact_score - k``).
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.game_page import ENGINE_TIMEOUT_MS, GamePage
from webapp.engine.scores import max_exact_score
from webapp.engine.search import search
from webapp.games import new_game

#: Red to move with 28 stones: the engine (Red) wins; Yellow then picks among losses.
LATE_CONNECT4 = "1666425755643557763612254722"


def words(score: int, ply: int, cells: int) -> str:
    """An exact score in the page's words, for the side to move at a position of ``ply``."""
    if score == 0:
        return "draw"
    winner_stones = max_exact_score(cells) - abs(score)
    mover = ply // 2
    if score > 0:
        return f"win in {max(1, winner_stones - mover)}"
    return f"loss in {max(1, winner_stones - (ply - mover))}"


def expected_badges(game: str, moves: str) -> dict[str, str]:
    position = new_game(game, moves)
    result = search(position, "alphabeta", move_scores=True, native=False)
    assert result.move_scores is not None
    cells = 42 if game == "connect4" else 9
    return {m: words(int(s.score), len(moves), cells) for m, s in result.move_scores.items()}


def test_after_the_engines_move_the_badges_are_the_players_options(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new(f"game=connect4&moves={LATE_CONNECT4}&level=perfect&engine_plays=first")
    ui.wait_for_moves(len(LATE_CONNECT4) + 1)
    ui.wait_for_my_turn()
    moves = "".join(ui.moves.all_inner_texts())
    assert moves.startswith(LATE_CONNECT4)
    expected = expected_badges("connect4", moves)  # Yellow's options, Yellow to move
    badges = ui.board.locator(".c4-badges .score-badge")
    scored = ui.board.locator(".c4-badges .score-badge[title]")
    expect(scored).to_have_count(len(expected), timeout=ENGINE_TIMEOUT_MS)
    expect(ui.board.locator(".c4-badges .score-heuristic")).to_have_count(0)
    shown = {}
    for column in range(1, 8):
        title = badges.nth(column - 1).get_attribute("title")
        if title:
            shown[str(column)] = title.removesuffix(" (best)")
    assert shown == expected
    # The engine's own options before its move stay in the panel, labelled.
    expect(page.locator("#candidates-title")).to_have_text("Engine\u2019s options before its move")
    # The bar says who wins, in words, from the same values.
    best = search(new_game("connect4", moves), "alphabeta", native=False)
    assert best.exact and int(best.score) < 0  # Yellow to move loses: Red wins
    n = int(words(int(best.score), len(moves), 42).split()[-1])
    when = "with Red\u2019s next move" if n == 1 else f"in {n} of Red\u2019s moves"
    expect(page.locator("#eval-text")).to_have_text(f"Red wins with best play, {when}")


def test_tictactoe_bar_graph_and_a_click_on_the_graph(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=perfect&engine_plays=second")
    expect(page.locator("#eval-text")).to_have_text("Draw with best play")
    badges = ui.board.locator(".score-badge.score-draw, .score-badge.score-loss")
    expect(badges).to_have_count(9)  # X's options on the empty board: all exact
    ui.press("5")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    points = page.locator("#eval-graph circle.eval-point")
    expect(points).to_have_count(2)  # one point per move
    moves = "".join(ui.moves.all_inner_texts())
    expected = expected_badges("tictactoe", moves)
    expect(ui.board.locator(".score-badge[title]")).to_have_count(len(expected))
    for move, text in expected.items():
        expect(ui.cell(move).locator(".score-badge")).to_have_attribute(
            "title", re.compile(rf"^{text}( \(best\))?$")
        )
    expect(page.locator("#eval-text")).to_have_text("Draw with best play")
    ui.press(next(iter(expected)))
    ui.wait_for_moves(4)
    ui.wait_for_my_turn()
    expect(points).to_have_count(4)
    points.first.click()
    reviewing = re.compile(r"^Reviewing move 1, \w+ \(live: after move 2, \w+\)$")
    expect(page.locator("#turn")).to_have_text(reviewing)
    expect(points.first).to_have_class(re.compile(r"\bis-shown\b"))


def test_an_answer_from_the_opening_book_says_so(page: Page) -> None:
    ui = GamePage(page)
    ui.open_new("game=connect4&level=perfect&engine_plays=second")
    # Red's options on the empty board: exact, from the book.
    expect(ui.board.locator(".c4-badges .score-badge[title]")).to_have_count(7)
    expect(ui.board.locator(".c4-badges .score-heuristic")).to_have_count(0)
    ui.press("4")
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    expect(ui.stat("depth")).to_have_text("opening book")
    expect(page.locator("#depth-table tbody tr.is-book td").first).to_have_text("opening book")
    expect(page.locator("#eval-text")).to_contain_text("wins with best play")
    # On one line, "opening book" made the table wider than a desktop's panel (its time
    # column cut off, the table scrolled sideways).
    widths = page.evaluate(
        "() => { const t = document.querySelector('#depth-table');"
        " return [t.scrollWidth, t.parentElement.clientWidth]; }"
    )
    assert widths[0] <= widths[1], widths
    # A reload keeps the depth table of the engine's last move, as the rest of the panel.
    page.reload()
    expect(page.locator("#depth-table tbody tr.is-book td").first).to_have_text("opening book")


def test_at_medium_the_badges_end_exact(page: Page) -> None:
    """Medium plays with its own depth-4 search; the board shows the exact analysis (here
    from the opening book). Estimates and "solving…": ``test_browser_truth``."""
    ui = GamePage(page)
    ui.open_new("game=connect4&moves=44&level=medium&engine_plays=second")
    ui.wait_for_my_turn()
    expect(ui.board.locator(".c4-badges .score-badge[title]")).to_have_count(7)
    expect(ui.board.locator(".c4-badges .score-heuristic")).to_have_count(0)
    expect(page.locator("#eval-text")).to_have_text(
        re.compile(
            r"^(Draw with best play|(Red|Yellow) wins with best play, "
            r"(in \d+ of .+ moves|with .+ next move))$"
        )
    )


def test_at_perfect_the_engines_options_end_exact(page: Page) -> None:
    """Tic-tac-toe, Perfect, the engine first: its options before its move are finished
    exactly after the player's scores; the panel takes them when they come (all draws)."""
    ui = GamePage(page)
    ui.open_new("game=tictactoe&level=perfect&engine_plays=first")
    ui.wait_for_moves(1)
    ui.wait_for_my_turn()
    expect(ui.candidates).to_have_count(9)
    draws = ui.candidates.filter(has_text="draw")
    expect(draws).to_have_count(9, timeout=ENGINE_TIMEOUT_MS)
    expect(ui.candidates.filter(has_text="depth")).to_have_count(0)
