"""The web's edge in a real browser: another site cannot act for a player, and every page
works under the Content-Security-Policy (no violation, no console error).

The other site is a tiny ``http.server`` on another loopback port, named
``localhost`` (another site than ``127.0.0.1``, as a real attacker's is) or
``127.0.0.1`` (the same site, another origin).
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Page

from tests.browser.game_page import GamePage

#: A page of another site: a form that posts itself to the server's /new at once.
FORGED_FORM = """<!doctype html><title>Win a prize</title>
<form id="f" method="post" action="{base}/new">
  <input name="game" value="connect4"><input name="level" value="easy">
</form>
<script>document.getElementById("f").submit();</script>
"""
#: A page of another site that opens a Socket.IO connection to the server.
FORGED_SOCKET = """<!doctype html><title>Watching you</title>
<script src="{base}/static/vendor/socket.io.min.js"></script>
<script>
  window.outcome = "pending";
  const socket = io("{base}", {{ transports: ["websocket"], reconnection: false }});
  socket.on("connect", () => {{ window.outcome = "connected"; }});
  socket.on("connect_error", () => {{ window.outcome = "refused"; }});
</script>
"""


@pytest.fixture
def other_site(tmp_path: Path, base_url: str) -> Iterator[int]:
    """Serve the forged pages from ``tmp_path`` on a free loopback port; yield the port."""
    (tmp_path / "form.html").write_text(FORGED_FORM.format(base=base_url))
    (tmp_path / "socket.html").write_text(FORGED_SOCKET.format(base=base_url))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(tmp_path), **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def identity_cookie(context: BrowserContext) -> str:
    found = [c["value"] for c in context.cookies() if c["name"] == "lookahead_id"]
    assert len(found) == 1, context.cookies()
    return found[0]


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_another_site_cannot_take_a_players_games(
    page: Page, context: BrowserContext, base_url: str, other_site: int, host: str
) -> None:
    game = GamePage(page)
    game.start_from_home("tictactoe", "easy")
    mine = page.url
    cookie = identity_cookie(context)
    before = page.request.get(f"{base_url}/api/my/games").json()
    assert len(before) == 1

    attacker = context.new_page()
    with attacker.expect_response(f"{base_url}/new") as posted:
        attacker.goto(f"http://{host}:{other_site}/form.html")
    assert posted.value.status == 403
    assert posted.value.request.method == "POST"
    attacker.goto(f"http://{host}:{other_site}/socket.html")
    attacker.wait_for_function("window.outcome !== 'pending'")
    assert attacker.evaluate("window.outcome") == "refused"
    attacker.close()

    assert identity_cookie(context) == cookie
    assert page.request.get(f"{base_url}/api/my/games").json() == before
    page.goto(mine)
    game.click("5")
    game.wait_for_moves(2)  # still the player: the move and the engine's answer


def test_every_page_works_under_the_policy(context: BrowserContext, base_url: str) -> None:
    """Home, a game (its socket and engine), the analysis board and the tree page: no CSP
    violation and no console error on any."""
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"pageerror: {error}"))

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(f"console: {message.text}")

    page.on("console", console)
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => console.error("
        "'CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
    )
    game = GamePage(page)
    game.start_from_home("connect4", "easy")
    game.click("4")
    game.wait_for_moves(2)  # the socket works: the move went, the engine answered
    moves = "44"
    for path in (
        "/",
        f"/analysis?game=connect4&moves={moves}",
        "/tree?game=tictactoe&moves=5",
        f"/new?game=connect4&moves={moves}",
    ):
        page.goto(f"{base_url}{path}")
        page.wait_for_load_state("networkidle")
    assert problems == []
