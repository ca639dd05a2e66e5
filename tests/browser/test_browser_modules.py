"""The page's pure modules (score words, rules), run in the browser itself."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page


def call(page: Page, module: str, expression: str) -> Any:
    """Evaluate `expression` with the module's exports bound to `m`."""
    return page.evaluate(
        f"import('/static/js/{module}').then((m) => {expression})",
    )


@pytest.fixture
def home(page: Page) -> Page:
    page.goto("/")
    return page


@pytest.mark.parametrize(
    ("game", "score", "exact", "ply", "words"),
    [
        # Connect Four: a win with the winner's k-th stone scores 22 - k.
        ("connect4", 18, True, 6, "win in 1"),  # the mover's 4th stone, 3 played
        ("connect4", 16, True, 6, "win in 3"),  # 6th stone, 3 played
        ("connect4", -17, True, 8, "loss in 1"),  # the other side's 5th, 4 played
        ("connect4", 1, True, 0, "win in 21"),
        ("connect4", 0, True, 10, "draw"),
        ("connect4", 0.123, False, 3, "much better"),
        ("connect4", -0.05, False, 3, "worse"),
        ("connect4", 0.001, False, 3, "about even"),
        ("tictactoe", -0.06, False, 3, "slightly worse"),
        # Tic-tac-toe: 6 - k.
        ("tictactoe", 3, True, 4, "win in 1"),  # the mover's 3rd stone, 2 played
        ("tictactoe", -2, True, 1, "loss in 3"),  # X's 4th stone, 1 played
        ("tictactoe", 0, True, 0, "draw"),
    ],
)
def test_score_words(
    home: Page, game: str, score: float, exact: bool, ply: int, words: str
) -> None:
    text = call(
        home,
        "format.js",
        "import('/static/js/rules.js').then((r) => "
        f"m.describeScore({score}, {str(exact).lower()}, r.gameInfo('{game}'), {ply}).text)",
    )
    assert text == words


@pytest.mark.parametrize(
    ("value", "ply", "over", "figure"),
    [
        ("{score: 3, exact: true}", 4, "null", "X wins in 1"),  # X to move wins
        ("{score: -2, exact: true}", 1, "null", "X wins in 3"),  # O to move loses
        ("{score: 0, exact: true}", 2, "null", "Draw"),
        ("{score: 0.12, exact: false, depth: 8}", 2, "null", "+0.12"),  # X better
        ("{score: 0.12, exact: false, depth: 8}", 3, "null", "\u22120.12"),  # O better
        ("null", 3, "null", ""),
        ("{score: 0, exact: true}", 9, "{winner: null}", ""),  # over: the words say it
    ],
)
def test_the_bars_figure_is_a_result_or_a_number(
    home: Page, value: str, ply: int, over: str, figure: str
) -> None:
    said = call(
        home,
        "eval-bar.js",
        "import('/static/js/rules.js').then((r) => "
        f"m.evalFigure({value}, {ply}, r.gameInfo('tictactoe'), {over}))",
    )
    assert said == figure


def test_an_estimate_being_solved_says_so_on_its_badge(home: Page) -> None:
    said = call(
        home,
        "board-view.js",
        "import('/static/js/rules.js').then((r) => "
        "m.moveScores(r.gameInfo('connect4'), '44', "
        "{'1': {score: 0.05, exact: false, depth: 8}, '4': {score: 0, exact: true}}, true))",
    )
    assert said["1"]["text"] == "better · depth 8, solving…" and said["1"]["solving"]
    assert said["4"]["text"] == "draw" and "solving" not in said["4"]


def test_rules_find_the_winning_line_and_the_legal_moves(home: Page) -> None:
    won = call(home, "rules.js", "({...m.replay('connect4', '4455667'), legal: null})")
    assert won["winner"] == 0
    assert won["winLine"] == [38, 39, 40, 41]  # the bottom row, columns 4-7
    full_column = call(home, "rules.js", "[...m.replay('connect4', '444444').legal]")
    assert "4" not in full_column and len(full_column) == 6
    diagonal = call(home, "rules.js", "m.replay('tictactoe', '12539').winLine")
    assert diagonal == [0, 4, 8]
    ghosts = call(home, "rules.js", "m.lineCells('connect4', '44', '45')")
    assert [(g["cell"], g["player"], g["n"]) for g in ghosts] == [(24, 0, 1), (39, 1, 2)]


@pytest.mark.parametrize(
    ("nodes", "ms", "words"),
    [
        (845_000, 1000, "845 k/s"),
        (999_499, 1000, "999 k/s"),
        (999_700, 1000, "1.0 M/s"),  # was "1000 k/s"
        (1_000_000, 1000, "1.0 M/s"),
        (14_730_000, 1000, "14.7 M/s"),
        (999, 1000, "999 /s"),
        (999_600, 1_000_000, "1 k/s"),  # 999.6 /s rounds up: not "1000 /s"
        (10, 0, "\u2013"),  # no time: a dash
    ],
)
def test_speed_words(home: Page, nodes: int, ms: int, words: str) -> None:
    assert call(home, "format.js", f"m.rate({nodes}, {ms})") == words


def test_recent_games_words(home: Page) -> None:
    said = call(
        home,
        "recent-games.js",
        """[
          m.outcome({status: "won", winner: 1, human_side: 1}),
          m.outcome({status: "won", winner: 0, human_side: 1}),
          m.outcome({status: "drawn"}),
          m.outcome({status: "playing"}),
          m.ago("2030-01-01T12:00:00+00:00", Date.parse("2030-01-01T12:00:20Z")),
          m.ago("2030-01-01T12:00:00+00:00", Date.parse("2030-01-01T12:05:00Z")),
          m.ago("2030-01-01T12:00:00+00:00", Date.parse("2030-01-01T15:00:00Z")),
          m.ago("2030-01-01T12:00:00+00:00", Date.parse("2030-01-02T12:00:00Z")),
          m.ago("2030-01-01T12:00:00+00:00", Date.parse("2030-03-01T12:00:00Z")),
        ]""",
    )
    assert said == [
        "you won",
        "you lost",
        "draw",
        "in progress",
        "just now",
        "5 min ago",
        "3 h ago",
        "1 day ago",
        "2030-01-01",
    ]


def test_the_minimax_option_says_how_deep_it_searches(home: Page) -> None:
    """At the level chosen: Medium's depth 4 (not the cap), Perfect's cap or whole tree."""
    label = home.locator('.settings-fields input[name="algorithm"][value="minimax"] + span')
    home.locator('input[name="game"][value="connect4"]').check(force=True)
    assert label.text_content() == "Minimax (depth 4)"  # the default level, Medium
    home.locator('.settings-fields input[name="level"][value="perfect"]').check(force=True)
    assert label.text_content() == "Minimax (depth 7)"
    home.locator('input[name="game"][value="tictactoe"]').check(force=True)
    assert label.text_content() == "Minimax (whole tree)"


def test_perfect_with_minimax_in_connect_four_does_not_promise_to_be_unbeatable(
    home: Page,
) -> None:
    hint = home.locator(".settings-fields [data-level-hint]")
    home.locator('input[name="game"][value="connect4"]').check(force=True)
    home.locator('.settings-fields input[name="level"][value="perfect"]').check(force=True)
    assert "cannot be beaten" in (hint.text_content() or "")  # alpha-beta: exact
    home.locator('.settings-fields input[name="algorithm"][value="minimax"]').check(force=True)
    said = hint.text_content() or ""
    assert "cannot be beaten" not in said and "stops at depth 7" in said, said
    pill = home.locator('.settings-fields input[name="level"][value="perfect"]').locator("..")
    assert pill.get_attribute("title") == said  # its tooltip says the same
    home.locator('input[name="game"][value="tictactoe"]').check(force=True)
    assert "cannot be beaten" in (hint.text_content() or "")  # the whole tree: exact


def test_a_stopped_search_says_why(home: Page) -> None:
    said = call(
        home,
        "analysis.js",
        """[
          m.stoppedNote({stopped: "depth", depth: 7, iterations_counted: true}),
          m.stoppedNote({stopped: "time", depth: 9}),
          m.stoppedNote({stopped: "nodes", depth: 12}),
        ]""",
    )
    assert said[0].startswith("Plain minimax stops at its depth cap for this game (depth 7).")
    assert "adds up every depth" in said[0]
    assert said[1].startswith("Stopped by its time limit") and "adds up" not in said[1]
    assert said[2].startswith("Stopped at its node budget")
