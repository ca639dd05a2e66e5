"""A double click plays one move and takes back one turn (Connect Four at Perfect, where the
opening book replies at once: the second click once landed on the engine's reply)."""

from __future__ import annotations

from playwright.sync_api import Page, WebSocket, expect

from tests.browser.game_page import GamePage


def double_clicked(page: Page, query: str, move: str) -> GamePage:
    """A new game (``query``) whose first move is a double click on ``move``; the engine
    has replied."""
    ui = GamePage(page)
    ui.open_new(query)
    ui.wait_for_my_turn()
    ui.cell(move).dblclick()
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    return ui


def test_a_double_click_plays_one_move_and_a_double_undo_takes_back_one_turn(page: Page) -> None:
    ui = double_clicked(page, "game=connect4&level=perfect&engine_plays=second", "4")
    ui.click("3")  # a move of its own: had the double click played twice, it would be later
    ui.wait_for_moves(4)
    ui.wait_for_my_turn()
    played = ui.moves.all_inner_texts()
    assert played[0] == "4" and played[2] == "3", played

    page.get_by_role("button", name="Undo").dblclick()
    ui.wait_for_moves(2)
    ui.wait_for_my_turn()
    ui.click("5")  # again a move of its own: two turns taken back would leave one move
    ui.wait_for_moves(4)
    played = ui.moves.all_inner_texts()
    assert played[:3] == ["4", played[1], "5"], played
    expect(ui.notice).not_to_contain_text("moved on")


def test_a_double_click_on_a_cell_says_nothing_of_a_taken_cell(page: Page) -> None:
    ui = double_clicked(page, "game=tictactoe&level=easy&engine_plays=second", "5")
    expect(ui.notice).not_to_contain_text("taken")
    assert ui.moves.all_inner_texts()[0] == "5"


def test_a_double_click_on_new_game_starts_one_game(page: Page) -> None:
    """Asked over the game's connection (no request of its own): one ``new_game`` sent, and
    this browser has two games, the first and one more."""
    ui = GamePage(page)
    asked: list[str] = []
    requests: list[str] = []

    def watch(socket: WebSocket) -> None:
        socket.on(
            "framesent", lambda frame: '"new_game"' in str(frame) and asked.append(str(frame))
        )

    page.on("websocket", watch)
    ui.open_new("game=tictactoe&level=easy&engine_plays=second")
    ui.wait_joined()  # connected: before that, the page asks over HTTP
    first = page.url
    page.on(
        "request", lambda r: r.method == "POST" and "/api/games" in r.url and requests.append(r.url)
    )
    page.get_by_role("button", name="New game").dblclick()
    page.wait_for_url(lambda url: url != first and "/g/" in url)
    expect(ui.board).to_be_visible()
    assert len(asked) == 1, asked
    mine = page.request.get("/api/my/games").json()
    assert len(mine) == 2 and first.endswith(mine[1]["url"]), mine
    assert requests == [], requests  # none after the first game's own
