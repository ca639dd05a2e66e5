"""What a person does on the home and game pages, in one place (a page object).

The tests read the page as a person would: the move list, the status line,
the engine panel. Locators lean on ids and accessible names, not on layout.
"""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

#: The engine may be slow on a loaded machine: a reply has a minute.
ENGINE_TIMEOUT_MS = 60_000

#: An init script that keeps the page's Socket.IO client reachable (``window.__socket``)
#: so a test can drop its connection and bring it back.
KEEP_SOCKET = """
(() => {
  let real;
  Object.defineProperty(window, "io", {
    configurable: true,
    get: () => real && ((...args) => (window.__socket = real(...args))),
    set: (value) => { real = value; },
  });
})();
"""


class GamePage:
    def __init__(self, page: Page) -> None:
        self.page = page

    # -- Starting a game ------------------------------------------------------

    def start_from_home(self, game: str, level: str, *, engine_first: bool = False) -> None:
        """Choose a game and settings on the home page and press the start button."""
        page = self.page
        page.goto("/")
        page.locator(f'.game-card[data-game="{game}"]').click()
        page.locator(f'input[name="level"][value="{level}"]').check()
        who = "The engine" if engine_first else "You"
        page.get_by_role("group", name="Who moves first").get_by_role("radio", name=who).check()
        page.locator("#start").click()
        page.wait_for_url(re.compile(r"/g/[^/]+$"))
        expect(self.board).to_be_visible()

    def open_new(self, query: str) -> None:
        """Start a game through a position link (/new?...): its page, then "Play from here"."""
        self.page.goto(f"/new?{query}")
        self.play_from_here()

    def play_from_here(self) -> None:
        """On a position link's page, start the game (a POST) and wait for the game page."""
        self.page.get_by_role("button", name="Play from here").click()
        self.page.wait_for_url(re.compile(r"/g/[^/]+$"))
        expect(self.board).to_be_visible()

    # -- The board and the moves ------------------------------------------------

    @property
    def board(self) -> Locator:
        return self.page.locator(".board")

    def cell(self, move: str) -> Locator:
        """The column (Connect Four) or cell (tic-tac-toe) button for a move."""
        return self.board.locator(f'button[data-move="{move}"]')

    @property
    def moves(self) -> Locator:
        return self.page.locator("#moves .move")

    def wait_joined(self) -> None:
        """Wait for the page's join to be answered: its state is in, the form set from it
        (a page acted on before that has its edits overwritten by the join's state)."""
        expect(self.page.locator("body")).to_have_attribute("data-joined", re.compile(r"^\d+$"))

    def wait_for_my_turn(self) -> None:
        expect(self.page.locator(".board.is-interactive")).to_have_count(
            1, timeout=ENGINE_TIMEOUT_MS
        )

    def wait_for_moves(self, count: int) -> None:
        expect(self.moves).to_have_count(count, timeout=ENGINE_TIMEOUT_MS)

    def click(self, move: str) -> None:
        self.wait_for_my_turn()
        self.cell(move).click()

    def press(self, move: str) -> None:
        self.wait_for_my_turn()
        self.page.locator("body").press(move)

    # -- The engine panel ----------------------------------------------------------

    @property
    def notice(self) -> Locator:
        return self.page.locator("#notice")

    @property
    def pv(self) -> Locator:
        return self.page.locator("#pv li")

    @property
    def candidates(self) -> Locator:
        return self.page.locator("#candidates li")

    def stat(self, name: str) -> Locator:
        return self.page.locator(f"#stats .stat-{name} dd")

    def engine_nodes(self) -> int:
        return int(self.page.locator("#stats .stat-nodes").get_attribute("data-nodes") or "0")

    def compare_nodes(self, algorithm: str) -> int:
        row = self.page.locator(f'#compare-table tr[data-algorithm="{algorithm}"] td.nodes')
        return int(row.get_attribute("data-nodes") or "0")

    def choose_setting(self, name: str, value: str) -> None:
        """Pick a setting in the game page's settings panel."""
        self.page.locator(f'#settings-form input[name="{name}"][value="{value}"]').check()
